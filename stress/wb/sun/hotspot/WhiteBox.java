package sun.hotspot;

/**
 * Minimal binding to HotSpot's WhiteBox test API. The VM attaches its natives only to a class
 * of exactly this name loaded by the boot loader (-Xbootclasspath/a:wb.jar) and only with
 * -XX:+UnlockDiagnosticVMOptions -XX:+WhiteBoxAPI; otherwise registerNatives does nothing and
 * calls throw UnsatisfiedLinkError, which callers use to detect availability.
 * The original name; every JDK 17 accepts it, and 25 (checked here) still does.
 * Only the natives the stress workloads need are declared; the VM prints one warning per
 * method it knows but cannot find here, which the stress code hides when it can.
 */
public final class WhiteBox {
    private static native void registerNatives();

    static {
        registerNatives();
    }

    private static final WhiteBox INSTANCE = new WhiteBox();

    private WhiteBox() {}

    public static WhiteBox getWhiteBox() {
        return INSTANCE;
    }

    /** Harmless probe: throws UnsatisfiedLinkError when the natives were not registered. */
    public native int getVMPageSize();

    /** Deoptimizes compiled frames on all thread stacks; returns how many frames. */
    public native int deoptimizeFrames(boolean makeNotEntrant);

    /** Marks every nmethod for deoptimization. */
    public native void deoptimizeAll();
}
