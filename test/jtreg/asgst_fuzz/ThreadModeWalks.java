/*
 * @test
 * @summary Walks of other threads (the sampler walks a context the sampled
 *          thread published from its handler, plus JVMTI suspend walks)
 *          over exceptions, JNI transitions and blocked threads, and a
 *          libFuzzer run on recursive workers, find no crash bucket outside
 *          the known list.
 * @requires os.family == "linux"
 * @library lib
 * @run driver/timeout=300 ThreadModeWalks
 */
public class ThreadModeWalks {
    public static void main(String[] args) throws Exception {
        AsgfCheck.run("thread", "--scenario", "exceptions,jni,blocking",
                "--agent", "mode=thread,mutate=none,interval=100us", "--fuzz-scenario", "recursion");
    }
}
