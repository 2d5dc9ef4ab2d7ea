package asgstfuzz.stress;

/**
 * Deep stacks: walkers must handle thousands of frames, frames of mixed size and kind
 * (static, virtual, interface; interpreted and compiled), and stacks near the guard pages.
 */
final class RecursionScenario extends Scenario {
    private static final int MAX_DEPTH = 6000;

    RecursionScenario() {
        super("recursion", "deep self and mutual recursion (up to 6000 frames) across classes, "
            + "plus occasional dives into StackOverflowError");
    }

    /**
     * Room for MAX_DEPTH interpreted frames of the fattest shape below, with margin; not much
     * more, because a dive to StackOverflowError leaves a whole stack of frames to walk.
     */
    @Override long stackSize() { return 4L << 20; }

    @Override long step(Worker w) {
        int kind = w.rnd.nextInt(100);
        int depth = 1 + w.rnd.nextInt(MAX_DEPTH);
        if (kind < 30) {
            w.consume(self(depth, w.rnd.nextLong()));
        } else if (kind < 65) {
            w.consume(Mutual.a(depth, w.rnd.nextInt(), 1.5));
        } else if (kind < 98) {
            Node chain = Node.chain(w.rnd.nextInt(8));
            w.consume(chain.visit(depth, 0));
        } else {
            w.consume(dive(w));
        }
        return 1;
    }

    private static long self(int n, long acc) {
        if (n == 0) return acc;
        return self(n - 1, acc * 6364136223846793005L + n) ^ n;
    }

    /**
     * Recurse until the VM throws StackOverflowError: the thread then runs right next to the
     * yellow/red zones, which is where walkers have faulted before (stack guard page reads).
     */
    private static long dive(Worker w) {
        try {
            return bottomless(0, w.rnd.nextLong());
        } catch (StackOverflowError e) {
            return 1;
        }
    }

    private static long bottomless(int n, long x) {
        long[] pad = {x, n};
        return bottomless(n + 1, x ^ pad[1]) + pad[0];
    }

    /** Three classes calling each other with different signatures, so frames differ in size. */
    static final class Mutual {
        static long a(int n, int x, double d) {
            if (n <= 0) return x;
            return (n % 3 == 0) ? B.b(n - 1, (long) x * 3, d) : C.c(n - 1, x ^ n, (float) d, "a");
        }
    }

    static final class B {
        static long b(int n, long x, double d) {
            if (n <= 0) return x;
            return Mutual.a(n - 1, (int) (x >>> 7), d * 1.0001) + 1;
        }
    }

    static final class C {
        static long c(int n, int x, float f, Object tag) {
            if (n <= 0) return x + tag.hashCode();
            long r = (n & 1) == 0 ? B.b(n - 1, x, f) : Mutual.a(n - 1, x + 1, f);
            return r + (long) f;
        }
    }

    /** Virtual recursion through a ring of subclasses: call sites become polymorphic. */
    abstract static class Node {
        Node next;

        abstract long visit(int n, long acc);

        static Node chain(int variant) {
            Node a = new N1(), b = new N2(), c = (variant & 1) == 0 ? new N3() : new N1();
            a.next = b;
            b.next = c;
            c.next = a;
            return variant < 4 ? a : b;
        }
    }

    static final class N1 extends Node {
        @Override long visit(int n, long acc) { return n == 0 ? acc : next.visit(n - 1, acc + 1); }
    }

    static final class N2 extends Node {
        @Override long visit(int n, long acc) { return n == 0 ? acc : next.visit(n - 1, acc * 3) + 1; }
    }

    static final class N3 extends Node {
        @Override long visit(int n, long acc) {
            Object box = Long.valueOf(acc);
            return n == 0 ? box.hashCode() : next.visit(n - 1, acc ^ box.hashCode());
        }
    }
}
