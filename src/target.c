/* Cases on another thread's context (see target.h). */
#include <pthread.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "arch.h"
#include "guard.h"
#include "target.h"
#include "sigsafe.h"

/* Request state word: generation << 3 | phase. The generation stops a late
 * handler (signal delivered after the caller gave up) from touching the
 * next request. */
enum phase { IDLE, SENT, PUBLISHED, RELEASED, DONE };

struct request {
    _Atomic unsigned long long word;
    int mode;
    const struct exec_ctx *cx;
    const struct case_prog *prog;
    struct exec_outcome *out;
    const ucontext_t *uc;              /* MODE_THREAD: the target's published context */
    const struct thread_info *self;
    long long hold_ns;
};

static struct request req;
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
static int signo_used;
static _Atomic unsigned long long n_requests, n_ran, n_timeouts, n_held_too_long, n_late;

static unsigned long long word(unsigned long long gen, enum phase p) { return gen << 3 | p; }

/* The caller spins for up to spin_ns, then sleeps on wake_word, which the
 * target bumps (and wakes only if the caller sleeps) whenever it moves the
 * request on. A wake-up across cores costs ~25 us in this VM, about a whole
 * walk, so a caller that can spend a core on it spins first (libFuzzer:
 * 28k -> 50-65k execs/s with 50 us); an unbounded spin stalled round trips
 * by scheduler ticks when the target lost its core, and nanosleep polling
 * added ~50 us of timer slack. */
static _Atomic int wake_word, caller_sleeps;
static long long spin_ns;

/* [handler-safe] */
static void wake_caller(void)
{
    atomic_fetch_add(&wake_word, 1);
    if (atomic_load(&caller_sleeps)) syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Caller side: waits while the request word equals `w`; 1 if it changed
 * before the deadline. */
static int wait_change(unsigned long long w, long long deadline)
{
    long long spin_end = sigsafe_now_ns() + spin_ns;
    while (sigsafe_now_ns() < spin_end) {
        if (atomic_load(&req.word) != w) return 1;
        arch_cpu_relax();
    }
    for (;;) {
        int seen = atomic_load(&wake_word);
        if (atomic_load(&req.word) != w) return 1;
        long long left = deadline - sigsafe_now_ns();
        if (left <= 0) return 0;
        struct timespec ts = {left / 1000000000LL, left % 1000000000LL};
        atomic_store(&caller_sleeps, 1);
        if (atomic_load(&req.word) == w)
            syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
        atomic_store(&caller_sleeps, 0);
    }
}

/* [handler-safe] Target side (mode thread): spins while the word equals w. */
static int hold_while(unsigned long long w, long long deadline)
{
    while (atomic_load(&req.word) == w)
        if (sigsafe_now_ns() > deadline) return 0;
    return 1;
}

/* [handler-safe] */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si;
    unsigned long long w = atomic_load(&req.word);
    if ((w & 7) != SENT || guard_vm_dying()) {
        atomic_fetch_add(&n_late, 1);
        return;
    }
    unsigned long long gen = w >> 3;
    const struct thread_info *self = threads_find(threads_gettid());
    if (req.mode != MODE_THREAD) {
        exec_case(req.cx, req.prog, uc, self, req.out);
        atomic_compare_exchange_strong(&req.word, &w, word(gen, DONE));
        wake_caller();
        return;
    }
    req.uc = uc, req.self = self;
    unsigned long long pub = word(gen, PUBLISHED);
    if (!atomic_compare_exchange_strong(&req.word, &w, pub)) return;
    wake_caller();
    /* Hold this thread here while the caller walks our context. Busy-wait:
     * the caller's walk is short and sleeping would be a syscall per spin. */
    if (!hold_while(pub, sigsafe_now_ns() + req.hold_ns)) {
        atomic_fetch_add(&n_held_too_long, 1);
        /* Give up the hold; the caller must not use our context any more. */
        atomic_compare_exchange_strong(&req.word, &pub, word(gen, IDLE));
    }
}

int target_install(int signo, long long spin)
{
    if (sigsafe_install(signo, on_signal, 0)) return -1;
    spin_ns = spin;
    signo_used = signo;
    return 0;
}

int target_run(int tid, int mode, const struct exec_ctx *cx, const struct case_prog *p,
               struct exec_outcome *out, long long timeout_ns)
{
    pthread_mutex_lock(&one_at_a_time);
    atomic_fetch_add(&n_requests, 1);
    unsigned long long gen = (atomic_load(&req.word) >> 3) + 1;
    req.mode = mode, req.cx = cx, req.prog = p, req.out = out, req.hold_ns = timeout_ns;
    unsigned long long sent = word(gen, SENT);
    atomic_store(&req.word, sent);
    int rc = TARGET_TIMEOUT;
    long long deadline = sigsafe_now_ns() + timeout_ns;
    if (syscall(SYS_tgkill, getpid(), tid, signo_used)) {
        rc = TARGET_NO_SIGNAL;
    } else if (wait_change(sent, deadline)) {
        unsigned long long w = atomic_load(&req.word);
        if ((w & 7) == DONE) {
            rc = TARGET_RAN;
        } else if ((w & 7) == PUBLISHED) {
            exec_case(cx, p, req.uc, req.self, out);
            /* Release only if the target still waits for us; if it gave up,
             * the walk above raced its return (counted, result kept). */
            if (!atomic_compare_exchange_strong(&req.word, &w, word(gen, RELEASED)))
                atomic_fetch_add(&n_held_too_long, 1);
            rc = TARGET_RAN;
        }
    }
    atomic_store(&req.word, word(gen, IDLE));
    if (rc == TARGET_RAN) atomic_fetch_add(&n_ran, 1);
    if (rc == TARGET_TIMEOUT) atomic_fetch_add(&n_timeouts, 1);
    pthread_mutex_unlock(&one_at_a_time);
    return rc;
}

void target_counters(struct target_counters *out)
{
    out->requests = n_requests, out->ran = n_ran, out->timeouts = n_timeouts;
    out->held_too_long = n_held_too_long, out->late_signals = n_late;
}
