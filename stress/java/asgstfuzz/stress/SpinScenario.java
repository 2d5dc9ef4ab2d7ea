package asgstfuzz.stress;

/** Workers busy in Spin.spinHot: a compiled loop at a known place. */
final class SpinScenario extends Scenario {
    SpinScenario() {
        super("spin", "workers spin in the JIT-compiled loop asgstfuzz.stress.Spin.spinHot "
            + "(one op = 2^20 iterations)");
    }

    @Override void work(Worker w) {
        w.consume(Spin.spinHot(w));
    }
}
