package asgstfuzz.stress;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Threads that are mostly not running Java: blocked on monitors, waiting, parked, sleeping,
 * or waiting in the kernel from native code. Walkers then depend on the frame anchor and on
 * thread-state transitions (and monitor inflation/deflation happens under them).
 */
final class BlockingScenario extends Scenario {
    private final Object monitor = new Object();
    private final Object outer = new Object();
    private final Object room = new Object();
    private final ReentrantLock lock = new ReentrantLock();
    private boolean nativeWaits;

    BlockingScenario() {
        super("blocking", "contended monitors, wait/notify, LockSupport.park, sleep, ReentrantLock "
            + "and native waits (nanosleep/poll in libstressnative.so)");
    }

    @Override boolean setUp(Run run) {
        String err = NativeLib.load();
        nativeWaits = err == null;
        if (!nativeWaits) run.info("blocking: native waits disabled: " + err);
        return true;
    }

    @Override long step(Worker w) throws InterruptedException {
        switch (w.rnd.nextInt(nativeWaits ? 9 : 7)) {
            case 0:
                synchronized (monitor) {
                    w.consume(busy(w.rnd.nextInt(2000)));
                }
                break;
            case 1:
                synchronized (outer) {
                    synchronized (monitor) {
                        w.consume(busy(w.rnd.nextInt(500)));
                    }
                }
                break;
            case 2:
                synchronized (room) {
                    if (w.rnd.nextInt(3) == 0) room.notifyAll();
                    else room.wait(1 + w.rnd.nextInt(3));   // never 0: that would wait forever
                }
                break;
            case 3:
                LockSupport.parkNanos(this, 10_000 + w.rnd.nextInt(500_000));
                break;
            case 4:
                Thread.sleep(w.rnd.nextInt(3));
                break;
            case 5:
                if (lock.tryLock(1, TimeUnit.MILLISECONDS)) {
                    try {
                        w.consume(busy(w.rnd.nextInt(2000)));
                    } finally {
                        lock.unlock();
                    }
                }
                break;
            case 6:
                Thread.yield();
                break;
            case 7:
                NativeLib.sleepNanos(20_000 + w.rnd.nextInt(1_000_000));
                break;
            default:
                w.consume(NativeLib.pollMillis(w.rnd.nextInt(3)));
                break;
        }
        return 1;
    }

    private static long busy(int n) {
        long x = n;
        for (int i = 0; i < n; i++) x = x * 2862933555777941757L + 3037000493L;
        return x;
    }
}
