package asgstfuzz.stress;

/**
 * Workers call System.nanoTime and System.currentTimeMillis in a hot loop. Compiled, both are
 * intrinsics that call into the VM's clock functions and on to libc's clock_gettime (the vDSO)
 * without a thread state transition: the thread stays "in Java" while its pc is in code built
 * without frame pointers. A profiler signal landing there has crashed AsyncGetCallTrace in
 * production (OpenJDK bug 8350111).
 */
final class NanoTimeScenario extends Scenario {
    NanoTimeScenario() {
        super("nanotime", "System.nanoTime/currentTimeMillis in a compiled loop: samples land in "
            + "clock_gettime called from an intrinsic (one op = 4096 calls)");
    }

    @Override long step(Worker w) {
        long acc = 0;
        for (int i = 0; i < 4096; i++) {
            acc += System.nanoTime();
            if ((i & 63) == 0) acc ^= System.currentTimeMillis();
        }
        w.consume(acc);
        return 1;
    }
}
