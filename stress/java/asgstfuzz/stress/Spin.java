package asgstfuzz.stress;

/**
 * Known busy-loop method for tests that signal a spinning thread and check the top frame.
 * The loop runs inside spinHot until the run stops (it is OSR-compiled within milliseconds),
 * so the top Java frame is spinHot in compiled code almost all the time and does not depend
 * on whether some caller inlined it.
 */
public final class Spin {
    private Spin() {}

    public static long spinHot(Worker w) {
        long x = 0x9E3779B97F4A7C15L ^ w.index;
        long n = 0;
        while (w.running()) {
            for (int i = 0; i < (1 << 20); i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            n++;
            w.add(1);
        }
        return x + n;
    }
}
