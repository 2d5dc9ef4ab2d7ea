package asgstfuzz.stress;

import java.util.concurrent.atomic.LongAdder;

/**
 * One named workload. Main creates the worker threads so that every scenario gets the same
 * thread naming (samplers select threads by the name glob asgst-worker-NAME-*).
 */
abstract class Scenario {
    final String name;
    final String description;
    final LongAdder ops = new LongAdder();

    /** A missing prerequisite: reported as one line, without a stack trace. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) { super(message); }
    }

    Scenario(String name, String description) {
        this.name = name;
        this.description = description;
    }

    /** Worker stack size in bytes, 0 for the VM default; deep-stack scenarios ask for more. */
    long stackSize() { return 0; }

    /**
     * Runs once on the main thread before any worker starts. May print info lines.
     * Returns false to skip the scenario (it must print why); throws to fail the run.
     */
    boolean setUp(Run run) throws Exception { return true; }

    /** The worker body; the default loops over step() until the run stops. */
    void work(Worker w) throws Throwable {
        while (w.running()) w.add(step(w));
    }

    /** One unit of work; returns how many operations it did. */
    long step(Worker w) throws Throwable {
        throw new UnsupportedOperationException(name + " must override step or work");
    }

    /** Runs after the workers stopped (or were given up on); may print summary lines. */
    void tearDown(Run run) {}

    /** Thread name for worker n; children of a worker extend it so the same glob matches. */
    String threadName(int n) { return "asgst-worker-" + name + "-" + n; }
}
