package asgstfuzz.stress;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.util.SplittableRandom;

/**
 * Workers run RedefineTarget's recursive hot methods while a helper thread redefines the class
 * every 1-20 ms (java.lang.instrument, which is JVMTI RedefineClasses), each time with another
 * value of one constant. Frames of obsolete methods stay on the workers' stacks, compiled code
 * of the old versions is deoptimized, and the method's Method* and constant pool change under
 * a walker that is reading them.
 */
final class RedefineScenario extends Scenario {
    private static final int MARK = 0x5EED1234;
    private Thread redefiner;
    private volatile long redefinitions;
    private volatile String failure;

    RedefineScenario() {
        super("redefine", "hot recursive methods of a class redefined every 1-20 ms "
            + "(java.lang.instrument; needs -javaagent:build/stress/redefine-agent.jar) "
            + "(one op = one call of RedefineTarget.loop)");
    }

    @Override boolean setUp(Run run) throws Exception {
        Instrumentation inst = InstrumentationHolder.instrumentation;
        if (inst == null)
            throw new Unavailable("redefine: no java.lang.instrument agent: start the VM with "
                + "-javaagent:build/stress/redefine-agent.jar (stress/run adds it)");
        if (!inst.isRedefineClassesSupported())
            throw new Unavailable("redefine: this VM cannot redefine classes");
        byte[] original = classBytes();
        int at = markOffset(original);
        SplittableRandom rnd = new SplittableRandom(Main.mix(run.options.seed, 77, 0));
        redefiner = new Thread(() -> redefineLoop(run, inst, original, at, rnd), "asgst-redefiner");
        redefiner.setDaemon(true);
        redefiner.start();
        run.info("redefine: redefining " + RedefineTarget.class.getName() + " every 1-20 ms");
        return true;
    }

    private static byte[] classBytes() throws IOException {
        try (InputStream in = RedefineTarget.class.getResourceAsStream("RedefineTarget.class")) {
            if (in == null) throw new IOException("RedefineTarget.class not found on the class path");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) > 0; ) out.write(buf, 0, n);
            return out.toByteArray();
        }
    }

    /** Where the CONSTANT_Integer MARK's value starts in the class file. */
    private static int markOffset(byte[] b) throws Unavailable {
        for (int i = 0; i + 4 < b.length; i++)
            if (b[i] == 3 && readInt(b, i + 1) == MARK) return i + 1;
        throw new Unavailable("redefine: the constant 0x5EED1234 is not in RedefineTarget.class");
    }

    private static int readInt(byte[] b, int i) {
        return (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | (b[i + 3] & 0xff);
    }

    private void redefineLoop(Run run, Instrumentation inst, byte[] original, int at, SplittableRandom rnd) {
        try {
            long n = 0;
            while (!run.stopping) {
                byte[] b = original.clone();
                int v = MARK + 1 + (int) (n % 1000);
                b[at] = (byte) (v >>> 24);
                b[at + 1] = (byte) (v >>> 16);
                b[at + 2] = (byte) (v >>> 8);
                b[at + 3] = (byte) v;
                inst.redefineClasses(new ClassDefinition(RedefineTarget.class, b));
                redefinitions = ++n;
                Thread.sleep(1 + rnd.nextInt(20));
            }
        } catch (InterruptedException e) {
            // shutdown
        } catch (Exception e) {
            failure = e.toString();
            run.fail("redefine: redefinition failed", e);
        }
    }

    @Override long step(Worker w) {
        w.consume(RedefineTarget.loop(w.rnd.nextLong(), 8 + w.rnd.nextInt(32)));
        return 1;
    }

    @Override void tearDown(Run run) {
        if (redefiner != null) {
            redefiner.interrupt();
            try {
                redefiner.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        run.info("redefine: redefinitions=" + redefinitions + (failure == null ? "" : " failure=" + failure));
    }
}
