package asgstfuzz.stress;

import java.util.Arrays;
import java.util.List;

/** The registry; --list prints in this order. */
final class Scenarios {
    private Scenarios() {}

    static List<Scenario> all() {
        return Arrays.asList(
            new RecursionScenario(),
            new DeoptScenario(),
            new InlineScenario(),
            new ExceptionsScenario(),
            new JniScenario(),
            new ClassLoadScenario(),
            new GcScenario(),
            new ThreadsScenario(),
            new BlockingScenario(),
            new VThreadsScenario(),
            new SpinScenario(),
            new ParkScenario(),
            new NanoTimeScenario(),
            new WalkersScenario(),
            new RedefineScenario());
    }

    static Scenario byName(String name) {
        for (Scenario s : all()) if (s.name.equals(name)) return s;
        return null;
    }
}
