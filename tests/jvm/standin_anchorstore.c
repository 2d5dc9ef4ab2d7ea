/*
 * A stand-in walker that stores into the walked thread's frames the way
 * HotSpot's does when it crosses an entry frame: it takes a slot of the
 * stack above the context's sp for a JavaFrameAnchor's pc word and, the
 * word being 0, fills it (JavaFrameAnchor::make_walkable) with the word below
 * the address in the anchor's sp word, the one before. Here the slot is the
 * first zero word from sp + 256 up whose previous word points to a readable
 * word that is neither 0 nor a code address (a Method*, an oop, a stack
 * slot), as when the anchor's address came from a forged stack.
 * It stores only when the context's pc is STANDIN_ENTRY_PC, so a case
 * chooses the store (tests/cases/live-store.txt). tests/live_store.t checks
 * that the live-frame watch (src/stack_watch.h) puts the word back and
 * writes a record. Preloaded, so api=asgst binds its two entry points.
 */
#include <stdint.h>
#include <string.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>
#include "asgst.h"

#define EXPORT __attribute__((visibility("default")))
#if defined(__x86_64__)
#define UC_PC(u) ((uintptr_t)(u)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(u) ((uintptr_t)(u)->uc_mcontext.gregs[REG_RSP])
#elif defined(__aarch64__)
#define UC_PC(u) ((uintptr_t)(u)->uc_mcontext.pc)
#define UC_SP(u) ((uintptr_t)(u)->uc_mcontext.sp)
#endif
#define STANDIN_ENTRY_PC 0xdead2000UL

/* The word at addr - 8, if readable, else 0. */
static uint64_t word_below(uint64_t addr)
{
    uint64_t v = 0;
    struct iovec local = {&v, sizeof v}, remote = {(void *)(uintptr_t)(addr - 8), sizeof v};
    if (addr < 4096 + 8 || addr & 7 || process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != sizeof v) return 0;
    return v;
}

/* The executable mappings, read once at the first walk with read(2) (handler-safe):
 * a code address filled in is counted by the watch but not recorded. */
static uint64_t exec_lo[256], exec_hi[256];
static _Atomic int n_exec = -1;

static uint64_t hex_at(const char **p)
{
    uint64_t v = 0;
    for (;; (*p)++) {
        int c = **p, d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return v;
        v = v * 16 + (uint64_t)d;
    }
}

static void read_exec_maps(void)
{
    static char buf[1 << 20];
    size_t len = 0;
    int fd = open("/proc/self/maps", O_RDONLY);
    for (ssize_t r; fd >= 0 && len < sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0;) len += (size_t)r;
    if (fd >= 0) close(fd);
    buf[len] = 0;
    int n = 0;
    for (const char *p = buf; *p && n < 256;) {
        uint64_t lo = hex_at(&p);
        if (*p++ != '-') break;
        uint64_t hi = hex_at(&p);
        if (p[0] == ' ' && p[1] && p[2] && p[3] == 'x') exec_lo[n] = lo, exec_hi[n++] = hi;
        while (*p && *p != '\n') p++;
        if (*p) p++;
    }
    n_exec = n;
}

/* Where the watch's view of this thread's frames ends: below glibc's
 * static TLS, as src/regions.c computes it on x86_64 (a store above it
 * would land in TLS, unwatched); elsewhere 8 KiB below the thread pointer. */
static uintptr_t frames_top(void)
{
    uintptr_t tp = (uintptr_t)pthread_self(), below = 8192;
#if defined(__x86_64__)
    void (*info)(size_t *, size_t *) = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
    const unsigned *descriptor = dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread");
    size_t size = 0, align = 1;
    if (info && descriptor) info(&size, &align);
    if (!align || align & (align - 1)) align = 1;
    size = (size + align - 1) & ~(align - 1);
    if (descriptor && size > *descriptor) below = size - *descriptor;
#endif
    return tp - below;
}

static int is_exec(uint64_t v)
{
    for (int i = 0; i < n_exec; i++)
        if (v >= exec_lo[i] && v < exec_hi[i]) return 1;
    return 0;
}

struct _ASGST_Iterator {
    int pos;
};

EXPORT int ASGST_RunWithIterator(void *ucontext, int32_t options, ASGST_IteratorHandler fun, void *arg)
{
    (void)options;
    ucontext_t *uc = ucontext;
    if (!uc) return ASGST_NO_FRAME;
    uintptr_t pc = UC_PC(uc), sp = UC_SP(uc);
    if (pc == STANDIN_ENTRY_PC && sp && !(sp & 7)) {
        if (n_exec < 0) read_exec_maps();
        volatile uint64_t *w = (volatile uint64_t *)(sp + 256);
        uintptr_t top = frames_top();
        for (int i = 1; i < 1024 && (uintptr_t)&w[i + 1] <= top; i++) {
            uint64_t v = w[i] ? 0 : word_below(w[i - 1]);
            if (v && !is_exec(v)) {
                w[i] = v;
                break;
            }
        }
    }
    struct _ASGST_Iterator it = {0};
    if (fun) fun(&it, arg);
    return ASGST_JAVA_TRACE;
}

EXPORT int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *f)
{
    if (!it || it->pos++) return 0;
    memset(f, 0, sizeof *f);
    f->type = ASGST_FRAME_NON_JAVA, f->comp_level = -1, f->bci = -1;
    return 1;
}
