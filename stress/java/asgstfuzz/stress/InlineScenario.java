package asgstfuzz.stress;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.IntUnaryOperator;

/**
 * Heavy inlining: one compiled frame standing for many Java frames. Walkers must expand
 * inlined scopes from debug info at the sampled pc, which is where pc-to-scope lookups and
 * "virtual" frame reconstruction get exercised. Megamorphic sites add vtable/itable stubs.
 */
final class InlineScenario extends Scenario {
    interface Op {
        int apply(int x);
    }

    static final class Add implements Op { @Override public int apply(int x) { return x + 7; } }
    static final class Xor implements Op { @Override public int apply(int x) { return x ^ 0x5a5a; } }
    static final class Shl implements Op { @Override public int apply(int x) { return x << 1; } }
    static final class Mul implements Op { @Override public int apply(int x) { return x * 3; } }
    static final class Neg implements Op { @Override public int apply(int x) { return -x; } }
    static final class Rot implements Op { @Override public int apply(int x) { return Integer.rotateLeft(x, 5); } }

    private static final Op[] ALL = {new Add(), new Xor(), new Shl(), new Mul(), new Neg(), new Rot()};
    private static final MethodHandle MH = findChain();

    /** Super calls through a class chain: invokespecial chains C2 inlines completely. */
    static class L0 { int f(int x) { return x + 1; } }
    static class L1 extends L0 { @Override int f(int x) { return super.f(x) * 2; } }
    static class L2 extends L1 { @Override int f(int x) { return super.f(x) ^ 3; } }
    static class L3 extends L2 { @Override int f(int x) { return super.f(x) + 4; } }
    static final class L4 extends L3 { @Override int f(int x) { return super.f(x) - 5; } }

    InlineScenario() {
        super("inline", "deep chains of tiny methods, super-call chains, lambdas, method handles; "
            + "monomorphic, bimorphic and megamorphic call sites");
    }

    @Override long step(Worker w) throws Throwable {
        int x = w.rnd.nextInt();
        long acc = 0;
        // Distinct loops keep each call site's type profile exactly as intended.
        Op mono = ALL[0];
        for (int i = 0; i < 256; i++) acc += mono.apply(x + i);
        Op bi0 = ALL[1], bi1 = ALL[2];
        for (int i = 0; i < 256; i++) acc += ((i & 1) == 0 ? bi0 : bi1).apply(x + i);
        for (int i = 0; i < 256; i++) acc += ALL[i % ALL.length].apply(x + i);
        for (int i = 0; i < 256; i++) acc += c0(x + i);
        L0 l = new L4();
        for (int i = 0; i < 256; i++) acc += l.f(x + i);
        IntUnaryOperator f = compose(x);
        for (int i = 0; i < 256; i++) acc += f.applyAsInt(i);
        for (int i = 0; i < 64; i++) acc += (int) MH.invokeExact(x + i);
        w.consume(acc);
        return 256 * 6 + 64;
    }

    private static IntUnaryOperator compose(int k) {
        IntUnaryOperator a = v -> v + k;
        IntUnaryOperator b = v -> v * 5;
        return a.andThen(b).andThen(v -> v ^ k).compose(v -> v - 1);
    }

    // A chain longer than MaxInlineLevel (15), so compiled code mixes inlined and real calls.
    static int c0(int x) { return c1(x + 1) ^ x; }
    static int c1(int x) { return c2(x * 3); }
    static int c2(int x) { return c3(x - 7) + 1; }
    static int c3(int x) { return c4(x ^ 0x11); }
    static int c4(int x) { return c5(x + x); }
    static int c5(int x) { return c6(x >>> 1) - 2; }
    static int c6(int x) { return c7(x | 1); }
    static int c7(int x) { return c8(x * 5) + 3; }
    static int c8(int x) { return c9(x - 1); }
    static int c9(int x) { return c10(x ^ 0x22) ^ 4; }
    static int c10(int x) { return c11(x + 9); }
    static int c11(int x) { return c12(x * 7) - 5; }
    static int c12(int x) { return c13(x >> 2); }
    static int c13(int x) { return c14(x + 13) + 6; }
    static int c14(int x) { return c15(x ^ 0x33); }
    static int c15(int x) { return c16(x - 3) * 3; }
    static int c16(int x) { return c17(x + 17); }
    static int c17(int x) { return c18(x * 11) ^ 7; }
    static int c18(int x) { return c19(x - 19); }
    static int c19(int x) { return c20(x ^ 0x44) + 8; }
    static int c20(int x) { return c21(x + 21); }
    static int c21(int x) { return c22(x * 13) - 9; }
    static int c22(int x) { return c23(x >>> 3); }
    static int c23(int x) { return Integer.bitCount(x) + x; }

    private static MethodHandle findChain() {
        try {
            MethodHandle h = MethodHandles.lookup().findStatic(InlineScenario.class, "c12",
                MethodType.methodType(int.class, int.class));
            MethodHandle g = MethodHandles.lookup().findStatic(InlineScenario.class, "c20",
                MethodType.methodType(int.class, int.class));
            return MethodHandles.filterReturnValue(h, g);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
