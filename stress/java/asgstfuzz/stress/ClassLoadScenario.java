package asgstfuzz.stress;

import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntUnaryOperator;

/**
 * Class loading and unloading. A walker that resolves a method of a class being unloaded (or a
 * jmethodID whose class is gone) reads freed metadata; samples must also land in code of
 * classes whose loaders are already unreachable. Every class here is generated at run time.
 */
final class ClassLoadScenario extends Scenario {
    private static final MethodType INT_INT = MethodType.methodType(int.class, int.class);
    private static final AtomicLong SEQ = new AtomicLong();
    private static final Method DEFINE_HIDDEN;
    private static final Object NO_OPTIONS;

    static {
        Method m = null;
        Object none = null;
        try {   // Lookup.defineHiddenClass is JDK 15+; this code must also run on 11.
            Class<?> opt = Class.forName("java.lang.invoke.MethodHandles$Lookup$ClassOption");
            none = Array.newInstance(opt, 0);
            m = MethodHandles.Lookup.class.getMethod("defineHiddenClass", byte[].class, boolean.class,
                none.getClass());
        } catch (ReflectiveOperationException e) {
            m = null;
        }
        DEFINE_HIDDEN = m;
        NO_OPTIONS = none;
    }

    private final LongAdder defined = new LongAdder();
    private final LongAdder hidden = new LongAdder();
    private final LongAdder lambdas = new LongAdder();
    private volatile long lastGc = System.nanoTime();
    private long unloadedAtStart;

    /** Throw-away loader: once dropped, its classes can be unloaded at the next GC. */
    static final class GenLoader extends ClassLoader {
        GenLoader() { super(GenLoader.class.getClassLoader()); }

        Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
    }

    ClassLoadScenario() {
        super("classload", "classes generated at run time, defined in throw-away loaders and "
            + "unloaded; hidden classes (JDK 15+), lambda proxies and method-handle chains");
    }

    @Override boolean setUp(Run run) {
        unloadedAtStart = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        run.info("classload: hidden classes " + (DEFINE_HIDDEN != null ? "available" : "not available (JDK < 15)"));
        return true;
    }

    /**
     * Called from generated code, so frames of doomed classes sit on the stack for a while.
     * Public (and nested, to keep the file count down) because the callers live in other
     * loaders' runtime packages.
     */
    public static final class Callee {
        private Callee() {}

        public static int touch(int x) {
            int h = x;
            for (int i = 0; i < 48; i++) h = h * 31 + i;
            return h;
        }
    }

    @Override long step(Worker w) throws Throwable {
        long seq = SEQ.incrementAndGet();
        int k = w.rnd.nextInt() | 1;
        int c = w.rnd.nextInt();
        GenLoader loader = new GenLoader();
        Class<?> cls = loader.define("asgstfuzz.stress.gen.G" + seq, generate("asgstfuzz/stress/gen/G" + seq, k, c));
        defined.increment();
        IntUnaryOperator op = (IntUnaryOperator) cls.getConstructor().newInstance();
        // Usually too few calls to compile; sometimes enough for C1 or C2, so compiled code of
        // soon-unloaded classes exists too.
        int calls = 1 + w.rnd.nextInt(w.rnd.nextInt(8) == 0 ? 30_000 : 300);
        long acc = 0;
        for (int i = 0; i < calls; i++) acc += op.applyAsInt(i);
        int kind = w.rnd.nextInt(4);
        if (kind == 1) acc += viaHandles(cls, op, w);
        if (kind == 2 && DEFINE_HIDDEN != null) acc += viaHidden(k, c, calls);
        w.consume(acc);
        if (w.index == 0 && System.nanoTime() - lastGc > 1_500_000_000L) {
            // Class unloading needs a GC that unloads; waiting for metaspace pressure alone
            // would take minutes with classes this small.
            System.gc();
            lastGc = System.nanoTime();
        }
        return 1;
    }

    private long viaHandles(Class<?> cls, IntUnaryOperator op, Worker w) throws Throwable {
        // The generated class hands out its own full-privilege Lookup, so lambda proxies and
        // LambdaForms are tied to its throw-away loader and unload with it.
        MethodHandles.Lookup l = (MethodHandles.Lookup) cls.getMethod("lookup").invoke(null);
        MethodHandle twice = l.findStatic(cls, "twice", INT_INT);
        CallSite site = LambdaMetafactory.metafactory(l, "applyAsInt",
            MethodType.methodType(IntUnaryOperator.class), INT_INT, twice, INT_INT);
        IntUnaryOperator lambda = (IntUnaryOperator) site.getTarget().invoke();
        lambdas.increment();
        MethodHandle virt = l.findVirtual(cls, "applyAsInt", INT_INT);
        MethodHandle chain = MethodHandles.filterReturnValue(virt, twice);
        long acc = 0;
        int n = 1 + w.rnd.nextInt(200);
        for (int i = 0; i < n; i++) acc += lambda.applyAsInt(i) + (int) chain.invoke(op, i);
        return acc;
    }

    private long viaHidden(int k, int c, int calls) throws ReflectiveOperationException {
        MethodHandles.Lookup hl = (MethodHandles.Lookup) DEFINE_HIDDEN.invoke(MethodHandles.lookup(),
            generate("asgstfuzz/stress/GenHidden", k, c), true, NO_OPTIONS);
        IntUnaryOperator op = (IntUnaryOperator) hl.lookupClass().getConstructor().newInstance();
        hidden.increment();
        long acc = 0;
        for (int i = 0; i < calls; i++) acc += op.applyAsInt(i);
        return acc;
    }

    /**
     * public final class NAME implements IntUnaryOperator {
     *   public int applyAsInt(int x) { return ClassLoadScenario.Callee.touch(x * k) ^ c; }
     *   public static int twice(int x) { return x * 2 + c; }
     *   public static MethodHandles.Lookup lookup() { return MethodHandles.lookup(); }
     * }
     */
    static byte[] generate(String internalName, int k, int c) {
        ClassBytes cb = new ClassBytes(internalName, "java/lang/Object", "java/util/function/IntUnaryOperator");
        cb.defaultConstructor("java/lang/Object");
        int touch = cb.methodRef("asgstfuzz/stress/ClassLoadScenario$Callee", "touch", "(I)I");
        int kc = cb.integer(k);
        int cc = cb.integer(c);
        cb.method(ClassBytes.ACC_PUBLIC, "applyAsInt", "(I)I", 2, 2, new ClassBytes.Code()
            .op(ClassBytes.ILOAD_1).op16(ClassBytes.LDC_W, kc).op(ClassBytes.IMUL)
            .op16(ClassBytes.INVOKESTATIC, touch).op16(ClassBytes.LDC_W, cc).op(ClassBytes.IXOR)
            .op(ClassBytes.IRETURN));
        cb.method(ClassBytes.ACC_PUBLIC | ClassBytes.ACC_STATIC, "twice", "(I)I", 2, 1, new ClassBytes.Code()
            .op(ClassBytes.ILOAD_0).op(ClassBytes.ICONST_2).op(ClassBytes.IMUL)
            .op16(ClassBytes.LDC_W, cc).op(ClassBytes.IADD).op(ClassBytes.IRETURN));
        int lookup = cb.methodRef("java/lang/invoke/MethodHandles", "lookup",
            "()Ljava/lang/invoke/MethodHandles$Lookup;");
        cb.method(ClassBytes.ACC_PUBLIC | ClassBytes.ACC_STATIC, "lookup",
            "()Ljava/lang/invoke/MethodHandles$Lookup;", 1, 0, new ClassBytes.Code()
            .op16(ClassBytes.INVOKESTATIC, lookup).op(ClassBytes.ARETURN));
        return cb.toByteArray();
    }

    @Override void tearDown(Run run) {
        long unloaded = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount() - unloadedAtStart;
        run.info("classload: defined=" + defined.sum() + " hidden=" + hidden.sum() + " lambdas="
            + lambdas.sum() + " unloaded_by_vm=" + unloaded);
    }
}
