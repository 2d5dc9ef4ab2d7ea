/*
 * Crash records (docs/crash-record.md), written from the fault handler.
 * Handler-safe: open/write/close and stack-free formatting only.
 */
#ifndef ASGF_RECORD_H
#define ASGF_RECORD_H

#include <signal.h>
#include <stddef.h>
#include <ucontext.h>
#include "guard_call.h"

#define RECORD_MAX_FRAMES 64

struct record_info {
    const char *dir;
    int sig;
    const siginfo_t *si;
    ucontext_t *uc;
    const struct guard_call *call;
    char *path_out; /* receives the file name */
    size_t path_len;
    char *buf; /* scratch for the text; one per guard slot, so threads never share */
    size_t buf_len;
    const char *state_op; /* a state-changing VM call was in progress (guard_state_op): this fault taints */
};

/* Records are keyed by the fault: signal, faulting pc and the next few return
 * addresses, each as module+offset (so the key is the same in every process).
 * Every fault appends one line to <dir>/faults-<key>.txt (O_APPEND: one
 * atomic append per fault, safe across processes and threads, on disk as soon
 * as the write returns, no mapping that a full disk could turn into SIGBUS).
 * The offset after the append is the fault's number within its key: the first
 * `per_key` get a record file, the rest are only counted. At most `total`
 * record files per directory (counted in <dir>/records-written.txt the same way);
 * past that one line on stderr says so, and faults are still counted. */
#define RECORD_KEY_FRAMES 4
#define RECORD_PER_KEY_DEFAULT 20
#define RECORD_TOTAL_DEFAULT 100000
#define RECORD_TEXT_(x) #x
#define RECORD_TEXT(x) RECORD_TEXT_(x) /* a number for help texts */

enum record_result { RECORD_WRITTEN, RECORD_COUNTED, RECORD_FAILED };

/* Not handler-safe; call before faults can happen (a negative limit is left as it is). */
void record_set_limits(long per_key, long total);
/* [handler-safe] Counts the fault under its key and writes its record file
 * when the key and the directory are under their limits. A fault with
 * ri->state_op set taints the process, the first such one only: records
 * written after it carry `tainted: OP KEY`. */
enum record_result record_fault(const struct record_info *ri);

/* Not handler-safe: removes the tainted-PID.txt (record_fault) that an
 * earlier process with this pid left in dir, so that triage does not pair
 * it with this process's hs_err file. Call before faults can happen. */
void record_forget_taint(const char *dir);

/* [handler-safe] 1 once a write in the record directory failed for want of
 * space: faults since then were counted, not written. */
int record_out_of_space(void);

/* Not handler-safe: reads ASGF_SYSROOT (set by the wrapper of a JDK that
 * ci/install-jdk put in a root of a newer Debian), which records then name
 * so triage finds their modules there. Call before faults can happen. */
void record_read_env(void);

/* Not handler-safe: writes DIR/sysroot naming the root of ASGF_SYSROOT, when
 * there is one (it calls record_read_env), and removes a DIR/sysroot of an
 * earlier run when there is none. A JVM's own hs_err file cannot name its root;
 * triage reads the file beside it (stress/run writes the same file). 0, or -1
 * with errno set. */
int record_note_sysroot(const char *dir);

/* Not handler-safe: writes DIR/libraries, the path of every shared object this
 * process has mapped now, one a line, sorted, each followed by a tab and the
 * GNU build-id it was loaded with when it has one (it refreshes the regions
 * snapshot to read them). An hs_err that HotSpot cut short
 * before its library list (its symbol lookup can stall when two threads fault
 * at once) names frames as `libjvm.so+0x...` only; triage finds the module
 * here, when the file is older than the hs_err (not a later run's). So a file
 * that already holds the same list is left as it is. Call once the JVM is up;
 * libraries loaded later (a workload's JNI library) are not in it. The
 * build-ids let triage tell an hs_err's libjvm from one rebuilt at the same
 * path since. A process with more mappings than the regions snapshot holds
 * gets no list (one already there is removed): a list cut short is no list.
 * 0, or -1 with errno set. */
int record_note_libraries(const char *dir);

/* [handler-safe] The lines every record starts with (docs/crash-record.md):
 * the magic, pid, tid, thread, time, backend, entry and mode, and the
 * sysroot if there is one; NULL says "?". */
struct sbuf;
void record_head(struct sbuf *b, int tid, const char *thread, const char *backend, const char *entry,
                 const char *mode);

/* [handler-safe] A record key as every record writes it: 16 hex digits. */
void record_key_text(struct sbuf *b, uint64_t key);

/* [handler-safe] A record whose text the caller made (a stack-walk
 * mismatch of the oracle, a walk's write into live state; docs/crash-record.md), counted and limited like a fault
 * under `key`: one record file per key per process, `per_key` at most.
 * `text` is the whole file body from the magic line to END. */
enum record_result record_text(const char *dir, uint64_t key, const char *text, size_t len,
                               char *path_out, size_t path_len);

/* [handler-safe] Frame-pointer walk of a fault context: pcs[0] is the
 * faulting pc. A link between the handler's frame and the top of a
 * registered thread's stack is read directly (that span is in use, so
 * readable); any other word with sigsafe_read, so a bad chain ends the
 * walk. Returns the number of pcs. */
int record_backtrace(ucontext_t *uc, uintptr_t *pcs, int max);

#endif
