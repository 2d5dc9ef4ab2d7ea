package asgstfuzz.stress;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Exceptions thrown deep and caught high: the VM unwinds frame by frame (exception handler
 * lookup, deopt of compiled frames with handlers, finally blocks), fills stack traces (the
 * VM's own walker running concurrently with an async one), and, for hot implicit
 * exceptions, switches to preallocated stackless ones (OmitStackTraceInFastThrow).
 */
final class ExceptionsScenario extends Scenario {
    private static final int KINDS = 10;

    /** Stackless and cheap: no fillInStackTrace walk at all. */
    static final class Quick extends RuntimeException {
        private static final long serialVersionUID = 1L;
        Quick(String m) { super(m, null, false, false); }
    }

    /** Overrides fillInStackTrace, the pre-JDK 7 idiom for cheap exceptions. */
    static final class Lazy extends RuntimeException {
        private static final long serialVersionUID = 1L;
        @Override public synchronized Throwable fillInStackTrace() { return this; }
    }

    static final class Res implements AutoCloseable {
        private final boolean fail;
        Res(boolean fail) { this.fail = fail; }
        @Override public void close() { if (fail) throw new IllegalStateException("close"); }
    }

    ExceptionsScenario() {
        super("exceptions", "throw/catch across up to 1000 frames: with and without stack traces, "
            + "implicit NPE/AIOOBE/ArithmeticException, finally, rethrow, suppressed, StackWalker");
    }

    @Override long stackSize() { return 4L << 20; }

    @Override long step(Worker w) {
        int kind = w.rnd.nextInt(KINDS);
        int depth = w.rnd.nextInt(8) == 0 ? 1 + w.rnd.nextInt(1000) : 1 + w.rnd.nextInt(60);
        try {
            w.consume(dive(depth, kind, w));
        } catch (RuntimeException e) {
            w.consume(e.getClass().hashCode());
            if (kind == 8) w.consume(e.getStackTrace().length);
        }
        return 1;
    }

    private long dive(int depth, int kind, Worker w) {
        try {
            if (depth == 0) return bottom(kind, w);
            if (kind == 6 && depth == 3) {
                try {
                    return dive(depth - 1, kind, w) + 1;
                } catch (RuntimeException e) {
                    throw new IllegalStateException("wrapped at depth " + depth, e);
                }
            }
            return dive(depth - 1, kind, w) + 1;
        } finally {
            w.sink++;
        }
    }

    @SuppressWarnings("finally")
    private long bottom(int kind, Worker w) {
        int[] small = new int[4];
        Object nothing = w.rnd.nextInt(1 << 30) >= 0 ? null : small;
        switch (kind) {
            case 0: throw new IllegalArgumentException("full stack trace");
            case 1: throw new Quick("stackless");
            case 2: throw new Lazy();
            case 3: return nothing.hashCode();                   // implicit NPE
            case 4: return small[small.length + w.rnd.nextInt(3)]; // implicit AIOOBE
            case 5: return 10 / (w.rnd.nextInt(1) + (small[0]));  // implicit ArithmeticException
            case 6: throw new UnsupportedOperationException("to be wrapped");
            case 7:
                try {
                    throw new Quick("replaced");
                } finally {
                    // An exception from finally replaces the one in flight.
                    if (small[0] == 0) throw new IllegalStateException("from finally");
                }
            case 8: throw new RuntimeException("trace to be materialised");
            default:
                try (Res a = new Res(true); Res b = new Res(true)) {
                    List<String> names = StackWalker.getInstance().walk(s ->
                        s.limit(16).map(StackWalker.StackFrame::getMethodName).collect(Collectors.toList()));
                    throw new IllegalStateException("suppressed by " + a + b + " after " + names.size() + " frames");
                }
        }
    }
}
