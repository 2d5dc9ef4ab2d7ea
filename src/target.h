/*
 * Running a case on another thread's live context, one request at a time.
 *
 *   MODE_SIGNAL: the target's own signal handler executes the case on its
 *     context (the way profilers call AGCT).
 *   MODE_THREAD: separate-thread walking. The target's handler publishes
 *     its context and holds the thread in the handler; the caller executes
 *     the case against that context, then releases it. Both sides time out,
 *     so a lost signal or a stuck walk never hangs either thread (a Java
 *     thread held too long would stall safepoints).
 *   MODE_QUEUE: like MODE_SIGNAL; the case's entry (Enqueue) decides.
 *
 * target_install once (not handler-safe), then target_run from any thread
 * that is not the target. target_run with the caller's own tid works for
 * MODE_SIGNAL (the handler runs before tgkill returns).
 */
#ifndef ASGF_TARGET_H
#define ASGF_TARGET_H

#include "exec.h"

/* Installs the handler for signo (e.g. SIGPROF). spin_ns: how long
 * target_run busy-waits for the target before sleeping (0: sleep at once;
 * spinning buys round-trip latency with a core). 0 or -1. */
int target_install(int signo, long long spin_ns);

#define TARGET_RAN 0
#define TARGET_NO_SIGNAL (-1) /* tgkill failed: the thread is gone */
#define TARGET_TIMEOUT (-2)   /* the target never answered in time */

/* Executes p on thread tid's context in the given mode (enum case_mode).
 * hold_ns bounds how long the target waits in its handler (MODE_THREAD)
 * and how long the caller waits for it. */
int target_run(int tid, int mode, const struct exec_ctx *cx, const struct case_prog *p,
               struct exec_outcome *out, long long timeout_ns);

struct target_counters {
    unsigned long long requests, ran, timeouts, held_too_long, late_signals;
};
void target_counters(struct target_counters *out);

#endif
