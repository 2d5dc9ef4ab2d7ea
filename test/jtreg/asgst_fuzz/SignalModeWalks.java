/*
 * @test
 * @summary The VM's asynchronous stack walker, called from the signal
 *          handler of each sampled thread with nearby mutations of its
 *          context, and a libFuzzer run over the same walker, find no
 *          crash bucket outside the known list.
 * @requires os.family == "linux"
 * @library lib
 * @run driver/timeout=300 SignalModeWalks
 */
public class SignalModeWalks {
    public static void main(String[] args) throws Exception {
        AsgfCheck.run("signal", "--scenario", "spin,recursion,inline,deopt",
                "--agent", "mode=signal,mutate=near,interval=100us");
    }
}
