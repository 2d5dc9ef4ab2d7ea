/* Cases on another thread's context (see target.h). */
#include <pthread.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "arch.h"
#include "case_codes.h"
#include "guard.h"
#include "regions.h"
#include "target.h"
#include "sigsafe.h"

/*
 * The request word: generation << 3 | phase. Every transition is a
 * compare-and-swap of the whole word, so a side that gave up (a timeout, a
 * target that left its handler) can never be overtaken by the other: the
 * loser sees its swap fail. Generations only grow, so a late handler or a
 * stale hold never mistakes another request's word for its own.
 *
 *   SENT     caller -> handler: run req (signal mode) or publish the context
 *   RUNNING  handler: claimed SENT or NEXT; from here until it moves the
 *            word on, req is the handler's to read
 *   DONE     handler -> caller: ran it (or the batch's last one) and left
 *   HELD     handler -> caller: context published, waiting in the handler
 *   NEXT     caller -> held handler: run req (a new generation)
 *   BUSY     caller: walking the held context (thread mode)
 *   RELEASED caller -> held handler: leave
 *   IDLE     either side gave up, or nothing is going on
 */
enum phase { IDLE, SENT, HELD, NEXT, BUSY, RELEASED, DONE, RUNNING };

/* How long a claimed case, or a walk of a held target, may take before it
 * counts as hung (target_set_hang): by default past the fuzzers' own
 * time-outs (libFuzzer's -timeout=20, AFL++'s -t 10000 in fuzz/run-*),
 * which save the input. */
#define HANG_NS_DEFAULT 60000000000LL

/*
 * Each word one side writes and the other polls sits alone on its cache
 * lines (two, for the adjacent-line prefetch of x86): its type is aligned
 * and so padded to whole lines, so that nothing else the linker places can
 * share them. Packed together, the caller's own counters and batch sat on
 * the lines the held target spun on, and every case paid for lines moving
 * between the cores for no message at all (docs/figures.md, 2026-11-28).
 */
#define LINE 128
#define ALONE(T) struct { _Alignas(LINE) T v; }

struct request {
    _Alignas(LINE) _Atomic unsigned long long word; /* with what the caller posts beside it */
    int tid;              /* the target: a late signal to another thread leaves req alone */
    int mode;
    const struct exec_ctx *cx;
    const struct case_prog *prog;
    struct exec_outcome *out;
    long long hold_ns;    /* longest wait for a thread-mode walk */
    long long batch_ns;   /* how long a handler holds for a batch, from its start (0: no batch) */
    _Atomic unsigned long long walked; /* generation of the caller's last walk of a held context */
    /* Published by the handler with HELD or DONE, valid while it holds. */
    ucontext_t *uc;
    const struct thread_info *self;
    int from_java;
};

static struct request req;
/* Handlers inside their hold loop: a count, as a target that timed out may
 * still be on its way out when the next one starts holding. */
static ALONE(_Atomic int) holding;
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
static int signo_used;
static int batch_max = 1;
static int (*in_java_code)(uintptr_t pc) = regions_in_code_cache; /* target_set_java_code */
static long long batch_hold_ns, shared_hold_ns;
static _Atomic unsigned long long n_requests, n_ran, n_timeouts, n_signals, n_java; /* the caller's */
static _Atomic unsigned long long n_held_too_long, n_late;                          /* either side's, rare */
static _Atomic unsigned long long n_yields, n_yield_pauses;                          /* either side's, one CPU */

/*
 * Caller and target on one CPU (target_set_shared_cpu). A tgkill there
 * lands at the wrong moment either way. If the target's wake-up of the
 * caller preempts it while it is still in its handler, the signal pends
 * and is delivered at the same interrupted point on sigreturn; if it does
 * not (EEVDF keeps the current task for its slice), the target runs its
 * own code until the next tick (4 ms at HZ=250) while the caller waits.
 * On Linux 6.18 one in 18 batches took the second path, and its Java run
 * was 36-45 % of the job's CPU (docs/figures.md). So here the caller arms
 * a one-shot timer of the target's own (SIGEV_THREAD_ID) a short, jittered
 * gap ahead and sleeps: the target leaves its handler, runs its code for
 * about the gap, and takes the signal wherever it has got to.
 */
static ALONE(_Atomic long long) shared_gap_ns; /* 0: signals are sent with tgkill; the handler reads it too */
/* How long a side on the shared CPU yields to its peer before it sleeps
 * (see wait_while): 20 us to 1 ms made the same rate (docs/figures.md);
 * the short end wastes least where the peer is not coming soon. */
#define SHARED_YIELD_NS 50000LL
#define YIELD_LATE_NS 200000LL /* a peer's case takes a few us; another thread's slice, ms */
#define YIELD_PAUSE_MIN 16
#define YIELD_PAUSE_MAX 4096 /* waits: at 10 us a wait, one late yield per 40 ms */
#define MAX_TIMERS 64
static struct {
    int tid;
    timer_t id;
} timers[MAX_TIMERS]; /* the caller's side only, under one_at_a_time */
static int n_timer_slots, next_evict;
static unsigned gap_seed = 0x9e3779b9u;

/* The caller's view of the batch it holds open (under one_at_a_time). */
static struct {
    int tid;            /* 0: none */
    unsigned long long gen;
    int count;
    long long until;    /* post no more cases after this */
} batch;

static unsigned long long word(unsigned long long gen, enum phase p) { return gen << 3 | p; }
static unsigned long long gen_of(unsigned long long w) { return w >> 3; }
static enum phase phase_of(unsigned long long w) { return (enum phase)(w & 7); }
static int cas(unsigned long long from, unsigned long long to) { return atomic_compare_exchange_strong(&req.word, &from, to); }

/*
 * Waiting, on both sides: spin for up to spin_ns while the other side is
 * on a CPU, then sleep on a futex that the other side bumps (and wakes, if
 * we sleep) whenever it moves the request on. Spinning buys the round trip
 * of a wake-up when both threads have a core; a thread that spins while
 * its peer waits for that core only delays it (docs/figures.md, contended
 * runs), so a side that sees its peer asleep does not spin at all. With
 * both on one CPU (target_set_shared_cpu) a side yields instead of
 * spinning, for a bounded time: the peer it waits for can only run once it
 * lets go of the CPU. A futex wait and wake and sched_yield are raw
 * syscalls: async-signal-safe in the target's handler.
 */
struct waiter {
    _Alignas(LINE) _Atomic int word;   /* bumped on every change meant for this side */
    /* Threads of this side in (or about to enter) FUTEX_WAIT; the peer
     * polls it. A count: a target on its way out and the next one can
     * both wait on target_w, and one's wake-up must not hide the other's
     * sleep. */
    _Alignas(LINE) _Atomic int sleeps;
    /* How long this side spins now, between spin_ns / 16 and spin_ns, as
     * adaptive mutexes do: halved when the answer after a spin took many
     * spins' time (the peer was off its CPU: other jobs keep them busy),
     * grown while answers come during the spin or just after it. This
     * side's alone. */
    _Alignas(LINE) _Atomic long long budget;
    /* On one CPU: waits left before this side yields again, the pause
     * after the next late yield, and prompt yields since the last late
     * one (yield_while). This side's alone. */
    _Atomic int yield_skip, yield_pause, yield_prompt;
};
static struct waiter caller_w, target_w;
static ALONE(_Atomic long long) spin_ns_; /* target_set_spin may change it while a worker is held */
static ALONE(_Atomic long long) hang_ns_ = {HANG_NS_DEFAULT}; /* read by the handler too */
#define HANG_NS atomic_load_explicit(&hang_ns_.v, memory_order_relaxed)

/* [handler-safe] Tells side w that the request word moved. */
static void wake(struct waiter *w)
{
    atomic_fetch_add(&w->word, 1);
    if (atomic_load(&w->sleeps)) syscall(SYS_futex, &w->word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* [handler-safe] After a spin that ran out: an answer that came soon after
 * says a longer spin would have caught it; one that took many spins' time
 * says the peer was off its CPU, and spinning only took ours. */
static void adapt(struct waiter *self, long long budget, long long waited)
{
    long long spin_ns = atomic_load_explicit(&spin_ns_.v, memory_order_relaxed);
    if (waited <= budget) {
        long long more = 2 * budget + 1000;
        atomic_store_explicit(&self->budget, more < spin_ns ? more : spin_ns, memory_order_relaxed);
    } else if (waited > 16 * spin_ns && budget / 2 >= spin_ns / 16) {
        atomic_store_explicit(&self->budget, budget / 2, memory_order_relaxed);
    }
}

#define NO_SINCE LONG_MIN /* a wake count is an int: never this */

/* [handler-safe] Whether what wait_while waits for has come; `word`:
 * this side's wake count as the caller read it. */
static int changed(const _Atomic unsigned long long *watch, unsigned long long v, _Atomic int *also, long since,
                   int word)
{
    return atomic_load(watch) != v || (also && !atomic_load(also)) || (since != NO_SINCE && word != since);
}

/* [handler-safe] wait_while's first phase with caller and target on one
 * CPU: a peer that is awake waits for this CPU, and a yield hands it over
 * at once, where a futex sleep costs a wake-up syscall on the other side
 * and a sleep and a wake-up on each (one CPU alone: 150k libFuzzer execs/s
 * against 105-110k, docs/figures.md). But a yield also hands the CPU to
 * any other busy thread there, for a whole slice, while a futex wake-up
 * puts the peer first: beside a stress job on the same CPU, yielding
 * halved a job's rate: a side that yields is not asleep, so its peer
 * does not wake it, and it waits behind the other thread's slice. So a
 * yield that comes back late (another thread ran) stops this side
 * yielding for a while, twice as long each time, and only a long run of
 * prompt yields shortens the pause again: one late yield costs what
 * hundreds of prompt ones save. 1 if it changed; *now is kept current. */
static int yield_while(struct waiter *self, const struct waiter *peer, const _Atomic unsigned long long *watch,
                       unsigned long long v, _Atomic int *also, long since, long long *now)
{
    int skip = atomic_load_explicit(&self->yield_skip, memory_order_relaxed);
    if (skip > 0) {
        atomic_store_explicit(&self->yield_skip, skip - 1, memory_order_relaxed);
        return 0;
    }
    int pause = atomic_load_explicit(&self->yield_pause, memory_order_relaxed);
    long long end = *now + SHARED_YIELD_NS;
    atomic_fetch_add_explicit(&n_yields, 1, memory_order_relaxed);
    while (*now < end && !atomic_load(&peer->sleeps)) {
        if (changed(watch, v, also, since, atomic_load(&self->word))) {
            int prompt = atomic_load_explicit(&self->yield_prompt, memory_order_relaxed) + 1;
            if (prompt >= YIELD_PAUSE_MAX && pause > YIELD_PAUSE_MIN) {
                atomic_store_explicit(&self->yield_pause, pause / 2, memory_order_relaxed);
                prompt = 0;
            }
            atomic_store_explicit(&self->yield_prompt, prompt, memory_order_relaxed);
            return 1;
        }
        long long before = *now;
        syscall(SYS_sched_yield);
        *now = sigsafe_now_ns();
        if (*now - before > YIELD_LATE_NS) {
            pause = pause < YIELD_PAUSE_MIN ? YIELD_PAUSE_MIN : pause < YIELD_PAUSE_MAX ? 2 * pause : pause;
            atomic_store_explicit(&self->yield_pause, pause, memory_order_relaxed);
            atomic_store_explicit(&self->yield_skip, pause, memory_order_relaxed);
            atomic_store_explicit(&self->yield_prompt, 0, memory_order_relaxed);
            atomic_fetch_add_explicit(&n_yield_pauses, 1, memory_order_relaxed);
            return changed(watch, v, also, since, atomic_load(&self->word));
        }
    }
    return 0;
}

/* [handler-safe] Waits as side `self` while *watch equals `v`, until
 * deadline (CLOCK_MONOTONIC ns); 1 if it changed. `peer`: the other side,
 * whose sleeping makes spinning pointless. `since`: this side's wake count
 * as it was before *watch was read, or NO_SINCE; a wake after it ends the wait
 * too, so a word that moved away and back (HELD, BUSY, HELD: a thread-mode
 * walk done while we slept) is not slept through. */
static int wait_while(struct waiter *self, const struct waiter *peer, const _Atomic unsigned long long *watch,
                      unsigned long long v, _Atomic int *also, long long deadline, long since)
{
    long long budget = atomic_load_explicit(&self->budget, memory_order_relaxed);
    long long now = sigsafe_now_ns(), spin_end = now + budget;
    int spun = 0;
    while (now < spin_end && !atomic_load(&peer->sleeps)) {
        spun = 1;
        if (changed(watch, v, also, since, atomic_load(&self->word))) {
            long long more = budget + budget / 2 + 500, spin_ns = atomic_load_explicit(&spin_ns_.v, memory_order_relaxed);
            atomic_store_explicit(&self->budget, more < spin_ns ? more : spin_ns, memory_order_relaxed);
            return 1;
        }
        arch_cpu_relax();
        now = sigsafe_now_ns();
    }
    if (!spun && atomic_load_explicit(&shared_gap_ns.v, memory_order_relaxed) &&
        yield_while(self, peer, watch, v, also, since, &now))
        return 1;
    long long slept_from = now;
    for (;;) {
        int seen = atomic_load(&self->word); /* before *watch: FUTEX_WAIT on it returns at once after a later wake */
        if (changed(watch, v, also, since, seen)) {
            if (spun) adapt(self, budget, sigsafe_now_ns() - slept_from);
            return 1;
        }
        long long left = deadline - sigsafe_now_ns();
        if (left <= 0) return 0;
        struct timespec ts = {left / 1000000000LL, left % 1000000000LL};
        atomic_fetch_add(&self->sleeps, 1);
        if (atomic_load(watch) == v && (!also || atomic_load(also)))
            syscall(SYS_futex, &self->word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
        atomic_fetch_sub(&self->sleeps, 1);
    }
}

/* [handler-safe] */
static void wake_caller(void) { wake(&caller_w); }

/* Caller side: waits while the request word equals `w`; 1 if it changed
 * before the deadline. */
static int wait_change(unsigned long long w, long long deadline)
{
    return wait_while(&caller_w, &target_w, &req.word, w, NULL, deadline, NO_SINCE);
}

/* Caller side: a swap of the request word that the held target waits for. */
static int move(unsigned long long from, unsigned long long to)
{
    if (!cas(from, to)) return 0;
    wake(&target_w);
    return 1;
}

/* Caller side: waits until the request word has moved past `w` and past
 * the handler's claim of it; the word then, or 0 at the deadline. */
static unsigned long long wait_answer(unsigned long long w, long long deadline)
{
    unsigned long long claimed = word(gen_of(w), RUNNING);
    for (;;) {
        if (!wait_change(w, deadline)) return 0;
        unsigned long long now = atomic_load(&req.word);
        if (now != claimed) return now;
        if (w != claimed) {
            /* Claimed: the handler runs the case on our context, program,
             * outcome and the fuzzer's input bytes. Giving up now would
             * leave it using them after we return (freed, or the next
             * input's); a case that runs on is a hang, for the fuzzer's
             * own time-out to save. */
            long long hung = sigsafe_now_ns() + HANG_NS;
            if (hung > deadline) deadline = hung;
        }
        w = claimed;
    }
}

/* Caller side, after a wait for `posted` that timed out: takes the request
 * back with a swap, so that a handler claiming it at that moment keeps it;
 * then the claimed case is waited for like any other. 0 if taken back,
 * else the word the handler answered with. A case still running HANG_NS
 * after its claim has hung in the handler (a walker that blocks, or
 * loops): returning would let it go on using the caller's buffers, and the
 * fuzzer would take the input for one that did not run, so the process
 * stops (the fuzzer, which got no answer, keeps the input), unless the VM
 * is already dying: its own error report ends the process then. */
static unsigned long long take_back(unsigned long long posted)
{
    unsigned long long gen = gen_of(posted), running = word(gen, RUNNING);
    if (cas(posted, word(gen, IDLE))) return 0;
    unsigned long long w = atomic_load(&req.word);
    if (w != running) return w;
    w = wait_answer(running, sigsafe_now_ns() + HANG_NS);
    if (w) return w;
    while (guard_vm_dying()) sleep(1);
    dprintf(2, "target: a case has run in the handler of thread %d for %lld ms after it was claimed: a hang in "
               "the code under test; stopping the process so that the input is kept\n",
            req.tid, HANG_NS / 1000000LL);
    abort();
}

/* [handler-safe] Claims the request in `w` (SENT or NEXT) and runs it on
 * this context (fields read only after the claim, so a caller that gave
 * up and wrote the next request is never mistaken for this one). 1 if it
 * ran, 0 if the caller took it back first. */
static int claim_and_run(unsigned long long w, ucontext_t *uc, const struct thread_info *self,
                         struct exec_held *held)
{
    if (!cas(w, word(gen_of(w), RUNNING))) return 0;
    exec_case_held(req.cx, req.prog, uc, self, req.out, held);
    return 1;
}


/* [handler-safe] The held target's side: stays in the handler, running
 * the caller's signal-mode cases on its context and waiting while the
 * caller walks it, until released, replaced, idle past leave_at, or a
 * thread-mode walk outlasts hard + HANG_NS (a hung walk: then the caller's
 * walk races our return; counted). A thread-mode request's walk is waited
 * for up to hard to start: leave_at counts only once
 * the caller has had our context. Leaving idle says DONE: the last case
 * ran, so a caller that looks late (its wake-up outlasted the hold) does
 * not take the case for lost. */
static void hold(unsigned long long gen, ucontext_t *uc, const struct thread_info *self,
                 struct exec_held *held, long long leave_at, long long hard, int walk_pending)
{
    for (;;) {
        long since = atomic_load(&target_w.word); /* before the word: see wait_while */
        unsigned long long w = atomic_load(&req.word);
        if (w == word(gen, HELD)) {
            long long now = sigsafe_now_ns();
            if (walk_pending && atomic_load(&req.walked) == gen) walk_pending = 0;
            int over = (now > leave_at && !walk_pending) || now > hard || guard_vm_dying();
            if (over && cas(w, word(gen, walk_pending ? IDLE : DONE))) break;
        } else if (w == word(gen + 1, NEXT)) {
            walk_pending = 0; /* the caller has moved past its first walk */
            if (!claim_and_run(w, uc, self, held)) continue;
            gen++;
            if (!cas(word(gen, RUNNING), word(gen, HELD))) break; /* the caller gave up on it */
            wake_caller();
            continue;
        } else if (w == word(gen, BUSY)) {
            walk_pending = 0;
            /* The caller's walk may store into our frames unwatched: the
             * next case here notes their zero words afresh. */
            stack_watch_init(&held->watch);
            /* The caller walks our stack: leaving would change it under
             * the walk (faults of a moving stack, filed as the VM's), so
             * only a walk hung past HANG_NS makes us go. IDLE, so that the
             * caller cannot then say HELD for a context that is gone. */
            if (sigsafe_now_ns() > hard + HANG_NS && cas(w, word(gen, IDLE))) {
                atomic_fetch_add(&n_held_too_long, 1);
                break;
            }
        } else {
            /* Released, or the caller moved on. A new request (SENT) is
             * the caller handing over to the next signal: it waits for
             * that signal's answer, not for us to leave, and a wake-up
             * now would only make it switch in and back. */
            if (phase_of(w) == SENT) {
                atomic_fetch_sub(&holding.v, 1);
                return;
            }
            break;
        }
        /* Nothing to do until the caller moves the word, or our own limit. */
        long long until = w == word(gen, BUSY) ? hard + HANG_NS : walk_pending ? hard : leave_at < hard ? leave_at : hard;
        wait_while(&target_w, &caller_w, &req.word, w, NULL, until, since);
    }
    atomic_fetch_sub(&holding.v, 1);
    wake_caller(); /* wait_left() */
    /* On one CPU a caller we just woke waits for this CPU; without a
     * yield EEVDF would let our own code keep it to the next tick. */
    if (atomic_load_explicit(&shared_gap_ns.v, memory_order_relaxed)) syscall(SYS_sched_yield);
}

/* [handler-safe] The held target's handler, less the errno it must keep. */
static void on_signal_run(const siginfo_t *si, void *ucv)
{
    (void)si;
    ucontext_t *uc = ucv;
    unsigned long long w = atomic_load(&req.word);
    if (phase_of(w) != SENT || req.tid != threads_gettid() || guard_vm_dying()) {
        atomic_fetch_add(&n_late, 1);
        return;
    }
    unsigned long long gen = gen_of(w), running = word(gen, RUNNING);
    /* The hold counts from here: a signal delivered late still gets its batch. */
    long long now = sigsafe_now_ns(), leave_at = req.batch_ns ? now + req.batch_ns : 0, hard = now + req.hold_ns;
    const struct thread_info *self = threads_find(threads_gettid());
    int thread_mode = req.mode == MODE_THREAD;
    /* Here, below the interrupted sp, for the whole hold: the batch's stk
     * cases forge one copy of the frozen stack, and its cases' watch notes
     * the zero words once (exec.h). */
    struct exec_held held;
    exec_held_init(&held);
    int from_java = in_java_code((uintptr_t)*arch_reg_slot((ucontext_t *)uc, ARCH_REG_PC));
    /* Our context is published only once the request is ours: a handler
     * that lost the claim must not overwrite another one's. */
    if (!thread_mode) {
        if (!cas(w, running)) {
            atomic_fetch_add(&n_late, 1);
            return;
        }
        req.uc = uc, req.self = self, req.from_java = from_java;
        exec_case_held(req.cx, req.prog, uc, self, req.out, &held);
        if (!leave_at || !from_java) { /* no batch outside Java code: see target.h */
            if (cas(running, word(gen, DONE))) wake_caller();
            return;
        }
    } else {
        if (!cas(w, running)) {
            atomic_fetch_add(&n_late, 1);
            return;
        }
        req.uc = uc, req.self = self, req.from_java = from_java;
        if (!leave_at) leave_at = hard; /* unbatched thread mode: held until released */
    }
    atomic_fetch_add(&holding.v, 1);
    if (!cas(running, word(gen, HELD))) {
        atomic_fetch_sub(&holding.v, 1);
        return;
    }
    wake_caller();
    hold(gen, uc, self, &held, leave_at, hard, thread_mode);
}

/* [handler-safe] The futex calls and a caught fault's record writes set
 * errno, which the interrupted thread may be about to read. */
static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    int saved_errno = errno;
    on_signal_run(si, ucv);
    errno = saved_errno;
}

void target_set_hang(long long ns) { atomic_store(&hang_ns_.v, ns > 0 ? ns : HANG_NS_DEFAULT); }

void target_set_spin(long long spin)
{
    atomic_store(&spin_ns_.v, spin);
    atomic_store(&caller_w.budget, spin);
    atomic_store(&target_w.budget, spin);
}

int target_install(int signo, long long spin)
{
    if (sigsafe_install(signo, on_signal, 0)) return -1;
    target_set_spin(spin);
    signo_used = signo;
    return 0;
}

void target_set_shared_cpu(long long gap_ns, long long hold_ns)
{
    pthread_mutex_lock(&one_at_a_time);
    atomic_store(&shared_gap_ns.v, gap_ns > 0 ? gap_ns : 0);
    /* Another CPU, or another job beside us: what late yields taught no longer holds. */
    struct waiter *sides[2] = {&caller_w, &target_w};
    for (int i = 0; i < 2; i++) {
        atomic_store(&sides[i]->yield_skip, 0);
        atomic_store(&sides[i]->yield_pause, 0);
        atomic_store(&sides[i]->yield_prompt, 0);
    }
    shared_hold_ns = gap_ns > 0 && hold_ns > 0 ? hold_ns : 0;
    pthread_mutex_unlock(&one_at_a_time);
}

/* The caller's timer that signals tid, made on first use; NULL if none can be made. */
static timer_t *timer_of(int tid)
{
    for (int i = 0; i < n_timer_slots; i++)
        if (timers[i].tid == tid) return &timers[i].id;
    int i = n_timer_slots < MAX_TIMERS ? n_timer_slots++ : next_evict++ % MAX_TIMERS;
    if (timers[i].tid) timer_delete(timers[i].id);
    timers[i].tid = 0;
    struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = signo_used};
    ev._sigev_un._tid = tid; /* sigev_notify_thread_id, which older glibc headers do not name */
    if (timer_create(CLOCK_MONOTONIC, &ev, &timers[i].id)) return NULL;
    timers[i].tid = tid;
    return &timers[i].id;
}

/* A timed-out request may have gone to a thread that died and whose tid
 * was given to a new one: the timer still points at the old thread. */
static void timer_forget(int tid)
{
    for (int i = 0; i < n_timer_slots; i++)
        if (timers[i].tid == tid) {
            timer_delete(timers[i].id);
            timers[i].tid = 0;
        }
}

/* Signals tid for the request just posted: at once, or on one CPU by its
 * timer, a gap of 1/2 to 3/2 shared_gap_ns ahead. 0, or -1 if tid is gone. */
static int send_signal(int tid)
{
    long long mean = atomic_load(&shared_gap_ns.v);
    if (mean && tid != threads_gettid() && !syscall(SYS_tgkill, getpid(), tid, 0)) {
        timer_t *t = timer_of(tid);
        gap_seed = gap_seed * 1103515245u + 12345u;
        long long gap = mean / 2 + (long long)((gap_seed >> 8) % (unsigned long long)(mean + 1));
        struct itimerspec at = {.it_value = {gap / 1000000000LL, gap % 1000000000LL}};
        if (t && !timer_settime(*t, 0, &at, NULL)) return 0;
    }
    return syscall(SYS_tgkill, getpid(), tid, signo_used) ? -1 : 0;
}

void target_set_batch(int max_inputs, long long hold_ns)
{
    batch_max = max_inputs < 1 ? 1 : max_inputs;
    batch_hold_ns = hold_ns < 0 ? 0 : hold_ns;
}

void target_set_java_code(int (*fn)(uintptr_t pc)) { in_java_code = fn ? fn : regions_in_code_cache; }

/* Caller, with the target held: walks its published context (BUSY keeps
 * the target from leaving meanwhile). Then the target is released unless
 * the batch goes on. */
static int walk_held(unsigned long long gen, const struct exec_ctx *cx, const struct case_prog *p,
                     struct exec_outcome *out, int keep)
{
    if (!cas(word(gen, HELD), word(gen, BUSY))) return 0;
    exec_case(cx, p, req.uc, req.self, out);
    atomic_store(&req.walked, gen);
    if (!move(word(gen, BUSY), word(gen, keep ? HELD : RELEASED))) atomic_fetch_add(&n_held_too_long, 1);
    return 1;
}

/* Waits, bounded, until no handler holds: the next signal must find the
 * target back in its own code. */
static void wait_left(void)
{
    static const _Atomic unsigned long long never = 0;
    long long deadline = sigsafe_now_ns() + 20000000LL;
    while (atomic_load(&holding.v) && sigsafe_now_ns() < deadline)
        wait_while(&caller_w, &target_w, &never, 0, &holding.v, deadline, NO_SINCE);
}

/* Ends the caller's batch: releases the target if it still holds (a
 * target that left by itself has moved the word on, so the swap fails),
 * then waits until it is out of its handler. */
static void end_batch(void)
{
    if (!batch.tid) return;
    move(word(batch.gen, HELD), word(batch.gen, RELEASED));
    batch.tid = 0;
    wait_left();
}

/* The next case of the open batch; TARGET_NO_SIGNAL when the batch is over
 * (the caller then sends a signal). */
static int run_in_batch(int mode, const struct exec_ctx *cx, const struct case_prog *p, struct exec_outcome *out,
                        long long timeout_ns)
{
    long long now = sigsafe_now_ns();
    if (batch.count >= batch_max || now >= batch.until) {
        /* On one CPU the next signal replaces the batch (run_signalled). */
        if (!shared_gap_ns.v || mode == MODE_THREAD) end_batch();
        return TARGET_NO_SIGNAL;
    }
    if (mode == MODE_THREAD) {
        if (!walk_held(batch.gen, cx, p, out, 1)) {
            end_batch();
            return TARGET_NO_SIGNAL;
        }
        batch.count++;
        return TARGET_RAN;
    }
    req.mode = mode, req.cx = cx, req.prog = p, req.out = out;
    unsigned long long next = word(batch.gen + 1, NEXT);
    if (!move(word(batch.gen, HELD), next)) { /* it left: idle too long */
        end_batch();
        return TARGET_NO_SIGNAL;
    }
    batch.gen++, batch.count++;
    unsigned long long w = wait_answer(next, now + timeout_ns);
    if (!w) w = take_back(next);
    if (w == word(batch.gen, HELD)) return TARGET_RAN;
    if (w == word(batch.gen, DONE)) { /* ran, then left idle before we looked */
        end_batch();
        return TARGET_RAN;
    }
    /* Taken back before the held target took it: it leaves on seeing IDLE. */
    batch.tid = 0;
    return TARGET_TIMEOUT;
}

/* A new signal to tid; opens a batch when batching is on. */
static int run_signalled(int tid, int mode, const struct exec_ctx *cx, const struct case_prog *p,
                         struct exec_outcome *out, long long timeout_ns)
{
    int batching = batch_max > 1 && tid != threads_gettid();
    /* A batch of tid's left open: the held target leaves when it sees the
     * new request, and our signal finds it back in its own code. */
    int handover = batch.tid == tid; /* target_run ended any other tid's batch */
    batch.tid = 0;
    unsigned long long gen = gen_of(atomic_load(&req.word)) + 1;
    long long now = sigsafe_now_ns();
    req.tid = tid, req.mode = mode, req.cx = cx, req.prog = p, req.out = out, req.hold_ns = timeout_ns;
    long long hold = shared_hold_ns ? shared_hold_ns : batch_hold_ns;
    req.batch_ns = batching ? hold : 0;
    unsigned long long sent = word(gen, SENT);
    atomic_store(&req.word, sent);
    atomic_fetch_add(&n_signals, 1);
    /* The timer is armed before the held target is woken: woken, it may
     * take this CPU at once, and it must not run its code unbounded. */
    int sent_ok = !send_signal(tid);
    if (handover) wake(&target_w);
    if (!sent_ok) {
        atomic_store(&req.word, word(gen, IDLE));
        if (handover) wait_left();
        return TARGET_NO_SIGNAL;
    }
    int rc = TARGET_TIMEOUT;
    unsigned long long w = wait_answer(sent, now + timeout_ns);
    if (!w) w = take_back(sent);
    if (w) {
        if (w == word(gen, DONE)) {
            rc = TARGET_RAN;
        } else if (w == word(gen, HELD)) {
            rc = TARGET_RAN;
            int open = batching && req.from_java; /* as the handler decides in signal mode */
            if (mode == MODE_THREAD && !walk_held(gen, cx, p, out, open)) rc = TARGET_TIMEOUT;
            if (open && rc == TARGET_RAN) {
                batch.tid = tid, batch.gen = gen, batch.count = 1;
                /* Stop posting a little before the target would leave by itself. */
                batch.until = sigsafe_now_ns() + hold - hold / 8;
                return rc;
            }
            if (mode != MODE_THREAD) move(word(gen, HELD), word(gen, RELEASED));
            wait_left();
        }
    }
    if (rc == TARGET_TIMEOUT && shared_gap_ns.v) timer_forget(tid);
    /* A handler that has not started yet finds IDLE and leaves it alone. */
    w = atomic_load(&req.word);
    if (gen_of(w) == gen && phase_of(w) != HELD && phase_of(w) != BUSY) atomic_store(&req.word, word(gen, IDLE));
    return rc;
}

int target_run(int tid, int mode, const struct exec_ctx *cx, const struct case_prog *p,
               struct exec_outcome *out, long long timeout_ns)
{
    pthread_mutex_lock(&one_at_a_time);
    atomic_fetch_add(&n_requests, 1);
    int rc = TARGET_NO_SIGNAL;
    if (batch.tid == tid) rc = run_in_batch(mode, cx, p, out, timeout_ns);
    else end_batch();
    if (rc == TARGET_NO_SIGNAL) rc = run_signalled(tid, mode, cx, p, out, timeout_ns);
    if (rc == TARGET_RAN) {
        atomic_fetch_add(&n_ran, 1);
        if (req.from_java) atomic_fetch_add(&n_java, 1);
    }
    if (rc == TARGET_TIMEOUT) atomic_fetch_add(&n_timeouts, 1);
    pthread_mutex_unlock(&one_at_a_time);
    return rc;
}

void target_release(void)
{
    pthread_mutex_lock(&one_at_a_time);
    end_batch();
    pthread_mutex_unlock(&one_at_a_time);
}

void target_counters(struct target_counters *out)
{
    out->requests = n_requests, out->ran = n_ran, out->timeouts = n_timeouts;
    out->held_too_long = n_held_too_long, out->late_signals = n_late;
    out->signals = n_signals, out->from_java = n_java;
    out->yields = n_yields, out->yield_pauses = n_yield_pauses;
}
