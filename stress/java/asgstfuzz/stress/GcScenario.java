package asgstfuzz.stress;

import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;

/**
 * Constant GC. Samples taken while a GC runs or while threads stop for one see frames whose
 * oops are being moved and threads in odd states; mixed lifetimes make every kind of
 * collection happen (young, mixed/old, humongous allocation, reference processing).
 */
final class GcScenario extends Scenario {
    /** A little linked structure that survives a while: old-to-young pointers, card marks. */
    static final class Node {
        Node left, right;
        final long[] payload;

        Node(int size) { payload = new long[size]; }
    }

    private static final class State {
        final Object[] survivors;
        Node tree = new Node(4);
        Object[] refs = new Object[256];

        State(int slots) { survivors = new Object[slots]; }
    }

    GcScenario() {
        super("gc", "allocation pressure with short, medium and long lifetimes, humongous arrays, "
            + "soft/weak references; sized from -Xmx so it never runs out of heap");
    }

    @Override void work(Worker w) {
        // Retained set: about 5 KB per slot, at most ~40 MB per worker and ~1/16 of the heap.
        long budget = Runtime.getRuntime().maxMemory() / 16 / w.run.options.threads;
        int slots = (int) Math.max(256, Math.min(8192, budget / 4096));
        State s = new State(slots);
        while (w.running()) {
            try {
                w.add(step(w, s));
            } catch (OutOfMemoryError e) {
                // Another scenario may share the heap; drop our live set and carry on.
                java.util.Arrays.fill(s.survivors, null);
                s.tree = new Node(4);
            }
        }
    }

    private long step(Worker w, State s) {
        long acc = 0;
        for (int i = 0; i < 64; i++) {
            int r = w.rnd.nextInt(1000);
            Object o;
            if (r < 700) o = new byte[16 + w.rnd.nextInt(240)];
            else if (r < 900) o = new int[256 + w.rnd.nextInt(4096)];
            else if (r < 999) o = chain(w.rnd.nextInt(64));
            else o = new long[(64 << 10) + w.rnd.nextInt(192 << 10)];   // G1 humongous
            acc += System.identityHashCode(o) & 7;
            // Few objects survive, and mostly not the huge ones, as in real programs.
            if (w.rnd.nextInt(r < 999 ? 8 : 32) == 0) s.survivors[w.rnd.nextInt(s.survivors.length)] = o;
        }
        grow(s, w);
        int slot = w.rnd.nextInt(s.refs.length);
        s.refs[slot] = w.rnd.nextBoolean() ? new WeakReference<>(new byte[64]) : new SoftReference<>(new int[64]);
        w.consume(acc);
        return 64;
    }

    private static Node chain(int n) {
        Node head = new Node(2);
        for (int i = 0; i < n; i++) {
            Node x = new Node(1);
            x.left = head;
            head = x;
        }
        return head;
    }

    /** Old tree gets young children and loses old subtrees at random. */
    private static void grow(State s, Worker w) {
        Node n = s.tree;
        for (int d = 0; d < 12 && n != null; d++) {
            Node next = w.rnd.nextBoolean() ? n.left : n.right;
            if (next == null) {
                if (w.rnd.nextBoolean()) n.left = new Node(8); else n.right = new Node(8);
                return;
            }
            if (w.rnd.nextInt(64) == 0) {
                if (next == n.left) n.left = null; else n.right = null;
                return;
            }
            n = next;
        }
    }
}
