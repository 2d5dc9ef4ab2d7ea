/*
 * Byte globs (src/glob.h): hand-picked cases, then agreement with
 * fnmatch(3) in the C locale on every walker pattern (the one place they
 * replaced it) and on random patterns over a small alphabet, where the two
 * must agree as glob.h says.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "glob.h"
#include "tap.h"

static const char *walker_patterns[] = {
#define WALKER_FN(p, w) p,
#include "walker_functions.def"
#undef WALKER_FN
};

static void expect(const char *pat, const char *s, int want)
{
    CHECK(glob_match(pat, s) == want, "\"%s\" %s \"%s\"", pat, want ? "matches" : "does not match", s);
}

static void random_string(char *out, int max, const char *alphabet, unsigned *seed)
{
    int n = (int)(rand_r(seed) % (unsigned)(max + 1)), k = (int)strlen(alphabet);
    for (int i = 0; i < n; i++) out[i] = alphabet[rand_r(seed) % (unsigned)k];
    out[n] = 0;
}

int main(void)
{
    expect("", "", 1);
    expect("", "a", 0);
    expect("*", "", 1);
    expect("**", "anything", 1);
    expect("?", "", 0);
    expect("a?c", "abc", 1);
    expect("frame::*", "frame::sender", 1);
    expect("frame::*", "vframe::sender", 0);
    expect("vframe*::*", "vframeStreamForte::forte_next", 1);
    expect("JavaThread::*last_*frame*", "JavaThread::pd_get_top_frame", 0);
    expect("JavaThread::*last_*frame*", "JavaThread::last_java_frame", 1);
    expect("*ab*ab*", "xabyaab", 1); /* the second '*' must let go of what it took */
    expect("*ab*ab", "ababa", 0);
    expect("a*", "b", 0);

    /* Every walker pattern is a plain byte glob, so glob.h and fnmatch agree on it. */
    int plain = 1;
    for (size_t i = 0; i < sizeof walker_patterns / sizeof *walker_patterns; i++)
        if (strpbrk(walker_patterns[i], "[\\")) plain = 0;
    CHECK(plain, "no walker pattern uses '[' or '\\' (fnmatch features glob.h lacks)");

    static const char *names[] = {"AsyncGetCallTrace", "forte_fill_call_trace_given_top", "frame::sender",
                                  "frame", "vframeStreamForte::forte_next", "JavaThread::last_frame",
                                  "JavaThread::pd_get_top_frame_for_signal_handler", "os::fetch_frame_from_context",
                                  "CodeCache::find_blob", "Continuation::is_return_barrier_entry",
                                  "StackWatermarkSet::on_iteration", "SafepointSynchronize::begin", "main", ""};
    int disagree = 0;
    for (size_t i = 0; i < sizeof walker_patterns / sizeof *walker_patterns; i++)
        for (size_t j = 0; j < sizeof names / sizeof *names; j++)
            disagree += glob_match(walker_patterns[i], names[j]) != !fnmatch(walker_patterns[i], names[j], 0);
    CHECK(disagree == 0, "walker patterns x %zu names: glob_match agrees with fnmatch (%d disagree)",
          sizeof names / sizeof *names, disagree);

    unsigned seed = 20261129;
    char pat[16], s[16], first[64] = "";
    int tries = 200000, bad = 0;
    for (int t = 0; t < tries; t++) {
        random_string(pat, 8, "ab*?", &seed);
        random_string(s, 10, "ab", &seed);
        if (glob_match(pat, s) != !fnmatch(pat, s, 0) && !bad++) snprintf(first, sizeof first, "\"%s\" on \"%s\"", pat, s);
    }
    CHECK(bad == 0, "%d random patterns over {a, b, *, ?}: glob_match agrees with fnmatch (%d disagree%s%s)", tries,
          bad, bad ? ", first " : "", first);
    return TAP_DONE();
}
