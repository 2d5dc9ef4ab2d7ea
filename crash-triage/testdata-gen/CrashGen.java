// Crashes the JVM in one chosen way; see gen.sh.
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

public class CrashGen {
    static { System.loadLibrary("crashgen"); }

    static native void setDir(String dir);
    static native int nullDeref(long addr, int depth);
    static native void callAbort(int v);
    static native int agctBadFrames(long frames);
    static native void startSampler(long frames);
    static native long busRead(long off);

    static sun.misc.Unsafe unsafe() throws Exception {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (sun.misc.Unsafe) f.get(null);
    }

    static volatile long sink;

    static long spin(long n) {
        long s = 0;
        for (long i = 0; i < n; i++) { s += i * 31 ^ (s >>> 3); }
        return s;
    }

    // Adds `depth` Java frames (alternating methods) below the crash.
    static void descend(int depth, String mode, long arg) throws Exception {
        if (depth > 0) {
            if ((depth & 1) == 0) descend(depth - 1, mode, arg); else stepOdd(depth - 1, mode, arg);
            return;
        }
        crash(mode, arg);
    }

    static void stepOdd(int depth, String mode, long arg) throws Exception {
        descend(depth, mode, arg);
    }

    static void crash(String mode, long arg) throws Exception {
        switch (mode) {
            case "unsafe-put": unsafe().putLong(arg, 0x5a5a5a5aL); break;
            case "unsafe-get": sink = unsafe().getLong(arg); break;
            case "jni-null": sink = nullDeref(arg, 3); break;
            case "jni-abort": callAbort((int) arg); break;
            case "jni-bus": sink = busRead(arg); break;
            case "agct-frames": sink = agctBadFrames(arg); break;
            case "agct-signal":
                startSampler(arg);
                for (;;) sink += spin(1_000_000);
            case "abort-on-exception": throw new IllegalStateException("crashgen " + arg);
            case "oom": {
                List<long[]> hold = new ArrayList<>();
                for (;;) hold.add(new long[1 << 20]);
            }
            default: throw new IllegalArgumentException(mode);
        }
        System.out.println("no crash: " + mode + " result " + sink);
    }

    public static void main(String[] a) throws Exception {
        String mode = a[0];
        long arg = Long.decode(a[1]);
        String thread = a[2];
        int depth = Integer.parseInt(a[3]);
        setDir(a[4]);
        Thread t = new Thread(() -> {
            try { descend(depth, mode, arg); } catch (Exception e) { throw new RuntimeException(e); }
        }, thread);
        t.start();
        t.join();
    }
}
