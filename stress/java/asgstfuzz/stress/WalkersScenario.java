package asgstfuzz.stress;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * The VM's own walkers of other threads, called from Java while the samplers run: each step
 * takes Thread.getStackTrace of another workload thread (a handshake with it on JDK 17+), and
 * every 64th step a full thread dump (ThreadMXBean.dumpAllThreads, a safepoint walk of every
 * thread). Between walks the workers recurse and spin, so they are worth walking too.
 */
final class WalkersScenario extends Scenario {
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    private volatile Thread[] targets = new Thread[0];
    private long lastRefresh;

    WalkersScenario() {
        super("walkers", "Thread.getStackTrace of other workload threads and full thread dumps, "
            + "from workers that recurse between walks (one op = one walk)");
    }

    private void refresh(Worker w) {
        long now = System.nanoTime();
        if (targets.length > 0 && now - lastRefresh < 200_000_000L) return;
        lastRefresh = now;
        List<Thread> l = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet())
            if (t != Thread.currentThread() && t.getName().startsWith("asgst-worker-")) l.add(t);
        targets = l.toArray(new Thread[0]);
    }

    private static long down(int depth, long x) {
        if (depth > 0) return down(depth - 1, x * 31 + depth) + 1;
        for (int i = 0; i < 20_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    @Override long step(Worker w) {
        refresh(w);
        Thread[] t = targets;
        long acc = down(w.rnd.nextInt(64), w.rnd.nextLong());
        if (t.length > 0) {
            StackTraceElement[] st = t[w.rnd.nextInt(t.length)].getStackTrace();
            acc += st.length;
        }
        if (w.rnd.nextInt(64) == 0) acc += MX.dumpAllThreads(false, false).length;
        w.consume(acc);
        return 1;
    }
}
