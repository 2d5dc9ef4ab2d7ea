package asgstfuzz.stress;

import java.util.ArrayDeque;

/**
 * Thread churn. A sampler that picks a thread and signals it races with that thread's start
 * and exit: half-initialised threads, threads without a Java frame yet, exiting threads
 * (THREAD_EXIT / -8), recycled thread ids. Children are named after their parent worker so
 * the same glob selects them.
 */
final class ThreadsScenario extends Scenario {
    private static final int MAX_OUTSTANDING = 4;
    private static volatile int sink;

    ThreadsScenario() {
        super("threads", "short-lived threads (varied stack sizes, some dying from an uncaught "
            + "exception) started and joined continuously");
    }

    @Override void work(Worker w) throws InterruptedException {
        ArrayDeque<Thread> live = new ArrayDeque<>();
        long seq = 0;
        Thread.UncaughtExceptionHandler quiet = (t, e) -> { };
        try {
            while (w.running()) {
                long seed = w.rnd.nextLong();
                int depth = w.rnd.nextInt(64);
                boolean die = w.rnd.nextInt(16) == 0;
                long stack = w.rnd.nextInt(4) == 0 ? (128 << 10) << w.rnd.nextInt(5) : 0;
                Thread t = new Thread(null, () -> childBody(seed, depth, die),
                    w.name() + "-c" + seq++, stack);
                t.setDaemon(true);
                t.setUncaughtExceptionHandler(quiet);
                t.start();
                live.add(t);
                if (live.size() >= MAX_OUTSTANDING) {
                    live.poll().join();
                    w.add(1);
                }
            }
        } finally {
            for (Thread t : live) t.join(1000);
        }
    }

    /** A little real Java work, so the child has compiled and interpreted frames to sample. */
    private static void childBody(long seed, int depth, boolean die) {
        long v = climb(seed, depth);
        byte[] junk = new byte[(int) (v & 1023)];
        if (die) throw new IllegalStateException("child exits by exception " + junk.length);
        sink = junk.length;
    }

    private static long climb(long x, int n) {
        if (n == 0) return x ^ (x >>> 17);
        return climb(x * 0x9E3779B97F4A7C15L + n, n - 1) + 1;
    }
}
