/*
 * The sampler thread: every interval, one sample per registered thread.
 * Rounds are scheduled on absolute deadlines (a relative sleep drifts by
 * its slack every round: ~256 us rounds for 100 us asked, measured here);
 * a round that starts more than one interval late is counted and the
 * schedule resynchronised instead of bursting to catch up.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "agent_config.h"
#include "walker_cov.h"
#include "guard.h"
#include "inflight.h"
#include "qops.h"
#include "sample_handler.h"
#include "sampler.h"
#include "regions.h"
#include "stats.h"
#include "target.h"
#include "sigsafe.h"

#define SAMPLE_SIGNAL SIGPROF
#define HOLD_TIMEOUT_NS 20000000LL /* mode=thread: longest wait for a target to be held; a walk begun runs to its end */

static const struct agent_config *cfg;
static const struct api *api;
static pthread_t thread;
static _Atomic int running;
static long long started_ns;

/* mode=thread: hold the target in its handler while this thread walks it. */
static void walk_held(int tid)
{
    const struct thread_info *t = threads_find(tid);
    if (!t) return;
    static uint8_t bytes[CASE_MAX_SIZE];
    struct case_prog p;
    size_t len = sample_make_case(threads_slot(t), NULL, &p, bytes);
    struct exec_ctx cx = {api, "thread", bytes, len, qops_queue(threads_slot(t)), NULL, 0};
    struct exec_outcome out;
    int rc = target_run(tid, MODE_THREAD, &cx, &p, &out, HOLD_TIMEOUT_NS);
    if (rc == TARGET_RAN) {
        sample_note(t, &out);
    } else if (rc == TARGET_TIMEOUT) {
        stats_add(STAT_TARGET_TIMEOUTS, 1);
    }
}

static void *sampler_main(void *arg)
{
    (void)arg;
    pid_t pid = getpid();
    /* mode=thread walks on this thread: its in-flight file holds the case. */
    if (cfg->mode == MODE_THREAD) inflight_open(cfg->out);
    long long start = sigsafe_now_ns(), last_stats = start, last_refresh = start, next = start;
    static int tids[THREADS_MAX];
    while (atomic_load(&running)) {
        long long now = sigsafe_now_ns();
        if (cfg->duration_ns && now - start >= cfg->duration_ns) break;
        if (guard_vm_dying()) break; /* leave the error report alone */
        /* With per-thread kernel timers the sampler only keeps time. */
        int n = cfg->posix_timer && cfg->mode != MODE_THREAD ? 0 : threads_list(tids, THREADS_MAX);
        for (int i = 0; i < n; i++) {
            if (cfg->mode == MODE_THREAD) {
                stats_add(STAT_SIGNALS_SENT, 1);
                walk_held(tids[i]);
            } else if (syscall(SYS_tgkill, pid, tids[i], SAMPLE_SIGNAL) == 0) {
                stats_add(STAT_SIGNALS_SENT, 1);
            } else {
                stats_add(STAT_SIGNALS_FAILED, 1); /* the thread ended between list and kill */
            }
        }
        stats_add(STAT_ROUNDS, 1);
        wcov_rearm(); /* blocks the VM's own threads reached, back for the walks */
        if (now - last_refresh >= 1000000000LL) { /* JIT code and heap mappings move over time */
            regions_refresh();
            last_refresh = now;
        }
        if (cfg->stats_ns && !cfg->quiet && now - last_stats >= cfg->stats_ns) {
            stats_progress(stderr, (double)(now - started_ns) / 1e9);
            last_stats = now;
        }
        long long period = n ? cfg->interval_ns : 10000000LL;
        next += period;
        now = sigsafe_now_ns();
        if (now > next + period) {
            stats_add(STAT_LATE_ROUNDS, 1);
            next = now;
            continue;
        }
        struct timespec ts = {next / 1000000000LL, next % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    return NULL;
}

int sampler_start(const struct agent_config *config, const struct api *backend)
{
    cfg = config, api = backend;
    /* Thread mode's waits do not spin (0): the sampler's time between walks
     * is the workload's, and a spinning sampler only delays the next thread
     * it signals. Spinning 50 us as the fuzzers do made as many walks and
     * moved the median interval from 115-120 to 164 us (docs/figures.md,
     * 2026-11-30 evening). */
    if (cfg->mode == MODE_THREAD ? target_install(SAMPLE_SIGNAL, 0) : sample_handler_install(SAMPLE_SIGNAL))
        return -1;
    started_ns = sigsafe_now_ns();
    stats_set_start(started_ns);
    atomic_store(&running, 1);
    /* The sampler must never take the sampling signal itself. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SAMPLE_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&thread, NULL, sampler_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc ? -1 : 0;
}

void sampler_stop(void)
{
    if (!atomic_exchange(&running, 0)) return;
    pthread_join(thread, NULL);
}

double sampler_elapsed_s(void) { return started_ns ? (double)(sigsafe_now_ns() - started_ns) / 1e9 : 0; }
