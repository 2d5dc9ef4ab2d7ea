package asgstfuzz.stress;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Reflective access to our WhiteBox binding (stress/wb, packaged as wb.jar). Reflection keeps
 * the main classes free of a compile-time dependency, so they run without wb.jar too.
 */
final class WhiteBoxAccess {
    /** Tried in order; which names a VM binds differs by JDK release. */
    static final String[] CLASS_NAMES = {"jdk.test.whitebox.WhiteBox", "sun.hotspot.WhiteBox"};

    final String className;
    private final Object wb;
    private final Method deoptimizeFrames;
    private final Method deoptimizeAll;

    private WhiteBoxAccess(String className, Object wb, Method frames, Method all) {
        this.className = className;
        this.wb = wb;
        this.deoptimizeFrames = frames;
        this.deoptimizeAll = all;
    }

    /** Result of probing: either an accessor or the reasons none was usable. */
    static final class Probe {
        final WhiteBoxAccess access;
        final String reason;

        Probe(WhiteBoxAccess access, String reason) {
            this.access = access;
            this.reason = reason;
        }
    }

    static Probe probe() {
        List<String> reasons = new ArrayList<>();
        int notFound = 0;
        for (String name : CLASS_NAMES) {
            try {
                return new Probe(open(name), null);
            } catch (ClassNotFoundException e) {
                notFound++;
                reasons.add(name + " not on the boot class path");
            } catch (UnsatisfiedLinkError e) {
                reasons.add(name + " natives not registered (need -XX:+UnlockDiagnosticVMOptions"
                    + " -XX:+WhiteBoxAPI)");
            } catch (ReflectiveOperationException | LinkageError e) {
                reasons.add(name + ": " + e);
            }
        }
        if (notFound == CLASS_NAMES.length) {
            return new Probe(null, "no WhiteBox class on the boot class path; add "
                + "-Xbootclasspath/a:build/stress/wb.jar -XX:+UnlockDiagnosticVMOptions -XX:+WhiteBoxAPI");
        }
        return new Probe(null, String.join("; ", reasons));
    }

    private static WhiteBoxAccess open(String name) throws ReflectiveOperationException {
        // Loader null = boot loader: HotSpot binds WhiteBox natives only for boot classes.
        Class<?> c = Class.forName(name, false, null);
        initQuietly(c);
        Object wb = c.getMethod("getWhiteBox").invoke(null);
        Method probe = c.getMethod("getVMPageSize");
        try {
            probe.invoke(wb);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof UnsatisfiedLinkError) throw (UnsatisfiedLinkError) e.getCause();
            throw e;
        }
        return new WhiteBoxAccess(name, wb,
            c.getMethod("deoptimizeFrames", boolean.class), c.getMethod("deoptimizeAll"));
    }

    /**
     * Class initialisation runs registerNatives, where HotSpot prints a warning line on stdout
     * for every WhiteBox method this binding does not declare (a few hundred). Hide them when
     * our native library can redirect fd 1; otherwise they go through.
     */
    private static void initQuietly(Class<?> c) throws ClassNotFoundException {
        int saved = -1;
        if (NativeLib.load() == null) {
            System.out.flush();
            saved = NativeLib.silenceStdout();
        }
        try {
            Class.forName(c.getName(), true, null);
        } finally {
            if (saved >= 0) NativeLib.restoreStdout(saved);
        }
    }

    int deoptimizeFrames(boolean makeNotEntrant) throws ReflectiveOperationException {
        return (Integer) deoptimizeFrames.invoke(wb, makeNotEntrant);
    }

    void deoptimizeAll() throws ReflectiveOperationException {
        deoptimizeAll.invoke(wb);
    }
}
