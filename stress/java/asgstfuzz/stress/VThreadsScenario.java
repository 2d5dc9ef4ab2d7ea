package asgstfuzz.stress;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Virtual threads (JDK 21+, reached by reflection so this compiles for 11). Their frames live
 * on a carrier thread only while mounted and are copied to and from heap stack chunks on
 * every park/yield, so a carrier's stack changes under a walker; continuation entry frames
 * and chunk thaw/freeze code are new territory for stack walkers.
 */
final class VThreadsScenario extends Scenario {
    private static final int BATCH = 32;
    private Method ofVirtual, name, start;
    private final Object shared = new Object();

    VThreadsScenario() {
        super("vthreads", "batches of virtual threads (JDK 21+) that recurse, park, sleep, yield "
            + "and contend on a monitor; skipped on older JDKs");
    }

    @Override boolean setUp(Run run) throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) {
            run.info("scenario vthreads skipped: needs JDK 21+");
            return false;
        }
        ofVirtual = Thread.class.getMethod("ofVirtual");
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        name = builder.getMethod("name", String.class, long.class);
        start = builder.getMethod("start", Runnable.class);
        return true;
    }

    @Override void work(Worker w) throws Exception {
        // One builder per worker: its name counter is not thread safe.
        Object b = name.invoke(ofVirtual.invoke(null), w.name() + "-v", 0L);
        List<Thread> batch = new ArrayList<>(BATCH);
        while (w.running()) {
            batch.clear();
            for (int i = 0; i < BATCH; i++) {
                long seed = w.rnd.nextLong();
                batch.add((Thread) start.invoke(b, (Runnable) () -> body(seed)));
            }
            for (Thread t : batch) t.join();
            w.add(BATCH);
        }
    }

    private void body(long seed) {
        int depth = (int) ((seed >>> 8) & 127);
        sink = descend(seed, depth);
    }

    private static volatile long sink;

    /** Blocks at the bottom of a stack of `depth` frames, so the whole stack gets frozen. */
    private long descend(long x, int depth) {
        if (depth > 0) return descend(x * 31 + depth, depth - 1) + 1;
        switch ((int) (x & 3)) {
            case 0: LockSupport.parkNanos(1_000 + (x >>> 40)); break;
            case 1: Thread.yield(); break;
            case 2:
                try {
                    Thread.sleep(0, 1 + (int) ((x >>> 20) & 0xfff));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                break;
            default:
                synchronized (shared) {   // pins the carrier on JDK 21-23, not on 24+
                    LockSupport.parkNanos(1_000);
                }
        }
        return x;
    }
}
