import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Live-JVM checks of the core, run under tests/jvm/probe_agent.c. Prints TAP
 * lines; the subtest is the first argument.
 */
public class Probe {
    static native int registerThread(String name);
    static native String apiName();
    static native String[][] walkBoth();
    static native long[] sample(int tid, int mode, int strategy, String caseText, int count, long seed, String want);
    static native String plantedFault(long badPointer);
    static native void faultInHandler(int tid);
    static native long fakeCalls();
    static native int[] endOnFirstAnswers();
    static native long[] benchWalks(int tid, int millis, boolean protect);

    static int n;
    static int failed;

    static void check(boolean ok, String what) {
        n++;
        System.out.println((ok ? "ok " : "not ok ") + n + " - " + what);
        if (!ok) failed++;
    }

    static volatile boolean stop;
    static volatile long sink;

    /** The spinner's own frames: which one is on top depends on the JIT
     *  (JDK 17 OSR-compiles spinHot's loop; JDK 25's C2 inlines spinHot into
     *  the lambda's loop and reports the lambda). */
    static final String SPINNER = "spinHot|lambda$startSpinner$0";

    static long spinHot(long x) {
        for (int i = 0; i < 1000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    /** Starts a worker spinning in compiled code; returns its kernel tid. */
    static int startSpinner() throws InterruptedException {
        int[] tid = {0};
        Thread t = new Thread(() -> {
            tid[0] = registerThread("spinner");
            long x = 1;
            while (!stop) x = spinHot(x);
            sink = x;
        }, "spinner");
        t.setDaemon(true);
        t.start();
        while (tid[0] == 0) Thread.sleep(1);
        Thread.sleep(300); // let spinHot get JIT-compiled
        return tid[0];
    }

    static String[][] level2() { return walkBoth(); }
    static String[][] level1() { return level2(); }

    static void walk() {
        registerThread("main");
        String[][] both = level1();
        String[] ours = both[0], jvmti = both[1];
        System.out.println("# backend: " + String.join(" < ", ours));
        System.out.println("# jvmti:   " + String.join(" < ", jvmti));
        check(ours.length >= 4, "backend walk of the current thread has frames (" + ours.length + ")");
        check(Arrays.equals(ours, jvmti), "backend frames equal JVMTI GetStackTrace frames, names and order");
        check(ours.length >= 3 && ours[0].endsWith(".walkBoth") && ours[1].endsWith(".level2")
                && ours[2].endsWith(".level1"), "top frames are walkBoth < level2 < level1");
    }

    static void spin() throws Exception {
        int tid = startSpinner();
        long[] c = sample(tid, 0, 0, null, 3000, 1, SPINNER);
        System.out.println("# ran " + c[0] + ", traces " + c[1] + ", faults " + c[2] + ", max depth " + c[3]
                + ", spinner code on top " + c[4]);
        check(c[0] == 3000, "every signal reached the spinning thread's handler");
        check(c[1] > 0, "unmutated walks of a thread running Java code return traces");
        check(c[4] > 0, "the spinner's own code (" + SPINNER + ") is among the top frames of walks");
        check(c[2] == 0, "no fault on unmutated contexts");
        // End on the first Java frame: one frame (handed over with the end), never more.
        long[] e = sample(tid, 0, 0, "asgf-case 1\nentry run_with_iterator\nmode signal\noptions end_on_first_java_frame\n",
                500, 1, null);
        System.out.println("# end_on_first_java_frame: ran " + e[0] + ", traces " + e[1] + ", max depth " + e[3]);
        check(e[0] == 500 && e[1] > 0 && e[3] == 1, "end_on_first_java_frame walks give exactly one frame");
        int[] a = endOnFirstAnswers();
        if (a != null) {
            System.out.println("# agct NextFrame with end_on_first_java_frame: " + a[0] + ", then " + a[1] + ", type " + a[2]);
            check(a[0] == 0 && a[1] == 0 && a[2] == 1,
                  "agct's NextFrame hands the first Java frame over with the end (0, frame filled), as the prototype");
        }
        stop = true;
    }

    /** Separate-thread mode: the target is held in its handler while this
     *  thread walks its context. Stock AGCT walks the calling thread, so the
     *  target's frames are not expected; the answers are reported as they are. */
    static void thread() throws Exception {
        registerThread("sampler");
        int tid = startSpinner();
        long[] c = sample(tid, 1, 0, null, 2000, 1, SPINNER);
        long[] m = sample(tid, 1, 2, null, 2000, 5, null);
        System.out.println("# thread mode, unmutated: ran " + c[0] + ", traces " + c[1] + ", spinner code on top " + c[4]
                + "; mutated: ran " + m[0] + ", faults " + m[2]);
        check(c[0] == 2000 && m[0] == 2000, "every hold-and-walk request completed, none timed out");
        long[] after = sample(tid, 0, 0, null, 200, 1, SPINNER);
        check(after[4] > 0, "the held thread runs on afterwards (signal-mode walks see its code again)");
        stop = true;
    }

    static void mutate(String out) throws Exception {
        int tid = startSpinner();
        long[] rnd = sample(tid, 0, 1, null, 20000, 42, null);
        long[] near = sample(tid, 0, 2, null, 20000, 43, null);
        System.out.println("# random: ran " + rnd[0] + ", traces " + rnd[1] + ", faults caught " + rnd[2]);
        System.out.println("# near:   ran " + near[0] + ", traces " + near[1] + ", faults caught " + near[2]);
        check(rnd[0] > 19000 && near[0] > 19000, "40000 mutated walks ran and the JVM is alive");
        registerThread("main");
        String fault = plantedFault(0x10);
        System.out.println("# planted: " + fault);
        String[] f = fault.split(" ");
        check(f.length == 3 && f[0].equals("11"), "planted bad frames pointer: SIGSEGV caught inside the walk");
        long addr = f.length == 3 ? Long.decode(f[1]) : -1;
        check(addr >= 0x10 && addr < 0x20, "fault address is at the planted pointer (" + f[1] + ")");
        String rec = f.length == 3 ? new String(Files.readAllBytes(Path.of(f[2]))) : "";
        check(rec.contains("\ncase: 4153474602") && rec.contains("\nentry: run_with_iterator\n"),
                "crash record carries the entry point and the case bytes");
        check(rec.matches("(?s).*\npc: 0x[0-9a-f]+ \\S*libjvm\\.so\\+0x[0-9a-f]+\n.*"),
                "crash record places the faulting pc in libjvm.so");
        check(sample(tid, 0, 0, null, 100, 1, null)[1] > 0, "walks still work after the caught faults");
        stop = true;
    }

    static void plantUnprotected() {
        registerThread("main");
        System.out.println("# planting with protection off; the JVM should die now");
        System.out.flush();
        String r = plantedFault(0x10);
        check(false, "JVM survived an unprotected planted fault: " + r);
    }

    static void plantInHandler() throws InterruptedException {
        registerThread("main");
        int tid = startSpinner();
        System.out.println("# a fault inside the guard's handler, from a signal handler on a thread in Java code;"
                + " the JVM should die now");
        System.out.flush();
        faultInHandler(tid);
        Thread.sleep(100000); // the JVM's report may take a while on a busy machine
        check(false, "JVM survived a fault inside the guard's handler");
    }

    static void fake() {
        registerThread("main");
        check(apiName().equals("asgst"), "api=auto picked asgst (" + apiName() + ")");
        long before = fakeCalls();
        String[][] both = walkBoth();
        long after = fakeCalls();
        System.out.println("# fake provider calls " + before + " -> " + after + ", frames " + both[0].length);
        check(after > before, "calls reached the provider's RunWithIterator");
        check(both[0].length == 1, "the provider's iterator was walked through NextFrame");
    }

    /** make bench: round trips of signal + unmutated walk in the handler. */
    static void bench() throws Exception {
        registerThread("bench");
        int tid = startSpinner();
        benchWalks(tid, 500, true); // warm-up
        for (boolean protect : new boolean[] {true, false, true, false}) {
            long[] r = benchWalks(tid, 2000, protect);
            System.out.printf("bench: walks in a signal handler (protect=%d): %.0f walks/s, %.1f us per round trip, "
                    + "%d%% traces%n", protect ? 1 : 0, r[0] * 1e9 / r[2], r[2] / 1e3 / r[0], 100 * r[1] / r[0]);
        }
        stop = true;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "walk": walk(); break;
            case "spin": spin(); break;
            case "thread": thread(); break;
            case "mutate": mutate(args.length > 1 ? args[1] : "."); break;
            case "plant-unprotected": plantUnprotected(); break;
            case "fault-in-handler": plantInHandler(); break;
            case "fake": fake(); break;
            case "bench": bench(); System.exit(0); break;
            default: throw new IllegalArgumentException("unknown subtest " + args[0]);
        }
        System.out.println("1.." + n);
        System.exit(failed == 0 ? 0 : 1);
    }
}
