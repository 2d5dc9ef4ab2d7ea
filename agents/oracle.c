/*
 * oracle=1: checks the VM's own walker against ground truth.
 *
 * A thread held still has one true stack. The oracle thread suspends a
 * sampled thread with JVMTI (a suspended thread cannot return to Java, so
 * its Java frames cannot change, whether it sits in native code, parked, or
 * stopped at a safepoint poll), takes JVMTI GetStackTrace, then sends the
 * thread a signal: the handler, on the held thread with its real ucontext,
 * calls the VM's AsyncGetCallTrace. Then the thread is resumed and the two
 * walks are compared frame by frame to full depth (method and bci). JVMTI is
 * the VM's safepoint walker, a different code path from AGCT's; our own agct
 * emulation is not involved.
 *
 * Known legitimate differences are rules in data (agents/oracle-rules.txt,
 * built in; oracle_rules=PATH for another file); every other difference is a
 * mismatch, written as a record (docs/crash-record.md, "Mismatch records")
 * keyed by the kind of difference and the first differing frame.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "agct.h"
#include "jmethods.h"
#include "jvm_threads.h"
#include "oracle.h"
#include "oracle_check.h"
#include "oracle_graph.h"
#include "oracle_records.h"
#include "oracle_rules.h"
#include "regions.h"
#include "sigsafe.h"
#include "guard.h"
#include "walking.h"
#include "inflight.h"

#define ORACLE_DEPTH 1024
static const char *const kind_names[] = {"dropped", "extra", "swapped", "wrong-bci", "wrong-method", "failed",
                                         "no-call-edge", "wrong-oldest"};
enum { K_DROPPED, K_EXTRA, K_SWAPPED, K_WRONG_BCI, K_WRONG_METHOD, K_FAILED, K_NO_EDGE, K_WRONG_OLDEST, K_COUNT };

static _Atomic int running;
static jvmtiEnv *jvmti;      /* oracle_prepare's */
static const char *out_dir; /* oracle_start's: where mismatch records go */
static int graph;           /* oracle_start's: also the call-graph check */
static _Atomic unsigned long long compared, equal_exact, equal_by_rule, kinds[K_COUNT], uncompared, no_answer, not_held,
    declined;
static _Atomic long long longest_hold_ns;
static _Atomic unsigned long long sampled, sampled_unwalkable, edges_checked, edges_unknown, oldest_checked;
/* The oldest frame of each registered thread, from JVMTI: it never changes
 * while the thread lives, so one GetStackTrace per thread serves every walk.
 * Keyed by slot and tid, as slots are reused. Oracle thread only. */
static struct { int tid; jmethodID method; } oldest[THREADS_MAX];
static long long started_ns, stopped_ns;
static agct_fn walker;
static char example[600];

/* The one walk request in flight: the oracle thread fills it, the held
 * thread's handler answers it. */
static struct {
    _Atomic int tid;
    JNIEnv *env;
    ASGCT_CallFrame *frames;
    jint depth, n;
    _Atomic int done;
} req;
#define DECLINED (-1000000) /* req.n: the handler found the thread inside a guarded call */

/* Global refs of the sampled threads by registry slot; the lock keeps a
 * thread's ref and registry entry alive while it is being compared. */
static jthread refs[THREADS_MAX];
static pthread_mutex_t refs_lock = PTHREAD_MUTEX_INITIALIZER;

/* [handler-safe] On the held thread: the VM's walk of its own context. */
static void on_walk_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si;
    int saved = errno;
    int self = threads_gettid();
    /* tid -> -tid claims the request: the oracle can then no longer take it back. */
    if (atomic_compare_exchange_strong(&req.tid, &self, -self)) {
        if (guard_in_call()) {
            /* We interrupted a guarded call of ours (a queue handler's
             * walk): that call's guard would catch a fault of this walk and
             * file it under its case. Not a point to compare at. */
            req.n = DECLINED;
        } else {
            /* An unmutated walk: a VM that dies in it is not the last case's. */
            uint32_t kept = inflight_hide();
            ASGCT_CallTrace t = {req.env, 0, req.frames};
            walking_begin();
            walker(&t, req.depth, uc);
            walking_end();
            inflight_restore(kept);
            req.n = t.num_frames;
        }
        atomic_store(&req.done, 1);
    }
    errno = saved;
}

void oracle_thread_start(JNIEnv *jni)
{
    const struct thread_info *self = threads_find(threads_gettid());
    jthread t;
    if (!self || !jvmti || (*jvmti)->GetCurrentThread(jvmti, &t) != JVMTI_ERROR_NONE) return;
    pthread_mutex_lock(&refs_lock);
    refs[threads_slot(self)] = (*jni)->NewGlobalRef(jni, t);
    pthread_mutex_unlock(&refs_lock);
    (*jni)->DeleteLocalRef(jni, t);
}

void oracle_thread_end(JNIEnv *jni)
{
    const struct thread_info *self = threads_find(threads_gettid());
    if (!self) return;
    pthread_mutex_lock(&refs_lock);
    jthread t = refs[threads_slot(self)];
    refs[threads_slot(self)] = NULL;
    pthread_mutex_unlock(&refs_lock);
    if (t) (*jni)->DeleteGlobalRef(jni, t);
}

static int same_method(const ASGCT_CallFrame *a, const jvmtiFrameInfo *j) { return a->method_id == j->method; }

/* Frames equal, or equal under a lineno rule (whose index is put in *rule). */
static int frame_eq(const ASGCT_CallFrame *a, const jvmtiFrameInfo *j, int *rule)
{
    *rule = -1;
    if (!same_method(a, j)) return 0;
    if ((jlocation)a->lineno == j->location) return 1;
    *rule = oracle_rules_lineno(a->lineno, j->location);
    return *rule >= 0;
}

/* Whether ag[ia..na) equals jv[ij..nj) frame by frame (rules applied). */
static int tail_eq(const ASGCT_CallFrame *ag, int ia, int na, const jvmtiFrameInfo *jv, int ij, int nj)
{
    int r;
    if (na - ia != nj - ij || ia > na) return 0;
    for (; ia < na; ia++, ij++)
        if (!frame_eq(&ag[ia], &jv[ij], &r)) return 0;
    return 1;
}

static void write_mismatch(const struct thread_info *t, int kind, int at, const char *method, const char *why,
                           const ASGCT_CallFrame *ag, int na, const jvmtiFrameInfo *jv, int nj)
{
    struct oracle_record r = {out_dir, t->tid, t->name, kind_names[kind], oracle_mismatch_key(kind_names[kind], method),
                              at, method, NULL, why, ag, na, jv, nj, NULL, 0,
                              kind == K_NO_EDGE || kind == K_WRONG_OLDEST};
    oracle_record_write(&r);
}

/* oracle_check's report: a sampled walk with a frame that cannot exist. */
static void write_inconsistent(int tid, int kind, int at, const char *shape, const char *why, const jmethodID *methods,
                               const int *bcis, int n, const uint8_t *case_bytes, size_t case_len)
{
    static ASGCT_CallFrame ag[CHECK_FRAMES];
    char m[512], name[40] = "?";
    for (int i = 0; i < n && i < CHECK_FRAMES; i++) ag[i].method_id = methods[i], ag[i].lineno = bcis[i];
    const struct thread_info *t = threads_find(tid);
    if (t) snprintf(name, sizeof name, "%s", t->name);
    oracle_method_text(methods[at], m, sizeof m);
    const char *kind_name = oracle_check_kind_name(kind);
    if (!example[0]) snprintf(example, sizeof example, "%s at frame %d, %.300s: %.200s", kind_name, at, m, why);
    struct oracle_record r = {out_dir, tid, name, kind_name, oracle_mismatch_key(kind_name, shape), at, m, shape, why,
                              ag, n, NULL, 0, case_bytes, case_len, 0};
    oracle_record_write(&r);
}

/* Compares one AGCT walk with JVMTI's; counts it and records a mismatch. */
static void judge(const struct thread_info *t, const ASGCT_CallFrame *ag, int na, const jvmtiFrameInfo *jv, int nj)
{
    if (na <= 0 && !(na == 0 && nj == 0) && oracle_rules_code(na)) {
        atomic_fetch_add(&uncompared, 1);
        return;
    }
    atomic_fetch_add(&compared, 1);
    int used[ORACLE_RULES_MAX] = {0}, any_rule = 0, n = na > 0 ? na : 0, i;
    for (i = 0; i < n && i < nj; i++) {
        int r;
        if (!frame_eq(&ag[i], &jv[i], &r)) break;
        if (r >= 0) used[r] = any_rule = 1;
    }
    if (i == n && i == nj) {
        for (int r = 0; r < ORACLE_RULES_MAX; r++)
            if (used[r]) oracle_rules_count(r);
        atomic_fetch_add(any_rule ? &equal_by_rule : &equal_exact, 1);
        return;
    }
    char m[512];
    /* Every frame agrees but the walk stops early, at a method the VM
     * called into: the gap the end rules describe for sampled walks. */
    if (i == n && n > 0 && n < nj) {
        oracle_method_text(ag[n - 1].method_id, m, sizeof m);
        if (oracle_rules_end(m)) {
            atomic_fetch_add(&equal_by_rule, 1);
            return;
        }
    }
    int kind;
    jmethodID first;
    if (na <= 0) kind = K_FAILED, first = nj > 0 ? jv[0].method : NULL;
    /* The kind is the one edit at i that makes the rest agree; a frame
     * that differs only in bci, or no single edit, is named by what differs at i. */
    int r1, r2;
    if (i >= n) kind = K_DROPPED, first = jv[i].method;
    else if (i >= nj) kind = K_EXTRA, first = ag[i].method_id;
    else if (tail_eq(ag, i, n, jv, i + 1, nj)) kind = K_DROPPED, first = jv[i].method;
    else if (tail_eq(ag, i + 1, n, jv, i, nj)) kind = K_EXTRA, first = ag[i].method_id;
    else if (i + 1 < n && i + 1 < nj && frame_eq(&ag[i], &jv[i + 1], &r1) && frame_eq(&ag[i + 1], &jv[i], &r2) &&
             tail_eq(ag, i + 2, n, jv, i + 2, nj))
        kind = K_SWAPPED, first = jv[i].method;
    else if (same_method(&ag[i], &jv[i])) kind = K_WRONG_BCI, first = jv[i].method;
    else kind = K_WRONG_METHOD, first = jv[i].method;
    atomic_fetch_add(&kinds[kind], 1);
    oracle_method_text(first, m, sizeof m);
    if (!example[0]) snprintf(example, sizeof example, "%s at frame %d, %s", kind_names[kind], i, m);
    write_mismatch(t, kind, i, m, NULL, ag, na, jv, nj);
}

static int wait_answer(void)
{
    long long deadline = 0;
    for (long spins = 0; !atomic_load(&req.done); spins++) {
        if (spins < 2000) continue; /* the usual answer comes within microseconds */
        long long now = sigsafe_now_ns();
        if (!deadline) deadline = now + 2000000000LL;
        if (now > deadline) return -1; /* the thread has not taken the signal in 2 s */
        sched_yield();
    }
    return 0;
}

/* Signals thread t and waits for its handler's walk into ag; 1 if answered. */
static int signal_walk(const struct thread_info *t, ASGCT_CallFrame *ag)
{
    int answered = 0;
    req.env = t->jni_env;
    req.frames = ag;
    req.depth = ORACLE_DEPTH;
    atomic_store(&req.done, 0);
    atomic_store(&req.tid, t->tid);
    if (syscall(SYS_tgkill, getpid(), t->tid, oracle_walk_signal()) == 0) answered = wait_answer() == 0;
    int armed = t->tid;
    if (!answered && !atomic_compare_exchange_strong(&req.tid, &armed, 0)) {
        /* The handler claimed the request and is walking: it must not
         * write into frames being reused, so wait for it to finish. A walk
         * that never ends stops the oracle (after the thread is resumed):
         * its late answer then lands in frames nobody reads. */
        long long give_up = sigsafe_now_ns() + 10000000000LL;
        while (!atomic_load(&req.done) && sigsafe_now_ns() < give_up) sched_yield();
        answered = atomic_load(&req.done);
        if (!answered) {
            fprintf(stderr, "asgf: oracle: the walk of thread %d (%s) did not end in 10 s; the oracle stops\n", t->tid, t->name);
            atomic_store(&running, 0);
        }
    }
    atomic_store(&req.tid, 0);
    if (!answered) atomic_fetch_add(&no_answer, 1);
    return answered;
}

/* The thread's oldest Java frame (JVMTI, counted from the bottom), or NULL. */
static jmethodID oldest_method(jvmtiEnv *env, const struct thread_info *t, jthread jt)
{
    int slot = threads_slot(t);
    if (oldest[slot].tid == t->tid) return oldest[slot].method;
    jvmtiFrameInfo fi;
    jint got = 0;
    if ((*env)->GetStackTrace(env, jt, -1, 1, &fi, &got) != JVMTI_ERROR_NONE || got != 1) return NULL;
    oldest[slot].tid = t->tid;
    oldest[slot].method = fi.method;
    return fi.method;
}

/* oracle_graph=1: a walk of a thread running Java, at whatever point the
 * signal finds it, checked edge by edge against the callers' bytecode, and
 * a whole walk (shorter than its depth) must end in the thread's oldest
 * frame: a walk cut short keeps every edge intact. */
static void check_sampled(jvmtiEnv *env, JNIEnv *jni, const struct thread_info *t, jthread jt, ASGCT_CallFrame *ag)
{
    if (!signal_walk(t, ag)) return;
    if (req.n == DECLINED) {
        atomic_fetch_add(&declined, 1);
        atomic_fetch_add(&uncompared, 1);
        return;
    }
    atomic_fetch_add(&sampled, 1);
    int n = req.n;
    if (n <= 0) {
        atomic_fetch_add(&sampled_unwalkable, 1);
        return;
    }
    for (int i = 0; i + 1 < n; i++) {
        if (ag[i + 1].lineno == AGCT_LINENO_NATIVE) continue; /* JNI up-calls are in no bytecode */
        char why[600];
        enum graph_verdict v = graph_check_edge(env, jni, ag[i + 1].method_id, ag[i + 1].lineno, ag[i].method_id,
                                                why, sizeof why);
        atomic_fetch_add(v == GRAPH_UNKNOWN ? &edges_unknown : &edges_checked, 1);
        if (v != GRAPH_NO_EDGE) continue;
        char m[512];
        oracle_method_text(ag[i].method_id, m, sizeof m);
        if (oracle_rules_edge(m)) continue;
        atomic_fetch_add(&kinds[K_NO_EDGE], 1);
        oracle_method_text(ag[i + 1].method_id, m, sizeof m);
        if (!example[0]) snprintf(example, sizeof example, "%s at frame %d, %.300s: %.200s", kind_names[K_NO_EDGE], i + 1, m, why);
        write_mismatch(t, K_NO_EDGE, i + 1, m, why, ag, n, NULL, 0);
        return;
    }
    jmethodID want = n < ORACLE_DEPTH ? oldest_method(env, t, jt) : NULL;
    if (!want) return;
    atomic_fetch_add(&oldest_checked, 1);
    if (ag[n - 1].method_id == want) return;
    char m[512], why[600];
    oracle_method_text(ag[n - 1].method_id, m, sizeof m);
    if (oracle_rules_end(m)) return;
    atomic_fetch_add(&kinds[K_WRONG_OLDEST], 1);
    char w[512];
    oracle_method_text(want, w, sizeof w);
    snprintf(why, sizeof why, "the walk ends after %d frames; the thread's oldest frame is %.500s", n, w);
    if (!example[0]) snprintf(example, sizeof example, "%s at frame %d, %.300s: %.200s", kind_names[K_WRONG_OLDEST], n - 1, m, why);
    write_mismatch(t, K_WRONG_OLDEST, n - 1, m, why, ag, n, NULL, 0);
}

static void compare_one(jvmtiEnv *env, JNIEnv *jni, const struct thread_info *t, jthread jt)
{
    static ASGCT_CallFrame ag[ORACLE_DEPTH];
    static jvmtiFrameInfo jv[ORACLE_DEPTH];
    jint nj = 0, state = 0;
    /* Suspending a thread that runs Java waits for it to reach a poll (a
     * time slice on a busy machine), and it would not be a known point
     * anyway: leave it for a later round. */
    if ((*env)->GetThreadState(env, jt, &state) != JVMTI_ERROR_NONE) return;
    if ((state & JVMTI_THREAD_STATE_RUNNABLE) && !(state & JVMTI_THREAD_STATE_IN_NATIVE)) {
        atomic_fetch_add(&not_held, 1);
        if (graph) check_sampled(env, jni, t, jt, ag);
        return;
    }
    long long held_at = sigsafe_now_ns();
    if ((*env)->SuspendThread(env, jt) != JVMTI_ERROR_NONE) return;
    int got = (*env)->GetStackTrace(env, jt, 0, ORACLE_DEPTH, jv, &nj) == JVMTI_ERROR_NONE;
    int answered = 0;
    /* Held means inside a native method: a thread suspended there cannot
     * change its Java frames. One suspended while running Java may not have
     * stopped yet (suspension takes hold at its next poll), so it is not a
     * known point and is not compared. */
    if (got && !(nj > 0 && jv[0].location == -1)) {
        got = 0;
        atomic_fetch_add(&not_held, 1);
    }
    if (got) answered = signal_walk(t, ag);
    (*env)->ResumeThread(env, jt);
    long long held = sigsafe_now_ns() - held_at;
    if (held > atomic_load(&longest_hold_ns)) {
        atomic_store(&longest_hold_ns, held);
        /* Holding a thread this long means the oracle thread was starved
         * (or a call blocked): the workload notices, so say it. */
        if (held > 1000000000LL) fprintf(stderr, "asgf: oracle: held thread %d (%s) suspended for %lld ms\n", t->tid, t->name, held / 1000000);
    }
    if (got && answered && req.n == DECLINED) {
        atomic_fetch_add(&declined, 1);
        answered = 0;
    }
    if (got && answered) judge(t, ag, req.n, jv, nj);
    else if (got) atomic_fetch_add(&uncompared, 1);
}

static void JNICALL oracle_loop(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
    (void)arg;
    static int tids[THREADS_MAX];
    int self = threads_gettid();
    started_ns = sigsafe_now_ns();
    while (atomic_load(&running)) {
        int n = threads_list(tids, THREADS_MAX), did = 0;
        for (int i = 0; i < n && atomic_load(&running); i++) {
            if (tids[i] == self) continue;
            pthread_mutex_lock(&refs_lock);
            const struct thread_info *t = threads_find(tids[i]);
            jthread jt = t ? refs[threads_slot(t)] : NULL;
            if (jt) compare_one(env, jni, t, jt), did++;
            pthread_mutex_unlock(&refs_lock);
        }
        oracle_check_drain(env, write_inconsistent);
        if (!did) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    oracle_check_drain(env, write_inconsistent);
    stopped_ns = sigsafe_now_ns();
}

int oracle_prepare(jvmtiEnv *env)
{
    jvmti = env;
    oracle_check_set_excuse(oracle_rules_top_bci);
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_suspend = 1;
    caps.can_get_bytecodes = 1;
    caps.can_get_constant_pool = 1;
    return (*env)->AddCapabilities(env, &caps) == JVMTI_ERROR_NONE ? 0 : -1;
}

int oracle_walk_signal(void) { return SIGRTMIN + 4; }

int oracle_start(jvmtiEnv *env, JNIEnv *jni, const char *out, int call_graph, const char **why)
{
    out_dir = out, graph = call_graph;
    if (!(walker = agct_resolve())) return *why = "AsyncGetCallTrace not found in this VM", -1;
    /* SIGPROF waits while the walk runs: the sampler's handler (with its
     * crash protection) never nests inside this one. */
    if (sigsafe_install(oracle_walk_signal(), on_walk_signal, SIGPROF)) return *why = "cannot install the walk signal handler", -1;
    atomic_store(&running, 1);
    if (jvm_agent_thread_start(env, jni, "asgf-oracle", oracle_loop, NULL)) return *why = "cannot start its thread", -1;
    return 0;
}

void oracle_stop(void)
{
    atomic_store(&running, 0);
    if (!stopped_ns) stopped_ns = sigsafe_now_ns();
}

void oracle_report(FILE *f)
{
    unsigned long long mism = 0;
    for (int k = 0; k < K_COUNT; k++) mism += kinds[k];
    double secs = started_ns && stopped_ns > started_ns ? (double)(stopped_ns - started_ns) / 1e9 : 0;
    fprintf(f, "asgf: oracle: compared %llu walks (%.0f/s), equal %llu, equal by rules %llu, mismatches %llu (",
            (unsigned long long)compared, secs > 0 ? (double)compared / secs : 0.0, (unsigned long long)equal_exact,
            (unsigned long long)equal_by_rule, mism);
    for (int k = 0; k < K_COUNT; k++) fprintf(f, "%s%s %llu", k ? ", " : "", kind_names[k], (unsigned long long)kinds[k]);
    fprintf(f, "), not compared %llu (no answer %llu, inside a guarded call %llu), not held (top frame not native) %llu, "
            "longest hold %.3f ms\n",
            (unsigned long long)uncompared, (unsigned long long)no_answer, (unsigned long long)declined,
            (unsigned long long)not_held,
            (double)longest_hold_ns / 1e6);
    if (graph)
        fprintf(f, "asgf: oracle: sampled walks of running threads %llu (not walkable %llu), call edges checked %llu "
                "(unknown %llu), no call edge %llu; oldest frames checked %llu, wrong %llu\n", (unsigned long long)sampled,
                (unsigned long long)sampled_unwalkable, (unsigned long long)edges_checked, (unsigned long long)edges_unknown,
                (unsigned long long)kinds[K_NO_EDGE], (unsigned long long)oldest_checked,
                (unsigned long long)kinds[K_WRONG_OLDEST]);
    oracle_rules_report(f);
    oracle_check_print(f);
    if (example[0]) fprintf(f, "asgf: oracle: first mismatch: %s\n", example);
}

int oracle_write_json(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double secs = started_ns && stopped_ns > started_ns ? (double)(stopped_ns - started_ns) / 1e9 : 0;
    fprintf(f, "{\"compared\": %llu, \"seconds\": %.3f, \"equal\": %llu, \"equal_by_rule\": %llu, "
            "\"not_compared\": %llu, \"no_answer\": %llu, \"not_held\": %llu, \"mismatches\": {",
            (unsigned long long)compared, secs, (unsigned long long)equal_exact, (unsigned long long)equal_by_rule,
            (unsigned long long)uncompared, (unsigned long long)no_answer, (unsigned long long)not_held);
    for (int k = 0; k < K_COUNT; k++) fprintf(f, "%s\"%s\": %llu", k ? ", " : "", kind_names[k], (unsigned long long)kinds[k]);
    fprintf(f, "}, \"sampled\": %llu, \"edges_checked\": %llu, \"edges_unknown\": %llu, \"oldest_checked\": %llu, ",
            (unsigned long long)sampled, (unsigned long long)edges_checked, (unsigned long long)edges_unknown,
            (unsigned long long)oldest_checked);
    oracle_rules_json(f);
    fprintf(f, ", \"consistency\": {");
    oracle_check_json(f);
    fprintf(f, "}}\n");
    return fclose(f);
}
