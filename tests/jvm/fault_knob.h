/*
 * The stand-in provider's fault knob (included by tests/jvm/fake_proto.c):
 * "fault in entry point E on its Nth call in calling context C", so a test
 * can plant a walker bug at every place the framework calls into the VM
 * and check that each one is caught and counted once (tests/fault_matrix.t).
 *
 *   ASGF_FAKE_FAULT=SPEC[,SPEC...]   SPEC = ENTRY@CONTEXT:N[:MAX]
 *     ENTRY    an entry point of the header without prefix (NextFrame), or *
 *              (each of them, with a count of its own)
 *     CONTEXT  one of the names in knob_ctx_names, or * (each of them)
 *     N        fault on the Nth call of ENTRY in CONTEXT, and every Nth after
 *     MAX      at most MAX faults from this spec (default: no limit); with a
 *              log, in all processes and runs that share the log
 *   ASGF_FAKE_HANG=SPEC[,SPEC...]   the same, but the call hangs instead
 *     of faulting: it sleeps forever, as a walker caught in a loop of frames
 *     would spin, so a harness's time-out (AFL++'s -t, libFuzzer's -timeout)
 *     has to take the input as a hang (tests/campaign_afl_hang.t)
 *   ASGF_FAKE_FAULT_LOG=FILE  a counter file shared by every process that
 *     loads the provider (AFL++ children, replays): per entry and context,
 *     the calls seen and the faults and hangs planted (struct knob_log; one
 *     count for both, so a MAX holds for faults and hangs of a pair together)
 *
 * A call has several contexts at once (NextFrame in a signal handler's
 * callback after a rewind is signal, callback and rewound). What the
 * provider can tell about its caller, it tells the way the prototype could:
 *   signal     inside a signal handler: a frame up the frame-pointer chain
 *              returns into the sigreturn trampoline
 *   thread     none of the below: a plain thread (thread mode's walker,
 *              JVMTI callbacks such as ThreadStart and ThreadEnd, start-up)
 *   callback   inside a RunWithIterator(FromFrame) callback
 *   nested     a walk entry called from inside a callback
 *   rewound    an iterator call after RewindIterator on that iterator
 *   failed     an iterator call after it answered an error
 *   rewound_failed  both: the iterator had failed, then was rewound
 *   ended      an iterator call after it answered 0 (walk over)
 *   queue      inside a queue element handler (the processing point)
 *   processing inside a processing start or end handler
 *   mark       inside a frame-mark handler
 *   unload     inside a class-unload handler
 * The fault writes to an address in the never-mapped first page that
 * encodes (entry, context), so a crash record's si_addr names the spec
 * that planted it: KNOB_ADDR_BASE + 8 * (entry * KNOB_CTX + context).
 */
#ifndef ASGF_TESTS_FAULT_KNOB_H
#define ASGF_TESTS_FAULT_KNOB_H

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "asgst.h"

enum knob_ctx {
    KC_SIGNAL, KC_THREAD, KC_CALLBACK, KC_NESTED, KC_REWOUND, KC_FAILED, KC_REWOUND_FAILED, KC_ENDED,
    KC_QUEUE, KC_PROCESSING, KC_MARK, KC_UNLOAD, KNOB_CTX
};
static const char *const knob_ctx_names[KNOB_CTX] = {
    "signal", "thread", "callback", "nested", "rewound", "failed", "rewound_failed", "ended",
    "queue", "processing", "mark", "unload"};

#define KNOB_ADDR_BASE 0x1000UL
#define KNOB_MAX_SPECS (2 * ASGST_EP__COUNT * KNOB_CTX)
#define KNOB_LOG_MAGIC 0x41534746464b4e31ULL /* "ASGFFKN1" */

/* The shared counter file: read by tests/fault_matrix.t (fuzz/replay and
 * every harness append nothing here; only the provider writes). */
struct knob_log {
    uint64_t magic, entries, contexts, pad;
    _Atomic uint64_t calls[ASGST_EP__COUNT][KNOB_CTX];
    _Atomic uint64_t planted[ASGST_EP__COUNT][KNOB_CTX];
};

struct knob_spec {
    int ep, ctx, hang;
    unsigned long every, max;
    _Atomic unsigned long seen, fired;
};

static struct knob_spec knob_specs[KNOB_MAX_SPECS];
static int knob_nspecs;
static struct knob_log *knob_log_map;

/* Per thread: where the provider is in its own call graph. A callback is
 * known by the frame that runs it (knob_run_callback): it is live while
 * that frame (its address and return address: another frame may reuse the
 * address) is on the current frame-pointer chain. A guard's jump out of the
 * callback abandons the frame without a word. */
static __thread uintptr_t knob_callback_frame, knob_callback_ra;
static __thread int knob_in_queue, knob_in_processing, knob_in_mark, knob_in_unload;

#define KNOB_EP_NAME(name, optional) #name,
static const char *const knob_ep_names[ASGST_EP__COUNT] = {ASGST_ENTRY_POINTS(KNOB_EP_NAME)};
#undef KNOB_EP_NAME

static int knob_lookup(const char *s, size_t n, const char *const *names, int count)
{
    if (n == 1 && *s == '*') return -1;
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == n && !strncmp(names[i], s, n)) return i;
    return -2;
}

static const char *knob_var = "ASGF_FAKE_FAULT"; /* the variable being read, for messages */

static void knob_die(const char *spec, const char *why)
{
    fprintf(stderr, "fake provider: %s: %s in \"%s\"\n", knob_var, why, spec);
    exit(2);
}

/* One spec per entry and context: a * stands for each in turn, so that
 * every pair keeps its own count. */
static void knob_parse_one(const char *spec, int hang)
{
    const char *at = strchr(spec, '@'), *colon = at ? strchr(at, ':') : NULL;
    if (!at || !colon) knob_die(spec, "expected ENTRY@CONTEXT:N[:MAX]");
    int ep = knob_lookup(spec, (size_t)(at - spec), knob_ep_names, ASGST_EP__COUNT);
    if (ep == -2) knob_die(spec, "unknown entry point");
    int ctx = knob_lookup(at + 1, (size_t)(colon - at - 1), knob_ctx_names, KNOB_CTX);
    if (ctx == -2) knob_die(spec, "unknown context");
    char *end;
    unsigned long every = strtoul(colon + 1, &end, 10), max = 0;
    if (!every) knob_die(spec, "N must be a number >= 1");
    if (*end == ':') max = strtoul(end + 1, &end, 10);
    if (*end) knob_die(spec, "trailing characters");
    for (int e = ep < 0 ? 0 : ep; e < (ep < 0 ? ASGST_EP__COUNT : ep + 1); e++)
        for (int c = ctx < 0 ? 0 : ctx; c < (ctx < 0 ? KNOB_CTX : ctx + 1); c++) {
            if (knob_nspecs == KNOB_MAX_SPECS) knob_die(spec, "more specs than entries times contexts");
            struct knob_spec *k = &knob_specs[knob_nspecs++];
            k->ep = e, k->ctx = c, k->every = every, k->max = max, k->hang = hang;
        }
}

static void knob_open_log(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, sizeof(struct knob_log)) < 0) knob_die(path, "cannot open the log");
    void *p = mmap(NULL, sizeof(struct knob_log), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) knob_die(path, "cannot map the log");
    knob_log_map = p;
    knob_log_map->magic = KNOB_LOG_MAGIC, knob_log_map->entries = ASGST_EP__COUNT;
    knob_log_map->contexts = KNOB_CTX;
}

static void knob_parse_var(const char *var, int hang)
{
    const char *spec = getenv(var);
    if (!spec || !*spec) return;
    knob_var = var;
    char buf[4096];
    if (strlen(spec) >= sizeof buf) knob_die(spec, "too long");
    strcpy(buf, spec);
    for (char *save, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) knob_parse_one(s, hang);
}

__attribute__((constructor)) static void knob_read_env(void)
{
    const char *log = getenv("ASGF_FAKE_FAULT_LOG");
    if (log && *log) knob_open_log(log);
    knob_parse_var("ASGF_FAKE_FAULT", 0);
    knob_parse_var("ASGF_FAKE_HANG", 1);
}

/* [handler-safe] Reads n bytes at addr, or says it cannot: a broken frame
 * chain can hand us any value. */
static int knob_read(uintptr_t addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    return syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL) == (long)n;
}

/* [handler-safe] Whether ra is a signal handler's return address: the
 * kernel makes the handler return into the C library's sigreturn
 * trampoline, known by its two instructions whatever its symbol. */
static int knob_is_sigreturn(uintptr_t ra)
{
#if defined(__x86_64__)
    static const unsigned char code[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05}; /* mov $15,%rax; syscall */
#elif defined(__aarch64__)
    static const unsigned char code[] = {0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4}; /* mov x8,#139; svc #0 */
#endif
    unsigned char got[sizeof code];
    return knob_read(ra, got, sizeof got) && !memcmp(got, code, sizeof code);
}

/* [handler-safe] Whether a signal handler is below us on this stack: a
 * frame up the frame-pointer chain returns into the sigreturn trampoline.
 * (A thread that merely keeps the signal blocked, like a sampler, is not in
 * a handler.) */
static int knob_in_signal(void)
{
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0), link[2];
    for (int i = 0; i < 64 && fp && !(fp & 7) && knob_read(fp, link, sizeof link); i++) {
        if (knob_is_sigreturn(link[1])) return 1;
        if (link[0] <= fp || link[0] - fp > (1u << 20)) break;
        fp = link[0];
    }
    return 0;
}

/* [handler-safe] Whether this call runs inside a live callback. */
static int knob_in_callback(void)
{
    uintptr_t want = knob_callback_frame, fp = (uintptr_t)__builtin_frame_address(0), link[2];
    for (int i = 0; want && i < 256 && fp && fp <= want && knob_read(fp, link, sizeof link); i++) {
        if (fp == want) {
            if (link[1] == knob_callback_ra) return 1;
            break;
        }
        if (link[0] <= fp) break;
        fp = link[0];
    }
    knob_callback_frame = 0; /* abandoned */
    return 0;
}

/* [handler-safe] Runs a walk's callback, known to the knob as one. */
__attribute__((noinline)) static void knob_run_callback(ASGST_IteratorHandler fun, ASGST_Iterator *it, void *arg)
{
    uintptr_t outer = knob_callback_frame, outer_ra = knob_callback_ra;
    knob_callback_frame = (uintptr_t)__builtin_frame_address(0);
    knob_callback_ra = (uintptr_t)__builtin_return_address(0);
    fun(it, arg);
    __asm__ volatile("" ::: "memory");
    knob_callback_frame = outer, knob_callback_ra = outer_ra;
}

/* [handler-safe] The contexts of this call, as a bit set. iter_flags: the
 * iterator's own (rewound, failed, ended), 0 for calls without one. */
static unsigned knob_contexts(unsigned iter_flags)
{
    unsigned c = iter_flags;
    if (knob_in_callback()) c |= 1u << KC_CALLBACK;
    if (knob_in_queue) c |= 1u << KC_QUEUE;
    if (knob_in_processing) c |= 1u << KC_PROCESSING;
    if (knob_in_mark) c |= 1u << KC_MARK;
    if (knob_in_unload) c |= 1u << KC_UNLOAD;
    if (knob_in_signal()) c |= 1u << KC_SIGNAL;
    if (!(c & (1u << KC_SIGNAL | 1u << KC_QUEUE | 1u << KC_PROCESSING | 1u << KC_MARK | 1u << KC_UNLOAD)))
        c |= 1u << KC_THREAD;
    return c;
}

/* [handler-safe] The planted bug: its own function, so that every fault it
 * makes has the same top frame and a crash record says it is ours. */
__attribute__((noinline)) static void knob_fault(unsigned long addr)
{
    *(volatile int *)addr = 1;
    __asm__ volatile("" ::: "memory"); /* a call, not a jump: the caller stays in the backtrace */
}

/* [handler-safe] The planted hang: sleeps for good, in naps, so that only
 * a kill ends it (and the machine stays free for the rest of the test). */
__attribute__((noinline)) static void knob_hang(void)
{
    for (;;) {
        struct timespec nap = {0, 10000000L};
        nanosleep(&nap, NULL);
    }
}

/* [handler-safe] Whether spec k may fault once more, counting the fault.
 * With a log, MAX holds across every process and run that shares it (an
 * AFL++ child, the next round of a test), so a pair that faulted once is
 * left alone and the calls behind it get their turn. */
static int knob_take(struct knob_spec *k, _Atomic uint64_t *logged)
{
    if (!knob_log_map) return !k->max || atomic_fetch_add(&k->fired, 1) < k->max;
    uint64_t n = atomic_load(logged);
    do {
        if (k->max && n >= k->max) return 0;
    } while (!atomic_compare_exchange_weak(logged, &n, n + 1));
    return 1;
}

/* [handler-safe] Called first thing in every entry point: counts the call
 * and, if a spec says so, faults at the address that names entry and context. */
static void knob_hit(int ep, unsigned iter_flags)
{
    if (!knob_nspecs && !knob_log_map) return;
    unsigned ctx = knob_contexts(iter_flags);
    if (knob_log_map)
        for (int c = 0; c < KNOB_CTX; c++)
            if (ctx & (1u << c)) atomic_fetch_add(&knob_log_map->calls[ep][c], 1);
    for (int i = 0; i < knob_nspecs; i++) {
        struct knob_spec *k = &knob_specs[i];
        if (k->ep != ep || !(ctx & (1u << k->ctx))) continue;
        if ((atomic_fetch_add(&k->seen, 1) + 1) % k->every) continue;
        if (!knob_take(k, knob_log_map ? &knob_log_map->planted[ep][k->ctx] : NULL)) continue;
        if (k->hang) knob_hang();
        knob_fault(KNOB_ADDR_BASE + 8UL * (unsigned long)(ep * KNOB_CTX + k->ctx));
    }
}

/* [handler-safe] A walk entry's own flags: nested inside a callback? */
static unsigned knob_walk_flags(void) { return knob_in_callback() ? 1u << KC_NESTED : 0; }

#define KNOB(name) knob_hit(ASGST_EP_##name, 0)
#define KNOB_ITER(name, it) knob_hit(ASGST_EP_##name, (it) ? (it)->knob_flags : 0)

#endif
