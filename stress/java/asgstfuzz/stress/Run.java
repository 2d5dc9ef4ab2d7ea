package asgstfuzz.stress;

/** State shared by all scenarios of one invocation. */
final class Run {
    final Options options;
    volatile boolean stopping;
    private volatile boolean failed;

    Run(Options options) { this.options = options; }

    /** Info lines are always printed; only the periodic status lines obey --quiet. */
    synchronized void info(String line) {
        System.out.println(line);
        System.out.flush();
    }

    synchronized void fail(String what, Throwable t) {
        failed = true;
        System.err.println("asgst-stress: " + what + (t == null ? "" : ": " + t));
        if (t != null) t.printStackTrace(System.err);
        System.err.flush();
    }

    boolean failed() { return failed; }
}
