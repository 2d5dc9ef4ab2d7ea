/*
 * Running a case on another thread's live context.
 *
 *   MODE_SIGNAL: the target's own signal handler executes the case on its
 *     context (the way profilers call AGCT).
 *   MODE_THREAD: separate-thread walking. The target's handler publishes
 *     its context and holds the thread in the handler; the caller executes
 *     the case against that context, then releases it. A signal that is not
 *     taken in time is taken back; a case or walk once begun runs to its end,
 *     and one still running past the hang bound (target_set_hang) has hung:
 *     the process stops rather than go on with a Java thread stuck in its
 *     handler (it would stall safepoints).
 *   MODE_QUEUE: like MODE_SIGNAL; the case's entry (Enqueue) decides.
 *
 * Held batches (target_set_batch): a signal costs a cross-core round trip
 * (IPI, kernel signal delivery, a wake-up of the caller), about 16 us here,
 * ten times the walk. With batching on, a target that took a signal stays in
 * its handler after the first case, its interrupted context still live, and
 * takes the caller's next cases through a shared word: signal-mode cases
 * run in its handler as before, thread-mode cases on the caller against
 * the published context. Every case still starts from a real interrupted
 * context of the target; only the number of distinct interrupt points per
 * second falls. Only a context interrupted in Java code (the code cache)
 * opens a batch; any other gets its one case. AGCT walks a thread that is
 * not in Java code from its last Java frame and ignores the context, so a
 * batch there repeats one walk, and such a thread is often in the VM doing
 * work others wait on (a JVMTI stack walk's handshake, a safepoint). Held
 * there, it kept a run's batches on such contexts: in a JVM's first
 * seconds as few as 6 % of the cases started in Java code, against over
 * 90 % with one signal per case (docs/figures.md). A batch ends after
 * max_inputs cases or hold_ns, whichever comes first, when the caller
 * picks another target, or on target_release; the next signal is sent
 * only after the target has left its handler, so it lands at a new point
 * of the target's code instead of being delivered again at the same one
 * on sigreturn. With caller and target on one CPU (target_set_shared_cpu)
 * the caller cannot wait for that: the signal comes from a timer a short
 * gap after the batch.
 *
 * target_install once (not handler-safe), then target_run from any thread
 * that is not the target. target_run with the caller's own tid works for
 * MODE_SIGNAL without batching (the handler runs before tgkill returns).
 */
#ifndef ASGF_TARGET_H
#define ASGF_TARGET_H

#include "exec.h"

/* Installs the handler for signo (e.g. SIGPROF). spin_ns: how long
 * target_run busy-waits for the target before sleeping (0: sleep at once;
 * spinning buys round-trip latency with a core). 0 or -1. */
int target_install(int signo, long long spin_ns);

/* Held batches: at most max_inputs cases per signal (1: off, the default:
 * every case is a signal of its own) and at most hold_ns in the handler.
 * Not handler-safe; call before the first target_run. */
void target_set_batch(int max_inputs, long long hold_ns);

/* What counts as Java code for the batch rule above and the from_java
 * counter: regions_in_code_cache unless set. The function runs in the
 * target's handler, so it must be handler-safe. Not handler-safe itself;
 * call while no case runs: before the first target_run, or after
 * target_release (tests give a process without a JVM code of its own to
 * call Java code). */
void target_set_java_code(int (*in_java_code)(uintptr_t pc));

/* Changes the spin bound of target_install; safe while a worker is held:
 * waits that start from then on use it (a worker already waiting may adapt
 * its budget from the old bound once). Not handler-safe: the caller's side
 * only. */
void target_set_spin(long long spin_ns);

/* Caller and targets share one CPU (gap_ns 0: they do not, the default).
 * The caller then signals a target by a timer of the target's own, gap_ns
 * (jittered by half) ahead, and after a held batch it does not wait for the
 * target to leave: see target.c. Meanwhile a batch is held up to hold_ns
 * (0: target_set_batch's hold): every batch's end there gives the CPU to
 * the target's own code and costs a timer signal, while a held target
 * sleeps and leaves the CPU to the caller. The two sides take turns by
 * sched_yield rather than futex wake-ups, until yields come back late
 * (another busy thread on the CPU); each call starts that afresh. Not
 * handler-safe. */
void target_set_shared_cpu(long long gap_ns, long long hold_ns);

/* How long a case the target's handler took, or a thread-mode walk of a
 * held target, may run before it counts as hung (ns; 0: the default, 60 s,
 * past the fuzzers' own time-outs). A hung case stops the process with a
 * message: returning would leave the handler using the caller's buffers,
 * and the fuzzer, which never got an answer, keeps the input. For tests. */
void target_set_hang(long long ns);

#define TARGET_RAN 0
#define TARGET_NO_SIGNAL (-1) /* tgkill failed: the thread is gone */
#define TARGET_TIMEOUT (-2)   /* the target never answered in time */

/* Executes p on thread tid's context in the given mode (enum case_mode).
 * timeout_ns bounds how long the caller waits for the target to take the
 * case (once taken, it runs to its end, up to the hang bound), and how long
 * a held target waits in its handler for a thread-mode walk to start. */
int target_run(int tid, int mode, const struct exec_ctx *cx, const struct case_prog *p,
               struct exec_outcome *out, long long timeout_ns);

/* Ends a held batch now and waits (bounded) until its target has left its
 * handler. Call before anything that may need the target at a safepoint
 * (JVMTI, JNI that allocates) and before exit. */
void target_release(void);

struct target_counters {
    unsigned long long requests, ran, timeouts, held_too_long, late_signals;
    unsigned long long signals;    /* signals sent (batches started) */
    unsigned long long from_java;  /* cases run on a context interrupted in the code cache */
    unsigned long long yields;       /* one CPU: waits that yielded to the peer first */
    unsigned long long yield_pauses; /* ... and yields that came back late: another thread ran */
};
void target_counters(struct target_counters *out);

#endif
