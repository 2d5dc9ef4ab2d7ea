package asgstfuzz.stress;

import java.io.File;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Binding to stress/native/stress_native.c (build/lib/libstressnative.so). Loaded on demand:
 * only the jni scenario requires it; others use it when present.
 */
final class NativeLib {
    static final String PROPERTY = "asgst.stress.native";
    static final String FILE = "libstressnative.so";

    private static String loadError;
    private static boolean loaded;

    private NativeLib() {}

    // ---- natives (names must match stress_native.c; the build checks via javac -h) ----

    /** Plain down-call: a native frame on top of Java frames. */
    static native long down(long x);

    /** Native calls back into up(), which calls pingPong again: alternating Java/native frames. */
    static native long pingPong(int depth, int throwAt);

    /** Holds a GetPrimitiveArrayCritical region (GCLocker) while summing. */
    static native long sumCritical(int[] data);

    /** Busy loop entirely in native code (thread state _thread_in_native, no Java on top). */
    static native long spinNative(long iterations);

    /** Blocking waits in the kernel while in native state. */
    static native void sleepNanos(long nanos);

    static native int pollMillis(int millis);

    /** Points fd 1 at /dev/null; returns the saved fd for restoreStdout, or -1. */
    static native int silenceStdout();

    static native void restoreStdout(int savedFd);

    /** Up-call target of pingPong. Throws at depth throwAt so exceptions cross native frames. */
    static long up(int depth, int throwAt) {
        if (depth == throwAt) throw new UpcallException(depth);
        long local = depth * 31L + throwAt;
        return pingPong(depth - 1, throwAt) + (local & 1);
    }

    static final class UpcallException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        UpcallException(int depth) { super("thrown in up-call at depth " + depth, null, false, depth % 2 == 0); }
    }

    // ---- loading ----

    /** Returns null when loaded, otherwise a message saying where it looked and how to fix it. */
    static synchronized String load() {
        if (loaded) return null;
        if (loadError != null) return loadError;
        List<File> candidates = candidates();
        for (File f : candidates) {
            if (!f.isFile()) continue;
            try {
                System.load(f.getAbsolutePath());
                loaded = true;
                return null;
            } catch (UnsatisfiedLinkError e) {
                loadError = "cannot load " + f + ": " + e.getMessage();
                return loadError;
            }
        }
        loadError = "native library " + FILE + " not found (looked at " + candidates
            + "); build it with 'make stress' or pass -D" + PROPERTY + "=/path/to/" + FILE;
        return loadError;
    }

    static synchronized boolean isLoaded() { return loaded; }

    private static List<File> candidates() {
        String explicit = System.getProperty(PROPERTY);
        List<File> out = new ArrayList<>();
        if (explicit != null && !explicit.isEmpty()) {
            out.add(new File(explicit));
            return out;  // an explicit path that does not work must not be silently replaced
        }
        // Default layout: classes in build/stress/classes (or a jar in build/stress), library
        // in build/lib.
        Set<File> roots = new LinkedHashSet<>();
        try {
            URI where = NativeLib.class.getProtectionDomain().getCodeSource().getLocation().toURI();
            roots.add(new File(where));
        } catch (Exception | Error e) {
            // No usable code source (unusual launchers): fall back to the class path alone.
        }
        for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!e.isEmpty()) roots.add(new File(e));
        }
        for (File r : roots) {
            File abs = r.getAbsoluteFile();
            File p1 = abs.getParentFile();
            File p2 = p1 == null ? null : p1.getParentFile();
            if (p2 != null) out.add(new File(new File(p2, "lib"), FILE));
            if (p1 != null) out.add(new File(new File(p1, "lib"), FILE));
        }
        return out;
    }
}
