package asgstfuzz.stress;

import java.util.SplittableRandom;

/** Per-thread state handed to scenario code. */
final class Worker {
    final Scenario scenario;
    final int index;
    final SplittableRandom rnd;
    final Run run;
    Thread thread;
    /** Results are folded in here so the JIT cannot discard the work that produced them. */
    long sink;

    Worker(Scenario scenario, int index, long seed, Run run) {
        this.scenario = scenario;
        this.index = index;
        this.rnd = new SplittableRandom(seed);
        this.run = run;
    }

    boolean running() { return !run.stopping; }

    void add(long n) { if (n != 0) scenario.ops.add(n); }

    void consume(long v) { sink = sink * 31 + v; }

    String name() { return scenario.threadName(index); }
}
