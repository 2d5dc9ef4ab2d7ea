/*
 * AFL++ entry point (build/fuzz/asgf-afl). Run it through fuzz/run-afl.
 *
 * A running JVM cannot be forked (its threads do not survive fork), so
 * the fork server is deferred: __AFL_INIT() comes before the JVM exists,
 * each forked child creates its own JVM once, then runs up to ASGF_AFL_LOOP
 * inputs in a persistent __AFL_LOOP, reading them from shared memory.
 *
 * Feedback: afl-clang-fast instruments this file only (harness and core
 * are plain objects). Each outcome feature calls one of FEEDBACK_SLOTS
 * distinct noinline functions through a table, so it shows up in the
 * coverage map as an edge of its own, whatever AFL++'s instrumentation
 * mode; no assumption about __afl_area_ptr's size is needed.
 *
 * Outside afl-fuzz it reads one input from stdin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "feedback.h"
#include "harness.h"

#ifndef __AFL_FUZZ_TESTCASE_LEN
#error "compile with afl-clang-fast (AFL++ shared-memory persistent mode)"
#endif

__AFL_FUZZ_INIT();

/* One function per feature slot, named fb_0000 .. fb_1999. */
#define FB_FN(name) \
    static __attribute__((noinline)) void name(void) { __asm__ volatile("" ::: "memory"); }
#define FB_D0(p) FB_FN(p##0) FB_FN(p##1) FB_FN(p##2) FB_FN(p##3) FB_FN(p##4) \
                 FB_FN(p##5) FB_FN(p##6) FB_FN(p##7) FB_FN(p##8) FB_FN(p##9)
#define FB_D1(p) FB_D0(p##0) FB_D0(p##1) FB_D0(p##2) FB_D0(p##3) FB_D0(p##4) \
                 FB_D0(p##5) FB_D0(p##6) FB_D0(p##7) FB_D0(p##8) FB_D0(p##9)
#define FB_D2(p) FB_D1(p##0) FB_D1(p##1) FB_D1(p##2) FB_D1(p##3) FB_D1(p##4) \
                 FB_D1(p##5) FB_D1(p##6) FB_D1(p##7) FB_D1(p##8) FB_D1(p##9)
FB_D2(fb_0)
FB_D2(fb_1)

#define FB_T0(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9,
#define FB_T1(p) FB_T0(p##0) FB_T0(p##1) FB_T0(p##2) FB_T0(p##3) FB_T0(p##4) \
                 FB_T0(p##5) FB_T0(p##6) FB_T0(p##7) FB_T0(p##8) FB_T0(p##9)
#define FB_T2(p) FB_T1(p##0) FB_T1(p##1) FB_T1(p##2) FB_T1(p##3) FB_T1(p##4) \
                 FB_T1(p##5) FB_T1(p##6) FB_T1(p##7) FB_T1(p##8) FB_T1(p##9)
static void (*const feature_fn[])(void) = {FB_T2(fb_0) FB_T2(fb_1)};
_Static_assert(sizeof feature_fn / sizeof feature_fn[0] == FEEDBACK_SLOTS, "one function per feature slot");

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: asgf-afl < CASE (normally run by afl-fuzz: see fuzz/run-afl)\n");
        return 2;
    }
    __AFL_INIT();
    struct harness_config c;
    char err[1024];
    if (harness_config_from_env(&c, err, sizeof err) || harness_start(&c, err, sizeof err)) {
        fprintf(stderr, "asgf: %s\n", err);
        return 3;
    }
    static struct harness_result r;
    const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP((unsigned)c.afl_loop)) {
        size_t len = __AFL_FUZZ_TESTCASE_LEN;
        enum harness_rc rc = harness_run(buf, len, &r);
        if (rc == HARNESS_REJECT) continue;
        if (c.feedback) {
            uint16_t idx[FEEDBACK_MAX_FEATURES];
            int n = feedback_features(&r, idx);
            for (int i = 0; i < n; i++) feature_fn[idx[i]]();
        }
        if (rc == HARNESS_FAULT) harness_fault(&r);
    }
    if (!c.quiet) harness_stats(2);
    return 0;
}
