package asgstfuzz.stress;

/**
 * JNI transitions in both directions. Walkers must cross native-method wrapper frames, entry
 * frames of up-calls (JavaCalls), threads in native state whose last Java frame is only known
 * from the frame anchor, and exceptions unwinding through native frames.
 */
final class JniScenario extends Scenario {
    JniScenario() {
        super("jni", "JNI down-calls, Java->native->Java->... up-call chains (some throwing), "
            + "critical arrays and native busy loops via libstressnative.so");
    }

    /** Each Java->native->Java round trip costs a few hundred bytes of C and VM frames. */
    @Override long stackSize() { return 8L << 20; }

    @Override boolean setUp(Run run) throws Unavailable {
        String err = NativeLib.load();
        if (err != null) throw new Unavailable(err);
        return true;
    }

    @Override long step(Worker w) {
        int kind = w.rnd.nextInt(10);
        if (kind < 3) {
            long x = w.rnd.nextLong();
            for (int i = 0; i < 500; i++) x = NativeLib.down(x + i);
            w.consume(x);
            return 500;
        }
        if (kind < 7) {
            int depth = 1 + w.rnd.nextInt(w.rnd.nextInt(10) == 0 ? 400 : 40);
            int throwAt = w.rnd.nextInt(4) == 0 ? w.rnd.nextInt(depth) + 1 : -1;
            try {
                w.consume(NativeLib.pingPong(depth, throwAt));
            } catch (NativeLib.UpcallException e) {
                w.consume(e.getStackTrace().length);
            }
            return depth;
        }
        if (kind < 9) {
            int[] data = new int[1 + w.rnd.nextInt(1 << 16)];
            data[data.length - 1] = w.rnd.nextInt();
            w.consume(NativeLib.sumCritical(data));
            return 1;
        }
        w.consume(NativeLib.spinNative(100_000 + w.rnd.nextInt(400_000)));
        return 1;
    }
}
