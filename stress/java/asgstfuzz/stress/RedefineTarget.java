package asgstfuzz.stress;

/**
 * The class the redefine scenario redefines while workers run its methods. The literal
 * 0x5EED1234 is the one constant the scenario patches in the class file: each redefinition
 * changes a method body, so the running versions become obsolete methods (not equivalent
 * ones) on the workers' stacks. Keep it the only use of that value.
 */
final class RedefineTarget {
    private RedefineTarget() {}

    static long hot(long x, int depth) {
        if (depth > 0) return hot(x * 31 + depth, depth - 1) ^ depth;
        for (int i = 0; i < 2000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x += ((int) x) ^ 0x5EED1234;
        }
        return x;
    }

    static long loop(long x, int n) {
        long acc = x;
        for (int i = 0; i < n; i++) acc += hot(acc, i & 15);
        return acc;
    }
}
