package asgf.fuzz;

import java.lang.reflect.Method;

/**
 * The Java side of the fuzz harnesses: busy worker threads whose live contexts the fuzzers
 * sample and mutate. The harness (fuzz/harness.c) calls {@link #start} through JNI once, right
 * after it has attached its JVMTI thread hook, and then only sends signals to the workers.
 *
 * Workers are daemon threads named "asgst-worker-SCENARIO-N", the naming the stress workloads
 * (stress/) use, so one name glob finds either. Scenarios of our own (names the stress
 * workloads do not use, so a name always means the same code):
 *   loop  - a JIT-compiled loop at a fixed depth of about 20 frames, calling small methods
 *   mixed - random recursion depth, allocation, arraycopy, interface calls, some interpreted code
 * Any other name, or a comma-separated list, goes to asgstfuzz.stress.Main (spin, recursion,
 * inline, deopt, ...) when its classes are on the class path; it starts `threads` workers
 * per scenario.
 */
public final class Workload {
    private Workload() {}

    static volatile long sink;

    interface Step {
        long apply(long x);
    }

    static final class Xor implements Step {
        public long apply(long x) { return x ^ (x << 13) ^ (x >>> 7); }
    }

    static final class Mul implements Step {
        public long apply(long x) { return x * 6364136223846793005L + 1442695040888963407L; }
    }

    /** Starts the workers; returns how many (all scenarios), or -1 if the scenario is unknown. */
    public static int start(String scenario, int threads) throws Exception {
        Runnable body;
        switch (scenario) {
            case "loop": body = Workload::loop; break;
            case "mixed": body = Workload::mixed; break;
            default: return startStress(scenario, threads);
        }
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(null, body, "asgst-worker-" + scenario + "-" + i, 4L << 20);
            t.setDaemon(true);
            t.start();
        }
        return threads;
    }

    private static int startStress(String scenario, int threads) throws Exception {
        Class<?> main;
        Method byName;
        try {
            main = Class.forName("asgstfuzz.stress.Main");
            byName = Class.forName("asgstfuzz.stress.Scenarios").getDeclaredMethod("byName", String.class);
        } catch (ClassNotFoundException e) {
            return -1;
        }
        byName.setAccessible(true);
        String[] names = scenario.split(",");
        for (String n : names) {
            if (byName.invoke(null, n.trim()) == null) return -1;
        }
        Method run = main.getDeclaredMethod("run", String[].class);
        run.setAccessible(true);
        String[] args = {"--scenario", scenario, "--threads", Integer.toString(threads),
            "--duration", "1000000m", "--quiet"};
        Thread t = new Thread(() -> {
            try {
                run.invoke(null, (Object) args);
            } catch (ReflectiveOperationException e) {
                e.printStackTrace();
            }
        }, "asgf-stress-main");
        t.setDaemon(true);
        t.start();
        return threads * names.length;
    }

    // ---- loop: steady depth, hot compiled code ----

    static void loop() {
        sink = descend(18, 1);
    }

    static long descend(int n, long x) {
        if (n == 0) return hot(x);
        return descend(n - 1, x + n) ^ n;
    }

    static long hot(long x) {
        Step a = new Xor(), b = new Mul();
        for (long round = 0; ; round++) {
            for (int i = 0; i < 4096; i++) x = leaf(a, b, x, i);
            if ((round & 0xff) == 0) sink = x;
        }
    }

    static long leaf(Step a, Step b, long x, int i) {
        return (i & 1) == 0 ? a.apply(x) : b.apply(x);
    }

    // ---- mixed: varying depth, allocation, natives ----

    static void mixed() {
        long seed = Thread.currentThread().getId() * 0x9E3779B97F4A7C15L;
        Step[] steps = {new Xor(), new Mul()};
        long[] src = new long[256], dst = new long[256];
        while (true) {
            seed ^= seed << 13;
            seed ^= seed >>> 7;
            seed ^= seed << 17;
            int depth = 1 + (int) ((seed >>> 33) % 200);
            sink = mixedDive(depth, seed, steps, src, dst);
        }
    }

    static long mixedDive(int n, long x, Step[] steps, long[] src, long[] dst) {
        if (n > 0) return mixedDive(n - 1, x + n, steps, src, dst) ^ n;
        for (int i = 0; i < 64; i++) {
            x = steps[i & 1].apply(x);
            src[i & 255] = x;
        }
        System.arraycopy(src, 0, dst, 0, src.length);
        StringBuilder sb = new StringBuilder();
        sb.append(x & 0xffff);
        return x ^ sb.length() ^ dst[(int) (x & 255)] ^ Math.floorMod(x, 97);
    }
}
