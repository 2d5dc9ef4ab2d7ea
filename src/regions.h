/*
 * What the address space looks like: a snapshot of /proc/self/maps taken
 * outside signal handlers, and the registry of threads whose stacks the
 * mutator may aim at. Readers in signal handlers see a consistent-enough
 * snapshot through a double buffer; a torn read can only give a wrong
 * (still bounded) answer, never a fault.
 */
#ifndef ASGF_REGIONS_H
#define ASGF_REGIONS_H

#include <stddef.h>
#include <stdint.h>

/* Reads /proc/self/maps into the snapshot. Not handler-safe. Returns the
 * number of mappings, or -1. */
int regions_refresh(void);

/* A pointer known to lie in the Java heap (e.g. an oop read through a JNI
 * handle); the mapping holding it becomes REGION_JAVA_HEAP. */
void regions_set_heap_hint(uintptr_t addr);

/* An address known to lie in the JIT code cache (e.g. a stub's pc): the run
 * of mappings holding it becomes REGION_CODE_CACHE at the next refresh. */
void regions_set_code_hint(uintptr_t addr);

/* [handler-safe] Path of the file mapping holding addr and addr's offset in
 * that file; NULL if none. */
const char *regions_module_of(uintptr_t addr, uintptr_t *offset);
/* [handler-safe] The same, and in *build_id (from the same snapshot) the
 * GNU build-id in hex of the loaded object that mapping belongs to, read
 * from the object in memory; NULL if it has none or was not loaded through
 * the dynamic loader. */
const char *regions_module_and_id(uintptr_t addr, uintptr_t *offset, const char **build_id);

/* Not handler-safe: calls fn once for each file mapping of the current
 * snapshot, in address order, with its path and the build-id of the loaded
 * object it belongs to (NULL as for regions_module_and_id), under the lock
 * that keeps a refresh from reusing the snapshot meanwhile. 0, or -1 when
 * the snapshot left mappings or paths out (too many for its arrays). */
int regions_each_file(void (*fn)(const char *path, const char *build_id, void *arg), void *arg);

/* [handler-safe] Whether addr is in an executable mapping of libjvm.so. */
int regions_in_libjvm(uintptr_t addr);
/* [handler-safe] Whether addr lies in the code cache (JIT code, the
 * interpreter, stubs): a pc there is Java code's, compiled, interpreted or a
 * stub, where AGCT trusts the context it is given. */
int regions_in_code_cache(uintptr_t addr);
/* [handler-safe] Whether addr is the VM's code, libjvm's or the code
 * cache's: what a return pc on a Java thread's stack points into. */
int regions_in_vm_code(uintptr_t addr);

/* [handler-safe] The JVM's armed safepoint poll page, found by its shape in
 * the snapshot (README, "Crash protection"): 1 and its bounds, or 0 if none. */
int regions_poll_page(uintptr_t *lo, uintptr_t *hi);
int regions_in_poll_page(uintptr_t addr);

/* [handler-safe] Bounds of a region kind from the snapshot; 0 if unknown.
 * Only the process-wide kinds: code_cache, libjvm_text, java_heap, unmapped. */
int regions_bounds(int region, uintptr_t *lo, uintptr_t *hi);

/* ---- thread registry ---- */

struct thread_info {
    int tid;           /* 0: free slot */
    int index;         /* registration order, the "worker" number of a case */
    uintptr_t stack_lo, stack_hi;
    /* Where the thread's frames can reach: stack_hi less the thread
     * descriptor and static TLS that glibc keeps at the top of a created
     * thread's stack block, which change under a stopped thread (the
     * kernel's rseq cpu id, TLS variables of the handler's own code). */
    uintptr_t frames_hi;
    void *jni_env;
    char name[40];
};

/* [handler-safe] Kernel thread id of the caller (cached per thread). */
int threads_gettid(void);

/* Registers the calling thread (name, stack bounds from pthread). Not
 * handler-safe. Returns its index, or -1 when the table is full. */
int threads_register_self(const char *name, void *jni_env);
void threads_unregister_self(void);

/* [handler-safe] The registered thread with this tid, or NULL. */
const struct thread_info *threads_find(int tid);
/* [handler-safe] The n-th registered thread other than `tid` (n taken modulo
 * their count); NULL if there is none. */
const struct thread_info *threads_other(int tid, unsigned n);
#define THREADS_MAX 1024
/* [handler-safe] Stable slot number of a registered thread, 0..THREADS_MAX-1,
 * for per-thread tables kept by harnesses. */
int threads_slot(const struct thread_info *t);
/* Copies up to max registered tids; returns how many. Not for handlers
 * (no harm, but it scans the whole table). */
int threads_list(int *tids, int max);

#endif
