package asgstfuzz.stress;

import java.util.concurrent.locks.LockSupport;

/**
 * Known parking method for tests that compare walkers on a quiet thread at a known point:
 * the thread sits in LockSupport.park (Unsafe.park, a native method) called from parkHere,
 * waking only a few times a second.
 */
public final class Park {
    private Park() {}

    public static void parkHere(Worker w) {
        while (w.running()) {
            LockSupport.parkNanos(Park.class, 250_000_000L);
            w.add(1);
        }
    }
}
