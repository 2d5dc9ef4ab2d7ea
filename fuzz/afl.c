/*
 * AFL++ entry point (build/fuzz/asgf-afl). Run it through fuzz/run-afl.
 *
 * A running JVM cannot be forked (its threads do not survive fork), and
 * AFL++'s persistent loop stops the whole process with SIGSTOP after every
 * input. So the process afl-fuzz starts is our own fork server
 * (afl_forkserver.c): it forks a child before any JVM exists; the child
 * creates its JVM once and runs up to ASGF_AFL_LOOP inputs, each read from
 * AFL++'s shared memory.
 *
 * Feedback: afl-clang-fast instruments this file only (harness and core
 * are plain objects). Each outcome feature calls one of FEEDBACK_SLOTS
 * distinct noinline functions through a table, so it shows up in the
 * coverage map as an edge of its own, whatever AFL++'s instrumentation
 * mode; no assumption about __afl_area_ptr's size is needed.
 *
 * Outside afl-fuzz it reads one input from stdin.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "afl_forkserver.h"
#include "feedback.h"
#include "harness.h"
#include "walker_cov.h"

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

/* Walker blocks first reached while the input ran (src/walker_cov.h), as
 * entries of AFL++'s coverage map of their own, spread by a multiplicative
 * hash. The map is the runtime's: found by name, as the instrumentation
 * owns the declaration. */
static void walker_edges(void)
{
    static uint8_t **area;
    static uint32_t *size_p;
    if (!area) {
        area = dlsym(RTLD_DEFAULT, "__afl_area_ptr");
        size_p = dlsym(RTLD_DEFAULT, "__afl_map_size");
    }
    if (!area || !*area) return;
    uint32_t size = size_p && *size_p ? *size_p : 65536, blocks[256];
    int n;
    while ((n = wcov_take_new(blocks, 256)) > 0)
        for (int i = 0; i < n; i++) (*area)[(uint32_t)(blocks[i] * 2654435761u) % size]++;
}

/* One input through the harness, its outcome as edges. */
static void run_one(const uint8_t *buf, size_t len, void *arg)
{
    const struct harness_config *c = arg;
    static struct harness_result r;
    enum harness_rc rc = harness_run(buf, len, &r);
    if (rc == HARNESS_REJECT) return;
    if (c->feedback) {
        uint16_t idx[FEEDBACK_MAX_FEATURES];
        int n = feedback_features(&r.prog, &r.out, r.target_rc, idx);
        for (int i = 0; i < n; i++) feature_fn[idx[i]]();
    }
    if (c->walker_feedback) walker_edges();
    if (rc == HARNESS_FAULT) harness_fault(&r);
}

static int start(struct harness_config *c)
{
    char err[1024];
    if (harness_start(c, err, sizeof err)) {
        fprintf(stderr, "asgf: %s\n", err);
        return -1;
    }
    return 0;
}

/* A JDK that ci/install-jdk put in a root of a newer Debian runs only in
 * that root, entered through its handle's runner (asgf-root-run). afl-fuzz
 * must start this binary, not the runner: it reads the persistent and
 * deferred markers below from the file it starts. So the binary enters the
 * root itself, before the fork-server hello: the runner and the execs keep
 * the pid and descriptors 198/199. Returns only when there is no root to
 * enter (ASGF_IN_JDK_ROOT unset, as it is once inside). */
static void enter_jdk_root(void)
{
    const char *handle = getenv("ASGF_IN_JDK_ROOT");
    if (!handle || !*handle) return;
    char path[4096], root[4096], self[4096], runner[4096], h[4096];
    snprintf(h, sizeof h, "%s", handle);
    handle = h;
    unsetenv("ASGF_IN_JDK_ROOT"); /* the start inside the root goes on */
    ssize_t n;
    snprintf(path, sizeof path, "%s/asgf-root", handle);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(root, sizeof root, f)) {
        fprintf(stderr, "asgf: ASGF_IN_JDK_ROOT: cannot read %s (a handle of ci/install-jdk?)\n", path);
        exit(3);
    }
    fclose(f);
    root[strcspn(root, "\n")] = 0;
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
        perror("asgf: ASGF_IN_JDK_ROOT: /proc/self/exe");
        exit(3);
    }
    self[n] = 0;
    snprintf(runner, sizeof runner, "%s/asgf-root-run", handle);
    execv(runner, (char *[]){runner, root, self, NULL});
    fprintf(stderr, "asgf: ASGF_IN_JDK_ROOT: cannot run %s: %s\n", runner, strerror(errno));
    exit(3);
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: asgf-afl < CASE (normally run by afl-fuzz: see fuzz/run-afl)\n");
        return 2;
    }
    enter_jdk_root();
    /* afl-fuzz reads these markers from the binary: persistent (one child
     * runs many inputs) and deferred (AFL++'s runtime must not start its
     * own fork server; aflfs_serve is ours). */
    static volatile const char markers[] = "##SIG_AFL_PERSISTENT##\0##SIG_AFL_DEFER_FORKSRV##";
    (void)markers[0];
    struct harness_config c;
    char err[1024];
    if (harness_config_from_env(&c, err, sizeof err)) { /* before any child: fail once, clearly */
        fprintf(stderr, "asgf: %s\n", err);
        return 2;
    }
    if (!aflfs_serve()) { /* not under afl-fuzz: one case from stdin */
        static uint8_t buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, stdin);
        if (start(&c)) return 3;
        run_one(buf, len, &c);
        if (!c.quiet) harness_stats(2);
        return 0;
    }
    /* A child ends by _exit (no atexit), so its in-flight files go here;
     * one that crashes or that afl-fuzz kills for a hang keeps them. */
    if (start(&c)) {
        harness_remove_inflight();
        _exit(3);
    }
    aflfs_child_loop(c.afl_loop, run_one, &c);
    if (!c.quiet) harness_stats(2);
    harness_remove_inflight();
    _exit(0);
}
