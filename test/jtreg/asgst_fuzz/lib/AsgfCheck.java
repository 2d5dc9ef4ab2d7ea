/*
 * The body of every test in this group: runs asgst-fuzz's
 * test/jtreg/asgf-check (a short stress run and a short libFuzzer run
 * against the JDK under test, then crash triage) and fails the test with
 * the titles of the buckets that are not in the known list.
 *
 * Settings come from the environment (jtreg -e:NAME=VALUE):
 *   ASGF_HOME     a built asgst-fuzz checkout (required)
 *   ASGF_SECONDS  length of each run, default 15
 *   ASGF_KNOWN    known-buckets file, default known-buckets.txt next to the tests
 */
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public final class AsgfCheck {
    private AsgfCheck() {}

    public static void run(String name, String... checkArgs) throws Exception {
        String home = System.getenv("ASGF_HOME");
        if (home == null || home.isEmpty()) {
            throw new RuntimeException("ASGF_HOME is not set: run jtreg with -e:ASGF_HOME=/path/to/asgst-fuzz "
                    + "(a checkout where 'make all' has run)");
        }
        File check = new File(home, "test/jtreg/asgf-check");
        if (!check.canExecute()) {
            throw new RuntimeException("ASGF_HOME=" + home + " has no executable test/jtreg/asgf-check");
        }
        String jdk = System.getProperty("test.jdk", System.getProperty("java.home"));
        String known = System.getenv("ASGF_KNOWN");
        if (known == null || known.isEmpty()) {
            known = new File(System.getProperty("test.src", "."), "known-buckets.txt").getPath();
        }
        String seconds = System.getenv("ASGF_SECONDS");
        File out = new File(System.getProperty("user.dir"), "asgf-" + name);

        List<String> cmd = new ArrayList<>(Arrays.asList(check.getPath(), "--java-home", jdk,
                "--out", out.getPath(), "--known", known,
                "--seconds", seconds == null || seconds.isEmpty() ? "15" : seconds));
        cmd.addAll(Arrays.asList(checkArgs));
        System.out.println("AsgfCheck: " + String.join(" ", cmd));

        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> findings = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                System.out.println(line);
                for (String tag : new String[] {"new bucket: ", "failed: ", "could not run: "}) {
                    int at = line.indexOf("asgf-check: " + tag);
                    if (at >= 0) findings.add(line.substring(at + "asgf-check: ".length()));
                }
            }
        }
        int rc = p.waitFor();
        if (rc == 0) return;
        String what = rc == 1 ? "new crash buckets or a hung/dead VM (known list " + known + ")"
                              : "the check could not run";
        throw new RuntimeException(name + ": " + what + ": " + String.join("; ", findings)
                + " (outputs in " + out + ")");
    }
}
