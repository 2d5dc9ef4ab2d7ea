/*
 * Crash protection around API calls.
 *
 * guard_run(fn, arg) arms a per-thread slot, takes sigsetjmp(buf, 0) and
 * calls fn. The SIGSEGV/SIGBUS handler jumps back only when the faulting
 * thread has armed its slot; every other fault goes to the JVM untouched.
 * The signal mask is restored by hand after the jump, from the mask the
 * fault interrupted (sigsetjmp(.., 0) saves none, which keeps the fast
 * path free of syscalls).
 *
 * Two ways to coexist with HotSpot, which owns SIGSEGV:
 *   CHAINED: libjsig is in the process (LD_PRELOAD or linked in). Our
 *     handler becomes the JVM's chained handler; the JVM calls it only for
 *     faults it does not recognise. For an unguarded one we set the chain
 *     slot back to SIG_DFL and return: the instruction faults again and the
 *     JVM reports a fatal error with its hs_err file.
 *   PRIMARY: no libjsig, installed after the JVM's handlers (an agent's
 *     Agent_OnLoad, or an embedder after JNI_CreateJavaVM). We see faults
 *     first. A guarded fault on the thread's own stack below the call
 *     (guard zones) or on the armed safepoint poll page is ours (HotSpot
 *     would take the one for a stack overflow and the other for a poll in
 *     compiled code, and abort); any other guarded fault is offered to the JVM
 *     first through JVM_handle_linux_signal(.., abort_if_unrecognized=0)
 *     so its own faults (SafeFetch, polls, implicit null checks) keep
 *     working; what it does not claim is ours. Unguarded faults go to the
 *     handler we replaced.
 * With no JVM at all (plain C tests) PRIMARY applies with SIG_DFL behind.
 */
#ifndef ASGF_GUARD_H
#define ASGF_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include "guard_call.h"

enum guard_mode { GUARD_NONE, GUARD_PRIMARY, GUARD_CHAINED };

struct guard_fault {
    int sig, code;
    uintptr_t addr, pc;
    char record[256]; /* path of the record written, "" if none */
};

#define GUARD_NESTED (-1) /* this thread is already inside a guarded call */
#define GUARD_FULL (-2)   /* no free slot */

/*
 * Installs the SIGSEGV/SIGBUS handler. record_dir: where crash records go
 * (NULL: none, a line on stderr instead). Returns 0, or -1 with a reason.
 * Not handler-safe; call once.
 */
int guard_install(const char *record_dir, const char **why);
/* [handler-safe] The mode guard_install chose (the mutator asks it). */
enum guard_mode guard_mode(void);
const char *guard_mode_name(void);

/* protect=0: guard_run calls fn bare, so a fault reaches the JVM's
 * fatal-error handler and leaves an hs_err file. */
void guard_set_enabled(int on);
int guard_enabled(void);

typedef void (*guard_fn)(void *arg);

/*
 * [handler-safe] Runs fn(arg) guarded. Returns 0 if fn returned, the
 * signal number if a fault was caught (then *fault, if given, describes it
 * and the record, unless it repeats an earlier (pc, case) pair, is already
 * on disk), GUARD_NESTED or GUARD_FULL if fn was
 * not run.
 */
int guard_run(guard_fn fn, void *arg, const struct guard_call *call, struct guard_fault *fault);

/* [handler-safe] Set once a fault was handed to the JVM as fatal: it is
 * writing its hs_err file now. Samplers must stop signalling and handlers
 * must return at once, or they interrupt (and can hang) the error report. */
int guard_vm_dying(void);
/* [handler-safe] The record directory guard_install was given; NULL if none. */
const char *guard_record_dir(void);
/* [handler-safe] 1 when the calling thread is inside a guarded call: a
 * handler that interrupted it must not fault, as the call's guard would
 * catch the fault and file it under the call's case. */
int guard_in_call(void);
/* [handler-safe] The VM call about to be made inside the current guarded
 * call changes VM state (a queue, a frame mark, a handler registration):
 * `what` names it (a static string); NULL once it returned. A fault caught
 * while one is marked may leave that state half-changed, so it taints the
 * process: every later record names it (docs/crash-record.md, `tainted`).
 * guard_run clears the mark; outside a guarded call this does nothing. A
 * call nested in a marked one (a handler the VM ran from inside it) puts
 * the outer mark back when it returns. */
const char *guard_state_op(const char *what); /* returns the mark it replaced */

struct guard_counters {
    uint64_t caught, passed_on, claimed_by_jvm, nested, records_failed;
    uint64_t duplicates; /* counted under their key, no record file (key or directory at its cap) */
};

/* Record files per directory at most (default 100000; src/record.h); later faults are counted only. */
void guard_set_record_limit(long n);
void guard_counters(struct guard_counters *out);

#endif
