package asgstfuzz.stress;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tier transitions and deoptimization storms. Every cycle loads a fresh copy of DeoptKernel,
 * warms it into compiled code for a random time (so it reaches C1 or C2, sometimes OSR), then
 * invalidates it (new subclass, type profile pollution, uncommon traps). With our WhiteBox
 * binding active, a helper thread also deoptimizes all compiled frames every 100-400 ms,
 * like the JEP 435 prototype's own stress tests.
 */
final class DeoptScenario extends Scenario {
    /** Implemented by each DeoptKernel copy; public so another runtime package can see it. */
    public interface Kernel {
        long run(int mode, int depth);
    }

    private final LongAdder cycles = new LongAdder();
    private WhiteBoxAccess wb;
    private Thread deopter;
    private long frameCalls, framesDeoptimized, allCalls;

    DeoptScenario() {
        super("deopt", "fresh hot code warmed to C1/C2 then invalidated (CHA, type profile, "
            + "uncommon traps); WhiteBox deoptimizeFrames/All every 100-400 ms when available");
    }

    @Override boolean setUp(Run run) {
        WhiteBoxAccess.Probe p = WhiteBoxAccess.probe();
        wb = p.access;
        if (wb != null) {
            run.info("deopt: WhiteBox active (" + wb.className + "), deoptimizing every 100-400 ms");
            SplittableRandom rnd = new SplittableRandom(Main.mix(run.options.seed, 99, 0));
            deopter = new Thread(() -> deoptLoop(run, rnd), "asgst-deopter");
            deopter.setDaemon(true);
            deopter.start();
        } else {
            run.info("deopt: WhiteBox not active (" + p.reason + "); using class-loading, "
                + "type-profile and uncommon-trap deopts only");
        }
        return true;
    }

    private void deoptLoop(Run run, SplittableRandom rnd) {
        try {
            while (!run.stopping) {
                Thread.sleep(100 + rnd.nextInt(301));
                if (run.stopping) break;
                if (rnd.nextInt(4) == 0) {
                    wb.deoptimizeAll();
                    allCalls++;
                } else {
                    framesDeoptimized += wb.deoptimizeFrames(rnd.nextBoolean());
                    frameCalls++;
                }
            }
        } catch (InterruptedException e) {
            // shutdown
        } catch (ReflectiveOperationException | RuntimeException e) {
            run.fail("deopt: WhiteBox call failed", e);
        }
    }

    @Override long step(Worker w) throws ReflectiveOperationException {
        Class<?> c = new IsolatingLoader("asgstfuzz.stress.DeoptKernel")
            .loadClass("asgstfuzz.stress.DeoptKernel");
        Kernel k = (Kernel) c.getConstructor().newInstance();
        long ops = 0;
        long warmUntil = System.nanoTime() + (5 + w.rnd.nextInt(75)) * 1_000_000L;
        while (System.nanoTime() < warmUntil && w.running()) {
            w.consume(k.run(DeoptKernel.WARM, w.rnd.nextInt(4)));
            ops++;
        }
        int triggers = 1 + w.rnd.nextInt(4);
        for (int t = 0; t < triggers && w.running(); t++) {
            w.consume(k.run(1 + w.rnd.nextInt(DeoptKernel.MODES - 1), 1 + w.rnd.nextInt(3)));
            // Keep running so the method is recompiled against the changed profile.
            int rewarm = w.rnd.nextInt(3000);
            for (int i = 0; i < rewarm; i++) w.consume(k.run(DeoptKernel.WARM, i & 3));
            ops += 1 + rewarm;
        }
        cycles.increment();
        return ops;
    }

    @Override void tearDown(Run run) {
        StringBuilder sb = new StringBuilder("deopt: cycles=").append(cycles.sum());
        if (deopter != null) {
            deopter.interrupt();
            try {
                deopter.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // Counters are read after join, which orders them after the deopter's writes.
            sb.append(" whitebox=active wb_calls=").append(frameCalls + allCalls)
              .append(" deoptimizeFrames=").append(frameCalls)
              .append(" frames_deoptimized=").append(framesDeoptimized)
              .append(" deoptimizeAll=").append(allCalls);
        } else {
            sb.append(" whitebox=inactive");
        }
        run.info(sb.toString());
    }
}
