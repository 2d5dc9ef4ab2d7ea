package asgstfuzz.stress;

/**
 * Hot code that DeoptScenario loads afresh into a throw-away IsolatingLoader every cycle, so
 * each copy starts interpreted, climbs the tiers (C1, C2, OSR) and is then invalidated. The
 * copy lives in another runtime package: use only public members of app-loader classes.
 */
public final class DeoptKernel implements DeoptScenario.Kernel {
    public static final int WARM = 0;
    /** Loads Circle while compiled hot() frames are on the stack: CHA dependency invalidation. */
    public static final int LOAD_SUBCLASS = 1;
    /** Second receiver type at a profiled-monomorphic site: class_check uncommon trap. */
    public static final int OTHER_TYPE = 2;
    /** Takes a branch never taken while warming: unstable_if uncommon trap. */
    public static final int RARE_BRANCH = 3;
    /** A null element where none was seen: null_check trap, then NullPointerException. */
    public static final int NULL_ELEMENT = 4;
    /** Math.addExact overflows: intrinsic's overflow trap, then ArithmeticException. */
    public static final int OVERFLOW = 5;
    public static final int MODES = 6;

    public abstract static class Shape {
        public abstract int area();
    }

    public static final class Square extends Shape {
        private final int side;

        public Square(int side) { this.side = side; }

        @Override public int area() { return side * side; }
    }

    /** Not loaded until LOAD_SUBCLASS: until then Square is Shape's only implementor. */
    public static final class Circle extends Shape {
        private final int r;

        public Circle(int r) { this.r = r; }

        @Override public int area() { return 3 * r * r + 1; }
    }

    public interface Scorer {
        int score(int a);
    }

    public static final class Plus implements Scorer {
        @Override public int score(int a) { return a + 1; }
    }

    /** Loaded up front (so CHA cannot help at the score() site) but unused until OTHER_TYPE. */
    public static final class Times implements Scorer {
        @Override public int score(int a) { return a * 3; }
    }

    private final Shape[] shapes = new Shape[48];
    private final Scorer plus = new Plus();
    private final Scorer times = new Times();

    public DeoptKernel() {
        for (int i = 0; i < shapes.length; i++) shapes[i] = new Square(i + 1);
    }

    @Override
    public long run(int mode, int depth) {
        Shape[] arr = shapes;
        Scorer sc = plus;
        int bias = 0;
        int spice = 1;
        switch (mode) {
            case OTHER_TYPE: sc = times; break;
            case RARE_BRANCH: bias = -1_000_000; break;
            case NULL_ELEMENT: arr = shapes.clone(); arr[arr.length / 3] = null; break;
            case OVERFLOW: spice = 1 << 28; break;
            default: break;
        }
        try {
            return hot(arr, sc, bias, spice, depth, mode);
        } catch (NullPointerException | ArithmeticException e) {
            return -1;
        }
    }

    /**
     * Recurses half way through its loop, so when the innermost activation triggers a
     * deoptimization the outer compiled activations are still live and must be deoptimized
     * lazily on return (the deopt-handler states walkers find hardest).
     */
    private long hot(Shape[] arr, Scorer sc, int bias, int spice, int depth, int mode) {
        long acc = 0;
        int sum = 0;
        for (int i = 0; i < arr.length; i++) {
            if (i == arr.length / 2) {
                if (depth > 0) acc += hot(arr, sc, bias, spice, depth - 1, mode);
                else if (mode == LOAD_SUBCLASS) arr[arr.length - 1] = (Shape) makeCircle(i);
            }
            int a = arr[i].area();
            if (a + bias < 0) acc += rare(a);
            acc += sc.score(a);
            sum = Math.addExact(sum, a * spice);
        }
        return acc + sum;
    }

    /** Declared as Object so verifying this class does not load Circle early. */
    private static Object makeCircle(int r) {
        return new Circle(r);
    }

    private static long rare(int a) {
        return Long.numberOfTrailingZeros(a) + (long) a * a;
    }
}
