package asgstfuzz.stress;

import java.lang.instrument.Instrumentation;

/**
 * The java.lang.instrument agent of the redefine scenario (stress/run adds
 * -javaagent:build/stress/redefine-agent.jar, whose manifest names this class and allows
 * redefinition). It only keeps the Instrumentation for the scenario.
 */
public final class InstrumentationHolder {
    static volatile Instrumentation instrumentation;

    private InstrumentationHolder() {}

    public static void premain(String args, Instrumentation inst) { instrumentation = inst; }
}
