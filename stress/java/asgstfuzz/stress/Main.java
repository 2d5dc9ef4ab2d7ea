package asgstfuzz.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Entry point: runs the named scenarios concurrently for a fixed time, then prints
 * "scenario=NAME threads=N ops=M" per scenario. Exit 0 ok, 1 a scenario failed, 2 usage error.
 */
public final class Main {
    private static final long JOIN_GRACE_MS = 10_000;

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (Options.UsageError e) {
            System.err.println("asgst-stress: " + e.getMessage());
            System.err.print(Options.USAGE);
            return 2;
        }
        if (o.help) {
            System.out.print(Options.USAGE);
            return 0;
        }
        if (o.list) {
            for (Scenario s : Scenarios.all()) System.out.printf("%-11s %s%n", s.name, s.description);
            return 0;
        }
        List<Scenario> chosen = new ArrayList<>();
        for (String n : o.scenarios) {
            Scenario s = Scenarios.byName(n);
            if (s == null) {
                System.err.println("asgst-stress: unknown scenario '" + n + "' (see --list)");
                return 2;
            }
            chosen.add(s);
        }
        if (!o.seedGiven) o.seed = System.nanoTime() ^ 0x5DEECE66DL * System.currentTimeMillis();
        return execute(o, chosen);
    }

    private static int execute(Options o, List<Scenario> chosen) {
        Run run = new Run(o);
        // Printed even with --quiet: its seed is what repeats the run's choices.
        run.info("asgst-stress: jdk=" + System.getProperty("java.version") + " seed=" + o.seed
            + " threads=" + o.threads + " duration=" + o.durationMillis + "ms scenarios="
            + String.join(",", o.scenarios));
        // All setUps run before any worker so that one-time output (e.g. WhiteBox probing,
        // which may briefly redirect stdout) cannot interleave with worker activity.
        List<Scenario> active = new ArrayList<>();
        for (Scenario s : chosen) {
            try {
                if (s.setUp(run)) active.add(s);
            } catch (Scenario.Unavailable u) {
                run.fail("scenario " + s.name + " failed: " + u.getMessage(), null);
                return 1;
            } catch (Throwable t) {
                run.fail("scenario " + s.name + " failed to set up", t);
                return 1;
            }
        }
        List<Worker> workers = startWorkers(o, active, run);
        long start = System.nanoTime();
        long deadline = start + o.durationMillis * 1_000_000L;
        long nextStatus = start + 1_000_000_000L;
        while (true) {
            long now = System.nanoTime();
            if (now >= deadline) break;
            long wake = Math.min(deadline, nextStatus);
            try {
                Thread.sleep(Math.max(1, (wake - now) / 1_000_000L));
            } catch (InterruptedException e) {
                break;
            }
            if (!o.quiet && System.nanoTime() >= nextStatus) {
                printStatus(run, chosen, (System.nanoTime() - start) / 1_000_000_000L);
                nextStatus += 1_000_000_000L;
            }
        }
        stop(run, workers);
        for (Scenario s : active) {
            try {
                s.tearDown(run);
            } catch (Throwable t) {
                run.fail("scenario " + s.name + " failed in tear-down", t);
            }
        }
        for (Scenario s : chosen) {
            run.info("scenario=" + s.name + " threads=" + o.threads + " ops=" + s.ops.sum());
        }
        return run.failed() ? 1 : 0;
    }

    private static List<Worker> startWorkers(Options o, List<Scenario> active, Run run) {
        List<Worker> workers = new ArrayList<>();
        int si = 0;
        for (Scenario s : active) {
            si++;
            for (int i = 0; i < o.threads; i++) {
                Worker w = new Worker(s, i, mix(o.seed, si, i), run);
                Thread t = new Thread(null, () -> body(w), w.name(), s.stackSize());
                t.setDaemon(true);
                w.thread = t;
                workers.add(w);
            }
        }
        for (Worker w : workers) w.thread.start();
        return workers;
    }

    private static void body(Worker w) {
        try {
            w.scenario.work(w);
        } catch (InterruptedException e) {
            // Main interrupts blocked workers at shutdown; anything earlier is a bug.
            if (!w.running()) return;
            w.run.fail("worker " + w.name() + " interrupted before shutdown", e);
        } catch (Throwable t) {
            w.run.fail("worker " + w.name() + " failed", t);
        }
    }

    private static void stop(Run run, List<Worker> workers) {
        run.stopping = true;
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
            w.thread.interrupt();
        }
        long giveUp = System.nanoTime() + JOIN_GRACE_MS * 1_000_000L;
        for (Worker w : workers) {
            long left = (giveUp - System.nanoTime()) / 1_000_000L;
            try {
                if (left > 0) w.thread.join(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (w.thread.isAlive()) run.fail("worker " + w.name() + " did not stop within "
                + JOIN_GRACE_MS + " ms", null);
        }
    }

    private static void printStatus(Run run, List<Scenario> chosen, long secs) {
        StringBuilder sb = new StringBuilder("status t=").append(secs).append('s');
        for (Scenario s : chosen) sb.append(' ').append(s.name).append('=').append(s.ops.sum());
        run.info(sb.toString());
    }

    /** Distinct, well-spread seeds per worker derived from the run seed (SplitMix64 finaliser). */
    static long mix(long seed, int a, int b) {
        long z = seed + 0x9E3779B97F4A7C15L * (a * 1009L + b + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
