package asgstfuzz.stress;

import java.util.ArrayList;
import java.util.List;

/** Parsed command line. Parse errors are UsageError so Main can exit 2 with one clear message. */
final class Options {
    static final class UsageError extends Exception {
        private static final long serialVersionUID = 1L;
        UsageError(String message) { super(message); }
    }

    final List<String> scenarios = new ArrayList<>();
    int threads = 2;
    long durationMillis = 10_000;
    long seed;
    boolean seedGiven;
    boolean quiet;
    boolean list;
    boolean help;

    static final String USAGE =
        "usage: Main --scenario NAME[,NAME...] [--threads N] [--duration 10s] [--seed S] [--quiet]\n"
      + "       Main --list\n"
      + "  --threads N      worker threads per scenario (1..1024, default 2)\n"
      + "  --duration D     run time: N, Ns, Nms or Nm (default 10s)\n"
      + "  --seed S         64-bit seed for the workers' random choices (default: time based)\n"
      + "  --quiet          no per-second status lines (the start line, with the seed, stays)\n";

    static Options parse(String[] args) throws UsageError {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = null;
            int eq = a.indexOf('=');
            // Accept both "--opt value" and "--opt=value" so scripts can use either.
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "--list": o.list = true; noValue(a, value); break;
                case "--quiet": o.quiet = true; noValue(a, value); break;
                case "--help": case "-h": o.help = true; break;
                case "--scenario": {
                    String v = value != null ? value : next(args, ++i, a);
                    for (String s : v.split(",", -1)) {
                        String t = s.trim();
                        if (t.isEmpty()) throw new UsageError("empty scenario name in --scenario '" + v + "'");
                        if (o.scenarios.contains(t)) throw new UsageError("scenario '" + t + "' given twice");
                        o.scenarios.add(t);
                    }
                    break;
                }
                case "--threads": {
                    String v = value != null ? value : next(args, ++i, a);
                    o.threads = parseInt(a, v, 1, 1024);
                    break;
                }
                case "--duration": {
                    String v = value != null ? value : next(args, ++i, a);
                    o.durationMillis = parseDuration(a, v);
                    break;
                }
                case "--seed": {
                    String v = value != null ? value : next(args, ++i, a);
                    try {
                        o.seed = Long.decode(v);
                    } catch (NumberFormatException e) {
                        throw new UsageError("malformed value '" + v + "' for --seed (want a 64-bit integer)");
                    }
                    o.seedGiven = true;
                    break;
                }
                default:
                    throw new UsageError("unknown option '" + args[i] + "'");
            }
        }
        if (!o.list && !o.help && o.scenarios.isEmpty()) throw new UsageError("missing --scenario (see --list)");
        return o;
    }

    private static void noValue(String opt, String value) throws UsageError {
        if (value != null) throw new UsageError("option " + opt + " takes no value");
    }

    private static String next(String[] args, int i, String opt) throws UsageError {
        if (i >= args.length) throw new UsageError("missing value for " + opt);
        return args[i];
    }

    private static int parseInt(String opt, String v, int min, int max) throws UsageError {
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min || n > max) {
                throw new UsageError("value '" + v + "' for " + opt + " out of range " + min + ".." + max);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageError("malformed value '" + v + "' for " + opt + " (want an integer)");
        }
    }

    static long parseDuration(String opt, String v) throws UsageError {
        String s = v.trim();
        long unit = 1000;
        String digits = s;
        if (s.endsWith("ms")) { unit = 1; digits = s.substring(0, s.length() - 2); }
        else if (s.endsWith("s")) { unit = 1000; digits = s.substring(0, s.length() - 1); }
        else if (s.endsWith("m")) { unit = 60_000; digits = s.substring(0, s.length() - 1); }
        try {
            long n = Long.parseLong(digits);
            if (n <= 0 || n > Long.MAX_VALUE / unit / 2) {
                throw new UsageError("value '" + v + "' for " + opt + " must be positive");
            }
            return n * unit;
        } catch (NumberFormatException e) {
            throw new UsageError("malformed value '" + v + "' for " + opt + " (want e.g. 10s, 500ms, 2m)");
        }
    }
}
