/*
 * Modes signal and queue: every registered thread runs one case per
 * SIGPROF on its own context. Per-thread state lives in a table indexed by
 * registry slot, so the handler allocates nothing.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include "agent_config.h"
#include "corpus_cases.h"
#include "arch.h"
#include "callback_gate.h"
#include "guard.h"
#include "inflight.h"
#include "lifecycle.h"
#include "mutate.h"
#include "oracle.h"
#include "oracle_check.h"
#include "qops.h"
#include "queue_ops.h"
#include "regions.h"
#include "sample_handler.h"
#include "stats.h"
#include "sigsafe.h"

struct tstate {
    timer_t timer;
    int has_timer;
    uint64_t rng;
    long long last_ns;
    /* The registration (thread_info index + 1) whose first walk threads_walked counted.
     * Not a count reset in sample_thread_start: a signal can walk a thread between its
     * registration and that call, and the reset then counted its next walk again. */
    int counted;
    int slot;
    jthread thread; /* global ref, for the queue verifier */
    uint8_t bytes[CASE_MAX_SIZE];
    /* Top of the last stack a queue handler saw; seq odd while writing. */
    _Atomic unsigned seq;
    int qn;
    jmethodID qframes[VERIFY_FRAMES];
    ASGST_Frame frames[CHECK_FRAMES]; /* the last walk's first frames, for the oracle's check */
};

static struct tstate tstates[THREADS_MAX];
static const struct agent_config *cfg;
static const struct api *api;
static jvmtiEnv *jvmti;

void sample_handler_init(const struct agent_config *config, const struct api *backend, jvmtiEnv *env)
{
    cfg = config, api = backend, jvmti = env;
}


size_t sample_make_case(int slot, const ucontext_t *uc, struct case_prog *p, uint8_t *bytes)
{
    struct tstate *ts = &tstates[slot];
    int strategy = cfg->mutate;
    if (strategy != CASEGEN_NONE && cfg->aim && uc && !regions_in_code_cache((uintptr_t)*arch_reg_slot((ucontext_t *)uc, ARCH_REG_PC))) {
        stats_add(STAT_UNAIMED, 1);
        strategy = CASEGEN_NONE;
    } else if (strategy != CASEGEN_NONE) {
        stats_add(STAT_AIMED, 1);
    }
    if (strategy == MUTATE_CORPUS) corpus_pick(casegen_next(&ts->rng), p);
    else casegen_fill((enum casegen_strategy)strategy, &ts->rng, arch_reg_count(), p);
    /* The agent's mode decides how the case runs; the bytes, encoded once
     * after that, record what ran. */
    p->mode = (uint8_t)cfg->mode;
    /* Method and class info from the signal handler, as a profiler would
     * call it, on a quarter of the samples (the flag is in the case bytes,
     * so a saved case does the same). */
    if ((cfg->queue_ops & CASEGEN_QOPS_INFO) && casegen_next(&ts->rng) % 4 == 0) p->flags |= CASE_FLAG_METHOD_INFO;
    for (int i = 0; i < cfg->nqop && p->nqop < CASE_MAX_QOPS; i++) p->qop[p->nqop++] = cfg->qop[i];
    if (cfg->mode == MODE_QUEUE)
        casegen_queue_ops(&ts->rng, cfg->queue_ops, cfg->queue_size, qops_handshake_free(slot), p);
    if (cfg->mode == MODE_QUEUE) {
        p->entry = ENTRY_ENQUEUE;
    } else if (cfg->mode == MODE_THREAD) {
        /* Half the samples take the supported path into a held thread (its
         * queue: Enqueue, or GetEnqueuableElement where it has none), half
         * the iterator calls from a foreign thread, a misuse the prototype
         * does not check. The record's path line says which. */
        if (casegen_next(&ts->rng) % 2) p->entry = ENTRY_ENQUEUE;
        else if (!case_entry_walks(p->entry)) p->entry = ENTRY_RUN_WITH_ITERATOR;
    } else if (p->entry == ENTRY_ENQUEUE) {
        p->entry = ENTRY_RUN_WITH_ITERATOR; /* no queue outside queue and thread mode */
    }
    /* A corpus case with the qops= and drawn queue records added can pass
     * the 1024 bytes: what runs must be what the bytes (and so any crash
     * record) hold. */
    return case_encode_kept(p, bytes);
}

void sample_note(const struct thread_info *t, const struct exec_outcome *o)
{
    struct tstate *ts = &tstates[threads_slot(t)];
    long long now = sigsafe_now_ns();
    if (ts->last_ns) stats_interval(now - ts->last_ns);
    ts->last_ns = now;
    stats_add(STAT_HANDLER_RUNS, 1);
    if (ts->counted != t->index + 1) {
        ts->counted = t->index + 1;
        stats_add(STAT_THREADS_WALKED, 1);
    }
    stats_outcome(o);
}

/* [handler-safe] The SIGPROF handler. */
static void on_sample(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si;
    int saved_errno = errno;
    const struct thread_info *self = guard_vm_dying() ? NULL : threads_find(threads_gettid());
    /* Past VMDeath the gate is closed: a per-thread timer still firing then
     * must not walk a VM that is going away. */
    if (self && gate_enter()) {
        int slot = threads_slot(self);
        struct tstate *ts = &tstates[slot];
        if (ts->has_timer) {
            /* Expirations the kernel merged into this one signal. */
            int missed = timer_getoverrun(ts->timer);
            stats_add(STAT_SIGNALS_SENT, 1 + (missed > 0 ? missed : 0));
        }
        struct case_prog p;
        size_t len = sample_make_case(slot, uc, &p, ts->bytes);
        struct exec_ctx cx = {api, case_mode_name(p.mode), ts->bytes, len, qops_queue(slot), NULL, 0};
        if (cfg->oracle) cx.frames_out = ts->frames, cx.frames_cap = CHECK_FRAMES;
        struct exec_outcome out;
        exec_case(&cx, &p, uc, self, &out);
        if (cfg->oracle) oracle_check_walk(api, &p, &out, ts->frames, ts->bytes, len, self->tid);
        sample_note(self, &out);
        gate_leave();
    }
    errno = saved_errno;
}

int sample_handler_install(int signo)
{
    /* The oracle's walk signal waits while a sample runs: a walk taken
     * inside this handler (inside the VM's walker, or on a forged stack
     * copy) is no point of the workload's own code, and its frames would be
     * the framework's doing. */
    return sigsafe_install(signo, on_sample, cfg->oracle ? oracle_walk_signal() : 0);
}

/* Inside the guarded walk: the first frames' methods, for the verifier. */
static void note_frame(const struct api *walked, const ASGST_Frame *f, int i, void *ctx)
{
    struct tstate *ts = ctx;
    if (i < VERIFY_FRAMES) ts->qframes[i] = walked->method_to_jmethodid ? walked->method_to_jmethodid(f->method) : NULL;
}

static void on_queue_element(ASGST_Iterator *it, void *queue_arg, void *enqueue_arg)
{
    (void)enqueue_arg;
    struct tstate *ts = queue_arg;
    if (!gate_enter()) return;
    atomic_fetch_add(&ts->seq, 1);
    int n = lc_walk(api, it, "queue_handler", EXEC_WALK_LIMIT, note_frame, ts);
    /* A walk a fault ended leaves no stack for the verifier to compare. */
    ts->qn = n < 0 ? 0 : n < VERIFY_FRAMES ? n : VERIFY_FRAMES;
    if (n < 0) n = 0;
    atomic_fetch_add(&ts->seq, 1);
    /* The handshake half of the thread's last case's qop records. */
    qops_run_handshake(api, ts->slot, it);
    stats_add(STAT_QUEUE_HANDLED, 1);
    stats_add(STAT_QUEUE_FRAMES, (unsigned long long)n);
    gate_leave();
}

void sample_thread_start(JNIEnv *jni, int index)
{
    (void)index;
    const struct thread_info *self = threads_find(threads_gettid());
    if (!self) return;
    struct tstate *ts = &tstates[threads_slot(self)];
    ts->rng = cfg->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)self->index + 1;
    ts->last_ns = 0;
    ts->slot = threads_slot(self);
    ts->qn = 0;
    if (agent_config_uses_queues(cfg, api)) {
        jthread self_thread;
        if (jvmti && (*jvmti)->GetCurrentThread(jvmti, &self_thread) == JVMTI_ERROR_NONE) {
            ts->thread = (*jni)->NewGlobalRef(jni, self_thread);
            (*jni)->DeleteLocalRef(jni, self_thread);
        }
        queue_ops_thread_start(jni, ts->slot, on_queue_element, ts);
    }
    inflight_open(cfg->out);
    if (cfg->posix_timer && cfg->mode != MODE_THREAD) {
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = SIGPROF;
        sev._sigev_un._tid = threads_gettid(); /* sigev_notify_thread_id: not named by this glibc */
        long long ns = cfg->interval_ns;
        struct itimerspec its = {{ns / 1000000000LL, ns % 1000000000LL}, {ns / 1000000000LL, ns % 1000000000LL}};
        if (timer_create(CLOCK_MONOTONIC, &sev, &ts->timer) == 0) {
            ts->has_timer = 1;
            timer_settime(ts->timer, 0, &its, NULL);
        }
    }
}

void sample_thread_end(JNIEnv *jni)
{
    const struct thread_info *self = threads_find(threads_gettid());
    if (!self) return;
    struct tstate *ts = &tstates[threads_slot(self)];
    if (ts->has_timer) {
        ts->has_timer = 0;
        timer_delete(ts->timer);
    }
    if (agent_config_uses_queues(cfg, api)) queue_ops_thread_end(jni, ts->slot);
    jthread t = ts->thread;
    ts->thread = NULL;
    if (t) (*jni)->DeleteGlobalRef(jni, t);
    inflight_close(0);
}

int sample_queue_snapshot(int slot, jthread *thread, jmethodID *frames, int max)
{
    struct tstate *ts = &tstates[slot];
    unsigned before = atomic_load(&ts->seq);
    if (before & 1 || !ts->thread || !ts->qn) return 0;
    int n = ts->qn < max ? ts->qn : max;
    for (int i = 0; i < n; i++) frames[i] = ts->qframes[i];
    *thread = ts->thread;
    return atomic_load(&ts->seq) == before ? n : 0;
}
