/* Crash protection (see guard.h for the design). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "arch.h"
#include "guard.h"
#include "record.h"
#include "regions.h"
#include "sigsafe.h"
#include "walker_cov.h"
#include "walking.h"

#define SLOTS 256

struct slot {
    _Atomic int owner; /* tid, 0 = free */
    _Atomic int armed;
    sigjmp_buf jb;
    sigset_t fault_mask;
    uintptr_t entry_sp;
    const struct guard_call *call;
    struct guard_fault *fault;
    _Atomic int handling; /* on_fault frames of this thread between entry and jump or return */
    const char *state_op; /* guard_state_op's mark: a state-changing VM call in progress */
    char record_text[16384]; /* build_id lines only where room is left (record.c) */
};

typedef int (*jvm_handler_fn)(int sig, siginfo_t *info, void *uc, int abort_if_unrecognized);

static struct slot slots[SLOTS];
static __thread struct slot *my_slot __attribute__((tls_model("initial-exec")));
static enum guard_mode mode = GUARD_NONE;
static _Atomic int enabled = 1;
static jvm_handler_fn jvm_handler;
static struct sigaction replaced[NSIG];
static char record_dir[200];
static _Atomic uint64_t n_caught, n_passed, n_claimed, n_nested, n_records_failed;
static _Atomic int dying;

int guard_vm_dying(void) { return atomic_load_explicit(&dying, memory_order_relaxed); }

const char *guard_record_dir(void) { return record_dir[0] ? record_dir : NULL; }

const char *guard_state_op(const char *what)
{
    struct slot *s = my_slot;
    if (!s) return NULL;
    const char *was = s->state_op;
    s->state_op = what;
    return was;
}

int guard_in_call(void)
{
    struct slot *s = my_slot;
    return s && atomic_load(&s->armed);
}
static _Atomic uint64_t n_duplicates;

void guard_set_record_limit(long n) { record_set_limits(-1, n); }

void guard_set_enabled(int on) { atomic_store(&enabled, on); }
int guard_enabled(void) { return atomic_load(&enabled); }
enum guard_mode guard_mode(void) { return mode; }

const char *guard_mode_name(void)
{
    return mode == GUARD_CHAINED ? "chained" : mode == GUARD_PRIMARY ? "primary" : "none";
}

void guard_counters(struct guard_counters *out)
{
    out->caught = n_caught, out->passed_on = n_passed, out->claimed_by_jvm = n_claimed;
    out->nested = n_nested, out->records_failed = n_records_failed, out->duplicates = n_duplicates;
}

/* [handler-safe] A guarded fault on this thread's stack below the guarded
 * call's frame: the walker strayed into the guard zones. HotSpot would take
 * it for a Java stack overflow and redirect the pc, so it must not be
 * offered to the JVM. */
static int below_own_frame(const struct slot *s, uintptr_t addr)
{
    const struct thread_info *t = threads_find(threads_gettid());
    uintptr_t lo = t && t->stack_lo ? t->stack_lo : s->entry_sp - (8u << 20);
    return addr >= lo && addr < s->entry_sp;
}

/* [handler-safe] The process is going down on this fault: the signal's
 * default action for its refault once we return, or the JVM's report.
 * Breakpoints come out first: the report's stack walks and a core dump run
 * through armed code. */
static void dying_of(int sig, int to_default)
{
    atomic_store(&dying, 1);
    wcov_disarm();
    if (!to_default) return;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

/* [handler-safe] Hands a fault we do not own to whoever owned it before. */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
    atomic_fetch_add(&n_passed, 1);
    if (mode == GUARD_CHAINED) {
        /* The JVM calls a chained handler only for faults it does not own:
         * an unguarded one is fatal. */
        /* Returning would tell the JVM we handled it. Make the chain slot
         * SIG_DFL instead: the refault then reaches the JVM's fatal-error
         * path and its hs_err file. */
        static const char msg[] = "asgst-fuzz: unguarded fault passed back to the JVM\n";
        sigsafe_write_all(2, msg, sizeof msg - 1);
        dying_of(sig, 1);
        return;
    }
    if (jvm_handler) {
        /* Ask first, so a fatal fault can be told from the JVM's own. */
        if (jvm_handler(sig, si, uc, 0)) return;
        dying_of(sig, 0);
        jvm_handler(sig, si, uc, 1); /* hs_err, then abort */
        return;
    }
    struct sigaction *old = &replaced[sig];
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_DFL) {
        /* Nobody else wants it: restore the default and let it refault. */
        dying_of(sig, 1);
    } else if (old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
}

/* [handler-safe] Records the fault and jumps back into guard_run. */
static void catch_fault(struct slot *s, int sig, siginfo_t *si, ucontext_t *uc)
{
    atomic_store(&s->armed, 0);
    uintptr_t pc = (uintptr_t)*arch_reg_slot(uc, ARCH_REG_PC);
    struct guard_fault local, *f = s->fault ? s->fault : &local;
    f->sig = sig, f->code = si->si_code, f->addr = (uintptr_t)si->si_addr, f->pc = pc;
    f->record[0] = 0;
    if (record_dir[0]) {
        struct record_info ri = {
            .dir = record_dir, .sig = sig, .si = si, .uc = uc,
            .call = s->call, .path_out = f->record, .path_len = sizeof f->record,
            .buf = s->record_text, .buf_len = sizeof s->record_text, .state_op = s->state_op,
        };
        enum record_result r = record_fault(&ri);
        if (r == RECORD_FAILED) atomic_fetch_add(&n_records_failed, 1);
        if (r == RECORD_COUNTED) atomic_fetch_add(&n_duplicates, 1);
    }
    s->fault_mask = uc->uc_sigmask;
    atomic_fetch_add(&n_caught, 1);
    atomic_store(&s->handling, 0); /* the jump leaves every on_fault frame of this thread */
    siglongjmp(s->jb, sig);
}

/* [handler-safe] The SIGSEGV/SIGBUS handler. With SA_NODEFER a fault in
 * its own work (the JVM's verdict, catch_fault's record) comes back here on
 * the same thread: that one is passed on, not caught, and a fault in passing
 * it on ends the process by the default action, never a loop. */
static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    struct slot *s = my_slot;
    int depth = s ? atomic_fetch_add(&s->handling, 1) : 0;
    if (depth == 0 && s && atomic_load(&s->armed)) {
        uintptr_t addr = (uintptr_t)si->si_addr;
        if (mode == GUARD_PRIMARY && jvm_handler && !below_own_frame(s, addr) && !regions_in_poll_page(addr) &&
            jvm_handler(sig, si, ucv, 0)) {
            atomic_fetch_add(&n_claimed, 1);
            atomic_fetch_sub(&s->handling, 1);
            errno = saved_errno;
            return;
        }
        catch_fault(s, sig, si, ucv);
    }
    if (depth > 0) {
        atomic_store(&s->armed, 0);
        static const char msg[] = "asgst-fuzz: a fault inside the guard's fault handler: passed on\n";
        sigsafe_write_all(2, msg, sizeof msg - 1);
        if (depth > 1) {
            /* Passing the first one on faulted too: the default action. */
            dying_of(sig, 1);
            atomic_fetch_sub(&s->handling, 1);
            errno = saved_errno;
            return;
        }
    }
    pass_on(sig, si, ucv);
    if (s) atomic_fetch_sub(&s->handling, 1);
    errno = saved_errno;
}

static int install_one(int sig)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    if (sigaction(sig, NULL, &old)) return -1;
    sa.sa_sigaction = on_fault;
    /* Keep the JVM's mask (it blocks most signals in its handler) so
     * nested samples cannot overwrite a jump buffer mid-fault. */
    sa.sa_mask = old.sa_mask;
    if (mode == GUARD_CHAINED) sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGSEGV);
    sigdelset(&sa.sa_mask, SIGBUS);
    /* libjvm code run from here may meet a walker-coverage breakpoint: a
     * blocked SIGTRAP would kill the process (walker_cov.h). */
    sigdelset(&sa.sa_mask, SIGTRAP);
    /* SA_NODEFER: a fault inside this handler (catch_fault writing its
     * record) must reach it again and be passed on to the VM, which writes
     * its report. With the signal blocked the kernel would kill the process
     * with no report and no record. HotSpot's chained call honours the flag. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | (old.sa_flags & SA_ONSTACK);
    if (sigaction(sig, &sa, NULL)) return -1;
    if (mode == GUARD_PRIMARY) replaced[sig] = old;
    return 0;
}

int guard_install(const char *dir, const char **why)
{
    if (mode != GUARD_NONE) return 0;
    if (regions_refresh() < 0) {
        *why = "cannot read /proc/self/maps";
        return -1;
    }
    jvm_handler = (jvm_handler_fn)dlsym(RTLD_DEFAULT, "JVM_handle_linux_signal");
    if (dlsym(RTLD_DEFAULT, "JVM_get_signal_action")) {
        mode = GUARD_CHAINED;
    } else {
        /* Primary mode must sit in front of the JVM's own handler: with
         * libjvm loaded but its handler not installed yet, the JVM would
         * later replace ours and chain back to it. */
        struct sigaction cur;
        sigaction(SIGSEGV, NULL, &cur);
        if (jvm_handler && !regions_in_libjvm((uintptr_t)cur.sa_sigaction)) {
            *why = "libjvm is loaded but its signal handler is not installed yet: install after "
                   "JNI_CreateJavaVM, or load libjsig";
            return -1;
        }
        mode = GUARD_PRIMARY;
    }
    if (dir) {
        size_t n = strlen(dir);
        if (n >= sizeof record_dir) {
            *why = "record directory path too long";
            mode = GUARD_NONE;
            return -1;
        }
        memcpy(record_dir, dir, n + 1);
        record_read_env();
        record_forget_taint(record_dir);
    }
    if (install_one(SIGSEGV) || install_one(SIGBUS)) {
        *why = "sigaction failed";
        return -1;
    }
    return 0;
}

/* [handler-safe] */
static struct slot *claim(int tid)
{
    for (int k = 0; k < SLOTS; k++) {
        struct slot *s = &slots[((unsigned)tid + (unsigned)k) % SLOTS];
        int expected = 0;
        if (atomic_compare_exchange_strong(&s->owner, &expected, tid)) return s;
    }
    return NULL;
}

int guard_run(guard_fn fn, void *arg, const struct guard_call *call, struct guard_fault *fault)
{
    if (!atomic_load_explicit(&enabled, memory_order_relaxed) || mode == GUARD_NONE) {
        walking_begin(); /* protection off: the walk runs bare, and is still ours */
        fn(arg);
        walking_end();
        return 0;
    }
    if (my_slot) {
        atomic_fetch_add(&n_nested, 1);
        return GUARD_NESTED;
    }
    struct slot *s = claim(threads_gettid());
    if (!s) return GUARD_FULL;
    s->call = call;
    s->fault = fault;
    /* a jump out of on_fault that was not ours (none is known) must not make
     * this call's faults look nested */
    atomic_store_explicit(&s->handling, 0, memory_order_relaxed);
    s->state_op = NULL;
    s->entry_sp = (uintptr_t)__builtin_frame_address(0);
    my_slot = s;
    walking_begin(); /* once: a fault comes back to the sigsetjmp below */
    int sig = sigsetjmp(s->jb, 0);
    if (sig == 0) {
        atomic_store(&s->armed, 1);
        fn(arg);
        atomic_store(&s->armed, 0);
    } else {
        pthread_sigmask(SIG_SETMASK, &s->fault_mask, NULL);
    }
    walking_end();
    my_slot = NULL;
    atomic_store(&s->owner, 0);
    return sig;
}
