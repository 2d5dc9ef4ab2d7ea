package asgstfuzz.stress;

/** Quiet workers parked in Park.parkHere: a known point that is not running Java. */
final class ParkScenario extends Scenario {
    ParkScenario() {
        super("park", "workers parked in asgstfuzz.stress.Park.parkHere (LockSupport.parkNanos "
            + "loop, wakes every 250 ms; one op = one wake-up)");
    }

    @Override void work(Worker w) {
        Park.parkHere(w);
    }
}
