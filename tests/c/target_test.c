/* The hand-off to a target thread (src/target.c) without a JVM: a plain
 * thread spins, counting, and a stand-in walker notes on which thread it
 * ran and what the counter read. A target held in its handler does not
 * count, so one batch sees one value; cases of a batch all run, faults
 * included, each exactly once; thread-mode cases run on the caller, also
 * mixed with signal-mode ones in one batch; an idle target leaves by itself
 * in either mode; batch 1 is a signal per case; a case the handler took
 * runs to its end however long the caller's time-out, and one past the hang
 * bound stops the process; with caller and target on one CPU, the signal
 * that starts a batch lands after the target has run its own code again,
 * the two sides yield the CPU to each other, and stop for a while when a
 * yield comes back late because another busy thread ran;
 * with two targets in turn, a signal that lands late on one never runs the
 * other's case. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "guard.h"
#include "regions.h"
#include "target.h"
#include "tap.h"

#define FAULT_OPTION 1 /* a case with this option bit makes the stand-in walker fault */
#define SLOW_OPTION 2  /* ... or take slow_ms */
#define MAX_CASES 256

static char dir[] = "/tmp/asgf-target-XXXXXX";
static _Atomic unsigned long progress; /* the target's counter */
static _Atomic int target_tid, stop;
static int n_seen;
static long slow_ms = 50;
static struct { int tid; unsigned long progress; } seen[MAX_CASES];

static _Atomic int second_tid, second_stop;
static _Atomic unsigned long second_progress;
static _Atomic long runs_on_first, runs_on_second, runs_elsewhere; /* every walk, by the thread it ran on */

static int fake_run(void *uc, int32_t options, ASGST_IteratorHandler fun, void *arg, int *raw)
{
    (void)uc, (void)fun, (void)arg;
    int on = threads_gettid();
    atomic_fetch_add(on == atomic_load(&target_tid) ? &runs_on_first : on == atomic_load(&second_tid) ? &runs_on_second
                                                                                                         : &runs_elsewhere,
                     1);
    if (n_seen < MAX_CASES) seen[n_seen].tid = threads_gettid(), seen[n_seen++].progress = atomic_load(&progress);
    if (options & SLOW_OPTION) {
        struct timespec until, now;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += slow_ms / 1000, until.tv_nsec += slow_ms % 1000 * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        do clock_gettime(CLOCK_MONOTONIC, &now);
        while (now.tv_sec < until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec));
    }
    if (options & FAULT_OPTION) {
        volatile uintptr_t bad = 0x18;
        *(volatile int *)bad = 1;
    }
    *raw = 1;
    return 1;
}

static const struct api fake = {.name = "stand-in", .kind = API_ASGST, .run_with_iterator = fake_run};
static const uint8_t bytes[16] = "ASGF\2";

/* A target thread: counts while it runs its own code, until told to stop. */
struct spinner {
    const char *name;
    _Atomic int *tid, *stop;
    _Atomic unsigned long *progress;
};
static _Atomic int hog_tid, hog_stop; /* a busy thread that is no target */
static _Atomic unsigned long hog_progress;
static struct spinner first = {"target", &target_tid, &stop, &progress},
                      second = {"target-2", &second_tid, &second_stop, &second_progress},
                      hog = {"hog", &hog_tid, &hog_stop, &hog_progress};

static void *target_main(void *arg)
{
    const struct spinner *me = arg;
    threads_register_self(me->name, NULL);
    atomic_store(me->tid, threads_gettid());
    while (!atomic_load(me->stop)) atomic_fetch_add(me->progress, 1);
    return NULL;
}

/* This process has no JVM and so no code cache: for the batch rule
 * (src/target.h) the target's own code is taken for Java code, except
 * where a check says otherwise. */
static int anywhere(uintptr_t pc) { return (void)pc, 1; }
static int nowhere(uintptr_t pc) { return (void)pc, 0; }

static unsigned long long signals(void)
{
    struct target_counters c;
    target_counters(&c);
    return c.signals;
}

#define MIXED (-1) /* run(): signal and thread mode by turns */

static void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Runs n cases in mode; returns how many ran (TARGET_RAN) and how many
 * faulted. The stand-in walker counts what really ran in n_seen. With
 * pace_every, the caller ends the batch and pauses 1 ms after every
 * pace_every cases. */
static long long timeout_ns = 2000000000LL;
static int pace_every;
static int run(int n, int mode, int options, int *faults)
{
    struct case_prog p;
    memset(&p, 0, sizeof p);
    p.entry = ENTRY_RUN_WITH_ITERATOR, p.options = (uint8_t)options;
    int ran = 0;
    *faults = 0;
    n_seen = 0;
    for (int i = 0; i < n; i++) {
        int m = mode == MIXED ? (i % 2 ? MODE_THREAD : MODE_SIGNAL) : mode;
        p.mode = (uint8_t)m;
        if (pace_every && i && i % pace_every == 0) target_release(), sleep_ms(1);
        struct exec_ctx cx = {&fake, case_mode_name(m), bytes, sizeof bytes, NULL, NULL, 0};
        struct exec_outcome out;
        if (target_run(atomic_load(&target_tid), m, &cx, &p, &out, timeout_ns) != TARGET_RAN) continue;
        ran++;
        *faults += out.guard_rc > 0;
    }
    return ran;
}

/* Cases of one batch see one counter value; checks batches of `size`. */
static int held_per_batch(int size, int *moved)
{
    int same = 1;
    *moved = 0;
    for (int i = 0; i < n_seen; i++) {
        if (i % size) same &= seen[i].progress == seen[i - 1].progress;
        else if (i) *moved += seen[i].progress != seen[i - 1].progress;
    }
    return same;
}

/* Whether the target's counter moves within ms: it is out of its handler.
 * Polled, so a loaded machine that gives it no core for a while does not
 * fail the check; ms stays below the 2 s hard limit of every hold here. */
static int moves_within(long ms)
{
    unsigned long before = atomic_load(&progress);
    for (long waited = 0; waited < ms; waited++) {
        if (atomic_load(&progress) != before) return 1;
        sleep_ms(1);
    }
    return 0;
}

/* Runs this test's --hang mode in a child, stderr to log; its status. */
static int hang_child(const char *self, const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) dup2(fd, 2);
        execl(self, self, "--hang", dir, (char *)NULL); /* records into our directory, removed at the end */
        _exit(127);
    }
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    return status;
}

static const char *self_path;

/* Two targets share the request word and the targets' futex: one leaving
 * its handler while the caller hands over to the other, and a hold that
 * runs out as the next case is posted. The caller switches targets every
 * few cases, modes mixed at random, with short holds, at spin bounds from
 * none (every wait sleeps on the futex) to 50 us. Every case must run once,
 * on the thread its mode says, none time out, and both targets end up back
 * in their own code. */
static void two_targets(void)
{
    pthread_t t2;
    pthread_create(&t2, NULL, target_main, &second);
    while (!atomic_load(&second_tid)) sleep_ms(1);
    int tids[2] = {atomic_load(&target_tid), atomic_load(&second_tid)};
    struct case_prog p;
    memset(&p, 0, sizeof p);
    p.entry = ENTRY_RUN_WITH_ITERATOR;
    /* The last round's 20 us time-out takes many requests back before their
     * signal lands: those land late, on one target while the word holds a
     * request for the other, which must leave it alone. */
    static const long long spins[] = {0, 2000, 50000, 0}, timeouts_ns[] = {2000000000LL, 2000000000LL, 2000000000LL,
                                                                             20000LL};
    unsigned seed = 12345;
    for (int k = 0; k < 4; k++) {
        target_release();
        target_set_spin(spins[k]);
        target_set_batch(8, 200000LL); /* 200 us: holds often run out mid-sequence */
        struct target_counters c0, c1;
        target_counters(&c0);
        long want[3] = {0, 0, 0}, got0[3] = {runs_on_first, runs_on_second, runs_elsewhere};
        int which = 0, ran = 0, timeouts = 0, n = 6000;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 4 == 0) which = !which;
            int m = (seed >> 20) % 3 == 0 ? MODE_THREAD : MODE_SIGNAL;
            p.mode = (uint8_t)m;
            struct exec_ctx cx = {&fake, case_mode_name(m), bytes, sizeof bytes, NULL, NULL, 0};
            struct exec_outcome out;
            int rc = target_run(tids[which], m, &cx, &p, &out, timeouts_ns[k]);
            if (rc == TARGET_RAN) ran++, want[m == MODE_THREAD ? 2 : which]++;
            timeouts += rc == TARGET_TIMEOUT;
        }
        target_release();
        target_counters(&c1);
        long got[3] = {runs_on_first - got0[0], runs_on_second - got0[1], runs_elsewhere - got0[2]};
        int short_timeout = timeouts_ns[k] < 1000000LL;
        CHECK((short_timeout ? ran + timeouts == n && ran > 0 : ran == n && timeouts == 0) && got[0] == want[0] &&
                  got[1] == want[1] && got[2] == want[2],
              "two targets, spin %lld ns, time-out %lld us: %d of %d cases ran, each once where its mode says (first "
              "%ld/%ld, second %ld/%ld, caller %ld/%ld), %d timed out, %llu signals, %llu late",
              spins[k], timeouts_ns[k] / 1000, ran, n, got[0], want[0], got[1], want[1], got[2], want[2], timeouts,
              c1.signals - c0.signals, c1.late_signals - c0.late_signals);
        CHECK(c1.held_too_long == c0.held_too_long, "two targets, spin %lld ns: no hold outlived its bound (%llu)",
              spins[k], c1.held_too_long - c0.held_too_long);
    }
    unsigned long before = atomic_load(&second_progress);
    int second_moves = 0;
    for (int waited = 0; waited < 1000 && !second_moves; waited++) {
        second_moves = atomic_load(&second_progress) != before;
        sleep_ms(1);
    }
    CHECK(moves_within(1000) && second_moves, "after the races both targets run their own code again");
    atomic_store(&second_stop, 1); /* the rest of the test has one target, and its CPUs to itself */
    pthread_join(t2, NULL);
    target_set_spin(50000);
    target_set_batch(8, 2000000000LL);
}

int main(int argc, char **argv)
{
    const char *why;
    self_path = argv[0];
    int hang_mode = argc > 2 && !strcmp(argv[1], "--hang");
    if (hang_mode && strlen(argv[2]) < sizeof dir) strcpy(dir, argv[2]);
    else if (!mkdtemp(dir)) return 1;
    if (guard_install(dir, &why)) return 1;
    threads_register_self("caller", NULL);
    if (target_install(SIGPROF, 50000)) return 1;
    target_set_java_code(anywhere);
    pthread_t t;
    pthread_create(&t, NULL, target_main, &first);
    while (!atomic_load(&target_tid)) sleep_ms(1);
    int me = threads_gettid(), faults, moved;
    if (hang_mode) { /* a 2 s case against a 200 ms hang bound, until one is taken */
        target_set_hang(200000000LL);
        timeout_ns = 100000000LL;
        slow_ms = 2000;
        for (int i = 0; i < 50; i++) run(1, MODE_SIGNAL, SLOW_OPTION, &faults);
        return 0; /* not reached once a case is taken: the caller stops the process */
    }

    target_set_batch(8, 2000000000LL);
    unsigned long long s0 = signals();
    int ran = run(80, MODE_SIGNAL, 0, &faults);
    int on_target = 1;
    for (int i = 0; i < n_seen; i++) on_target &= seen[i].tid == atomic_load(&target_tid);
    CHECK(ran == 80 && n_seen == 80 && on_target,
          "signal mode, batch 8: 80 cases ran once each, all in the target's handler (%d ran, %d walks)", ran, n_seen);
    CHECK(signals() - s0 == 10, "80 cases took 10 signals (%llu)", signals() - s0);
    int held = held_per_batch(8, &moved);
    CHECK(held, "the target does not run while it is held: one counter value per batch");
    /* Back to back, the target only runs between batches if it wins a
     * race with the next signal (docs/limits.md: it is sent once the
     * target has cleared its flag, before sigreturn), and how often it
     * wins depends on the CPU and the load (0 to 7 of 9 on an AMD
     * EPYC; in a CI run, a check that needed one win in up to 45 failed).
     * So that count is only reported; the check is that a target
     * released between batches runs its own code before the next one,
     * and that every batch still holds it. */
    int raced = moved;
    target_release();
    pace_every = 8;
    int paced = 0, rounds = 0;
    for (; paced == 0 && rounds < 3; rounds++) {
        target_release();
        run(80, MODE_SIGNAL, 0, &faults);
        held &= held_per_batch(8, &moved);
        paced += moved;
    }
    pace_every = 0;
    CHECK(paced > 0 && held,
          "between batches a released target runs again: its counter moved at %d of %d paced batches (%d of 9 back "
          "to back)",
          paced, 9 * rounds, raced);
    target_release();
    s0 = signals();
    ran = run(40, MODE_THREAD, 0, &faults);
    int on_caller = 1;
    for (int i = 0; i < n_seen; i++) on_caller &= seen[i].tid == me;
    CHECK(ran == 40 && n_seen == 40 && on_caller, "thread mode, batch 8: 40 walks ran once each on the caller (%d ran, %d walks)",
          ran, n_seen);
    CHECK(signals() - s0 == 5 && held_per_batch(8, &moved), "thread mode: 5 signals, the target held during each batch (%llu)",
          signals() - s0);

    target_release();
    s0 = signals();
    ran = run(16, MODE_SIGNAL, FAULT_OPTION, &faults);
    CHECK(ran == 16 && faults == 16, "a fault in a held handler is caught and the batch goes on: %d of %d faulted", faults, ran);
    CHECK(signals() - s0 == 2, "16 faulting cases took 2 signals (%llu)", signals() - s0);

    target_release();
    s0 = signals();
    ran = run(16, MIXED, 0, &faults);
    int where_right = 1;
    for (int i = 0; i < n_seen; i++) where_right &= seen[i].tid == (i % 2 ? me : atomic_load(&target_tid));
    CHECK(ran == 16 && n_seen == 16 && where_right && held_per_batch(8, &moved),
          "signal and thread mode by turns share a batch: each ran once where its mode says, one counter value a batch");
    CHECK(signals() - s0 == 2, "16 mixed cases took 2 signals (%llu)", signals() - s0);

    target_release();
    target_set_java_code(nowhere);
    struct target_counters c0, c1;
    target_counters(&c0);
    ran = run(16, MIXED, 0, &faults);
    target_counters(&c1);
    CHECK(ran == 16 && n_seen == 16 && c1.signals - c0.signals == 16 && c1.from_java == c0.from_java,
          "a context outside Java code opens no batch: 16 mixed cases took %llu signals, %llu from Java code (%d ran)",
          c1.signals - c0.signals, c1.from_java - c0.from_java, ran);
    target_set_java_code(anywhere);

    target_release();
    target_set_batch(8, 20000000LL);
    run(1, MODE_THREAD, 0, &faults);
    CHECK(moves_within(1000), "thread mode: an idle target leaves its handler by itself after the hold time");

    s0 = signals();
    run(1, MODE_SIGNAL, 0, &faults);
    CHECK(moves_within(1000), "an idle target leaves its handler by itself after the hold time");
    run(1, MODE_SIGNAL, 0, &faults);
    CHECK(signals() - s0 == 2, "the case after it sends a new signal (%llu)", signals() - s0);

    target_release();
    target_set_batch(1, 0);
    s0 = signals();
    ran = run(20, MODE_SIGNAL, 0, &faults);
    CHECK(ran == 20 && signals() - s0 == 20, "batch 1: a signal per case (%d cases, %llu signals)", ran, signals() - s0);
    ran = run(10, MODE_THREAD, 0, &faults);
    CHECK(ran == 10 && moves_within(1000), "batch 1, thread mode: 10 walks, the target released after each");

    /* A case that outlasts the caller's time-out once the handler took it:
     * the caller waits for it (the handler runs on the caller's buffers),
     * so it is reported run, runs once, and the next cases go on. (A signal
     * not taken within the time-out is taken back, and not run: tried
     * again, so a loaded machine cannot fail the check.) */
    for (int batch = 8; batch >= 1; batch -= 7) {
        target_release();
        target_set_batch(batch, 2000000000LL);
        run(1, MODE_SIGNAL, 0, &faults);
        timeout_ns = 100000000LL, slow_ms = 300;
        int slow_ran = 0, slow_seen = 0;
        for (int i = 0; i < 20 && !slow_ran; i++) {
            slow_ran = run(1, MODE_SIGNAL, SLOW_OPTION, &faults), slow_seen = n_seen;
            if (!slow_ran && slow_seen) break; /* ran, yet reported not run: the check fails */
        }
        timeout_ns = 2000000000LL, slow_ms = 50;
        ran = run(5, MODE_SIGNAL, 0, &faults);
        CHECK(slow_ran == 1 && slow_seen == 1 && ran == 5 && n_seen == 5,
              "batch %d: a taken case slower than the time-out runs to its end, once, reported run; the next 5 run "
              "once each (ran %d, %d walks; %d ran, %d walks)", batch, slow_ran, slow_seen, ran, n_seen);
    }

    /* One CPU for both: a tgkill would pend while the target is still in
     * its handler and land on sigreturn, at the point it already had (the
     * counter would not move); the timer's gap lets the target out first.
     * A 2 ms gap, so a busy machine that delays the target's exit from
     * its handler by less than that cannot fail the check. */
    cpu_set_t all, one;
    sched_getaffinity(0, sizeof all, &all);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    sched_setaffinity(atomic_load(&target_tid), sizeof one, &one);
    target_release();
    target_set_spin(0);
    target_set_shared_cpu(2000000LL, 2000000000LL);
    target_set_batch(8, 2000000000LL);
    int best = 0;
    for (int round = 0; round < 3 && best < 8; round++) {
        s0 = signals();
        ran = run(80, MODE_SIGNAL, 0, &faults);
        held = held_per_batch(8, &moved);
        CHECK(ran == 80 && n_seen == 80 && held && signals() - s0 == 10,
              "one CPU: 80 cases ran once each on 10 signals, one counter value a batch (%d ran, %d walks, %llu signals)",
              ran, n_seen, signals() - s0);
        best = moved > best ? moved : best;
        target_release();
    }
    CHECK(best >= 8, "one CPU: the target ran its own code before the signal of %d of 9 batches (best of up to 3 rounds)",
          best);
    /* On one CPU the shared hold bounds a batch, not target_set_batch's:
     * with 1 us alone every case would take a signal of its own. */
    target_release();
    target_set_batch(8, 1000LL);
    target_set_shared_cpu(2000000LL, 2000000000LL);
    s0 = signals();
    ran = run(80, MODE_SIGNAL, 0, &faults);
    CHECK(ran == 80 && signals() - s0 == 10, "one CPU: the shared CPU's hold bounds a batch (80 cases on %llu signals)",
          signals() - s0);
    /* On one CPU the sides hand it over with sched_yield, and a yield
     * that comes back late, because another busy thread ran, pauses
     * yielding (target.c, yield_while). The harness's 20 us gap, so the
     * target's own code between batches is short. */
    target_release();
    target_set_batch(8, 2000000000LL);
    target_set_shared_cpu(20000LL, 2000000000LL);
    struct target_counters y0, y1;
    target_counters(&y0);
    ran = run(80, MODE_SIGNAL, 0, &faults);
    target_counters(&y1);
    CHECK(ran == 80 && y1.yields > y0.yields, "one CPU: the sides yield to each other (%d ran, %llu yields)", ran,
          y1.yields - y0.yields);
    pthread_t hog_thread;
    pthread_create(&hog_thread, NULL, target_main, &hog);
    while (!atomic_load(&hog_tid)) sleep_ms(1);
    sched_setaffinity(atomic_load(&hog_tid), sizeof one, &one);
    unsigned long long pauses = 0;
    int all_ran = 1, hog_rounds = 0;
    for (; hog_rounds < 3 && !pauses; hog_rounds++) {
        target_counters(&y0);
        all_ran &= run(80, MODE_SIGNAL, 0, &faults) == 80;
        target_counters(&y1);
        pauses += y1.yield_pauses - y0.yield_pauses;
    }
    atomic_store(&hog_stop, 1);
    pthread_join(hog_thread, NULL);
    CHECK(all_ran && pauses > 0,
          "one CPU beside a busy thread: every case ran, and late yields paused yielding (%llu in %d rounds of 80)",
          pauses, hog_rounds);
    target_release();
    target_set_batch(8, 2000000000LL);
    target_set_shared_cpu(0, 0);
    sched_setaffinity(atomic_load(&target_tid), sizeof all, &all);
    sched_setaffinity(0, sizeof all, &all);

    two_targets();

    /* A case still running past the hang bound: the process stops with a
     * message, rather than return while the handler uses the caller's
     * buffers (run in a child: it aborts). */
    char log[sizeof dir + 16];
    snprintf(log, sizeof log, "%s/hang.err", dir);
    int status = hang_child(self_path, log);
    char msg[512] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        size_t n = fread(msg, 1, sizeof msg - 1, f);
        msg[n] = 0;
        fclose(f);
    }
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strstr(msg, "a hang in the code under test"),
          "a taken case still running past the hang bound stops the process with a message (%s)", msg);

    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) printf("# could not remove %s\n", dir);
    return TAP_DONE();
}
