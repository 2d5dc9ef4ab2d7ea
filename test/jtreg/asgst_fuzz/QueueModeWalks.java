/*
 * @test
 * @summary Queued walks (the handler enqueues, the walk runs at the
 *          thread's next safepoint) while classes load and unload, the GC
 *          runs and threads start and exit, and a libFuzzer run on inlined
 *          and deoptimized frames, find no crash bucket outside the known
 *          list.
 * @requires os.family == "linux"
 * @library lib
 * @run driver/timeout=300 QueueModeWalks
 */
public class QueueModeWalks {
    public static void main(String[] args) throws Exception {
        AsgfCheck.run("queue", "--scenario", "classload,gc,threads",
                "--agent", "mode=queue,mutate=none,interval=100us", "--fuzz-scenario", "inline,deopt");
    }
}
