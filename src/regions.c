/* /proc/self/maps snapshot and thread registry (see regions.h). */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "case.h"
#include "elf_note.h"
#include "regions.h"
#include "sigsafe.h"

#define MAX_MAPS 4096
#define POOL_SIZE (128 * 1024)

struct map {
    uintptr_t lo, hi, file_off;
    uint32_t path; /* offset into pool; 0 = anonymous */
    uint32_t build_id; /* offset into pool of the loaded object's GNU build-id in hex; 0 = none known */
    uint8_t prot;  /* 1 r, 2 w, 4 x */
    uint8_t named; /* a file or [vdso], [stack]; large pages, shared memory, [anon:...] are not */
};

struct snapshot {
    int n;
    int partial; /* maps or paths left out: more than MAX_MAPS, or POOL_SIZE of paths */
    struct map m[MAX_MAPS];
    char pool[POOL_SIZE];
    uintptr_t code_lo, code_hi, jvm_lo, jvm_hi, heap_lo, heap_hi, hole_lo, hole_hi;
    uintptr_t poll_lo, poll_hi;
};

static struct snapshot snaps[2];
static _Atomic int active = -1;
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uintptr_t heap_hint, code_hint;

/* [handler-safe] */
static const struct snapshot *current(void)
{
    int i = atomic_load_explicit(&active, memory_order_acquire);
    return i < 0 ? NULL : &snaps[i];
}

/* The code cache is one reservation: its committed segments (non-nmethods,
 * profiled, non-profiled) are executable anonymous mappings with the
 * reserved rest between them, adjacent and anonymous too. Its span is the
 * executable part of a run of adjacent anonymous mappings: the one holding
 * a known code address (regions_set_code_hint), else the largest such span
 * of the process. A span bridging gaps instead took in the libraries mapped
 * between the code cache and [vdso], libjvm among them, so a thread stopped
 * in the VM looked as if stopped in Java code. */
static void find_code_cache(struct snapshot *s)
{
    uintptr_t run_lo = 0, run_hi = 0, prev_hi = 0, hint = atomic_load(&code_hint);
    int hinted = 0;
    for (int i = 0; i <= s->n; i++) {
        const struct map *m = i < s->n ? &s->m[i] : NULL;
        int anon = m && !m->named;
        if (!anon || m->lo != prev_hi) {
            int has_hint = hint && hint >= run_lo && hint < run_hi;
            if (!hinted && (has_hint || run_hi - run_lo > s->code_hi - s->code_lo))
                s->code_lo = run_lo, s->code_hi = run_hi, hinted = has_hint;
            run_lo = run_hi = 0;
        }
        prev_hi = anon ? m->hi : 0;
        if (anon && (m->prot & 4)) {
            if (!run_lo) run_lo = m->lo;
            run_hi = m->hi;
        }
    }
}

static void classify(struct snapshot *s)
{
    uintptr_t hint = atomic_load(&heap_hint);
    size_t biggest_rw = 0;
    s->code_lo = s->code_hi = s->jvm_lo = s->jvm_hi = s->heap_lo = s->heap_hi = 0;
    s->hole_lo = s->hole_hi = s->poll_lo = s->poll_hi = 0;
    long page = sysconf(_SC_PAGESIZE);
    find_code_cache(s);
    for (int i = 0; i < s->n; i++) {
        struct map *m = &s->m[i];
        const char *path = s->pool + m->path;
        size_t len = m->hi - m->lo;
        /* All of libjvm's executable mappings: walker coverage's
         * breakpoints split its text into several. */
        if ((m->prot & 4) && m->path && strstr(path, "/libjvm.so")) {
            if (!s->jvm_lo) s->jvm_lo = m->lo;
            s->jvm_hi = m->hi;
        }
        if (hint && hint >= m->lo && hint < m->hi) s->heap_lo = m->lo, s->heap_hi = m->hi, biggest_rw = (size_t)-1;
        if (!hint && m->prot == 3 && !m->named && len > biggest_rw) {
            biggest_rw = len;
            s->heap_lo = m->lo, s->heap_hi = m->hi;
        }
        /* HotSpot reserves its safepoint poll as two anonymous pages, the
         * armed one inaccessible and the disarmed one read-only; no other
         * mapping of a JVM seen here has that shape (17 and 25). */
        if (!s->poll_lo && !m->named && m->prot == 0 && len == (size_t)page && i + 1 < s->n &&
            s->m[i + 1].lo == m->hi && !s->m[i + 1].named && s->m[i + 1].prot == 1 &&
            s->m[i + 1].hi - s->m[i + 1].lo == (size_t)page)
            s->poll_lo = m->lo, s->poll_hi = m->hi;
        /* A hole of at least 1 GiB below the stacks: addresses no one maps. */
        if (i + 1 < s->n && !s->hole_lo && s->m[i + 1].lo - m->hi >= (1UL << 30))
            s->hole_lo = m->hi + (1UL << 20), s->hole_hi = s->m[i + 1].lo - (1UL << 20);
    }
}

static const struct map *find(const struct snapshot *s, uintptr_t addr);

struct id_walk {
    struct snapshot *s;
    size_t *pool_used;
    int maps_read, failed;
};

/* Whether a segment lies inside the file-backed part of one of the object's
 * loaded segments: a note that no PT_LOAD maps is not in memory. */
static int loaded(const struct dl_phdr_info *info, const ElfW(Phdr) *seg)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && seg->p_vaddr >= ph->p_vaddr &&
            seg->p_vaddr + seg->p_memsz <= ph->p_vaddr + ph->p_filesz)
            return 1;
    }
    return 0;
}

/* The GNU build-id note of a loaded object, as the loader mapped it: the
 * file on disk may since have been replaced by another build, and triage
 * must know which build the record's offsets belong to. Runs under the
 * loader's lock (dl_iterate_phdr), which keeps the object mapped while its
 * notes are read. Not handler-safe. */
static int note_build_ids(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct id_walk *w = arg;
    struct snapshot *s = w->s;
    char hex[2 * 64 + 1] = "";
    for (int i = 0; i < info->dlpi_phnum && !hex[0]; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE && loaded(info, ph))
            elf_note_build_id((const unsigned char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, ph->p_align, hex,
                              sizeof hex);
    }
    size_t hlen = strlen(hex);
    if (!hlen || *w->pool_used + hlen + 1 > POOL_SIZE) return 0;
    uint32_t id = (uint32_t)*w->pool_used;
    memcpy(s->pool + id, hex, hlen + 1);
    *w->pool_used += hlen + 1;
    /* Every file mapping inside the object's loaded segments is that object. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        const struct map *m = find(s, lo);
        for (int k = m ? (int)(m - s->m) : s->n; k < s->n && s->m[k].lo < hi; k++)
            if (s->m[k].path) s->m[k].build_id = id;
    }
    return 0;
}

/* Reads /proc/self/maps into the snapshot s. */
static int read_maps(struct snapshot *s, size_t *pool_used)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    s->partial = 0;
    while (fgets(line, sizeof line, f)) {
        if (s->n == MAX_MAPS) {
            s->partial = 1;
            break;
        }
        unsigned long lo, hi, off;
        char perms[8];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &lo, &hi, perms, &off, &path_at) < 4) continue;
        struct map *m = &s->m[s->n++];
        m->lo = lo, m->hi = hi, m->file_off = off, m->path = 0, m->build_id = 0, m->named = 0;
        m->prot = (uint8_t)((perms[0] == 'r') | (perms[1] == 'w') << 1 | (perms[2] == 'x') << 2);
        char *path = line + path_at;
        path[strcspn(path, "\n")] = 0;
        size_t plen = strlen(path);
        /* Large pages and shared memory are named but anonymous memory:
         * a code cache or heap on them is still one. */
        m->named = plen > 0 && strncmp(path, "/anon_hugepage", 14) && strncmp(path, "/SYSV", 5) &&
                   strncmp(path, "/memfd:", 7) && strncmp(path, "[anon:", 6);
        if (path[0] == '/' && *pool_used + plen + 1 <= POOL_SIZE) {
            memcpy(s->pool + *pool_used, path, plen + 1);
            m->path = (uint32_t)*pool_used;
            *pool_used += plen + 1;
        } else if (path[0] == '/') {
            s->partial = 1;
        }
    }
    fclose(f);
    return 0;
}

/* dl_iterate_phdr's first call reads the maps: the loader's lock, held for
 * the whole walk, keeps a dlclose and a dlopen at the same address from
 * falling between the maps and the build-ids paired with them. */
static int maps_then_ids(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct id_walk *w = arg;
    if (!w->maps_read) {
        w->maps_read = 1;
        if (read_maps(w->s, w->pool_used) < 0) return w->failed = 1;
    }
    return note_build_ids(info, size, arg);
}

int regions_refresh(void)
{
    pthread_mutex_lock(&refresh_lock);
    int cur = atomic_load(&active);
    struct snapshot *s = &snaps[cur == 0 ? 1 : 0];
    s->n = 0;
    size_t pool_used = 1; /* offset 0 is the empty string */
    s->pool[0] = 0;
    struct id_walk w = {s, &pool_used, 0, 0};
    dl_iterate_phdr(maps_then_ids, &w);
    if (!w.maps_read) w.failed = read_maps(s, &pool_used) < 0; /* no object at all: cannot happen in a process */
    if (w.failed) {
        pthread_mutex_unlock(&refresh_lock);
        return -1;
    }
    classify(s);
    atomic_store_explicit(&active, (int)(s - snaps), memory_order_release);
    int n = s->n;
    pthread_mutex_unlock(&refresh_lock);
    return n;
}

void regions_set_heap_hint(uintptr_t addr) { atomic_store(&heap_hint, addr); }

void regions_set_code_hint(uintptr_t addr) { atomic_store(&code_hint, addr); }

/* [handler-safe] */
static const struct map *find(const struct snapshot *s, uintptr_t addr)
{
    int lo = 0, hi = s->n - 1;
    if (hi >= MAX_MAPS) hi = MAX_MAPS - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const struct map *m = &s->m[mid];
        if (addr < m->lo) hi = mid - 1;
        else if (addr >= m->hi) lo = mid + 1;
        else return m;
    }
    return NULL;
}

const char *regions_module_and_id(uintptr_t addr, uintptr_t *offset, const char **build_id)
{
    const struct snapshot *s = current();
    if (build_id) *build_id = NULL;
    if (!s) return NULL;
    const struct map *m = find(s, addr);
    if (!m || !m->path || m->path >= POOL_SIZE) return NULL;
    *offset = addr - m->lo + m->file_off;
    if (build_id && m->build_id && m->build_id < POOL_SIZE) *build_id = s->pool + m->build_id;
    return s->pool + m->path;
}

const char *regions_module_of(uintptr_t addr, uintptr_t *offset) { return regions_module_and_id(addr, offset, NULL); }

int regions_each_file(void (*fn)(const char *path, const char *build_id, void *arg), void *arg)
{
    pthread_mutex_lock(&refresh_lock);
    const struct snapshot *s = current();
    for (int i = 0; s && i < s->n; i++) {
        const struct map *m = &s->m[i];
        if (!m->path || m->path >= POOL_SIZE) continue;
        fn(s->pool + m->path, m->build_id && m->build_id < POOL_SIZE ? s->pool + m->build_id : NULL, arg);
    }
    int whole = s && !s->partial;
    pthread_mutex_unlock(&refresh_lock);
    return whole ? 0 : -1;
}

int regions_in_libjvm(uintptr_t addr)
{
    const struct snapshot *s = current();
    return s && addr >= s->jvm_lo && addr < s->jvm_hi;
}

int regions_in_code_cache(uintptr_t addr)
{
    uintptr_t lo, hi;
    return regions_bounds(REGION_CODE_CACHE, &lo, &hi) && addr >= lo && addr < hi;
}

int regions_in_vm_code(uintptr_t addr) { return regions_in_libjvm(addr) || regions_in_code_cache(addr); }

int regions_poll_page(uintptr_t *lo, uintptr_t *hi)
{
    const struct snapshot *s = current();
    if (!s || !s->poll_lo) return 0;
    *lo = s->poll_lo, *hi = s->poll_hi;
    return 1;
}

int regions_in_poll_page(uintptr_t addr)
{
    const struct snapshot *s = current();
    return s && addr >= s->poll_lo && addr < s->poll_hi;
}

int regions_bounds(int region, uintptr_t *lo, uintptr_t *hi)
{
    const struct snapshot *s = current();
    if (!s) return 0;
    switch (region) {
    case REGION_CODE_CACHE: *lo = s->code_lo, *hi = s->code_hi; break;
    case REGION_LIBJVM_TEXT: *lo = s->jvm_lo, *hi = s->jvm_hi; break;
    case REGION_JAVA_HEAP: *lo = s->heap_lo, *hi = s->heap_hi; break;
    case REGION_UNMAPPED: *lo = s->hole_lo, *hi = s->hole_hi; break;
    default: return 0;
    }
    return *hi > *lo;
}

/* ---- thread registry ---- */

#define MAX_THREADS THREADS_MAX

static struct thread_info thread_table[MAX_THREADS];
/* The claim word of each slot: 0 never used (ends a probe), CLAIMED while
 * being filled, TOMBSTONE after unregistering (probes go on), else the tid. */
#define CLAIMED (-1)
#define TOMBSTONE (-2)
static _Atomic int thread_ids[MAX_THREADS];
static _Atomic int next_index;
static _Atomic int registered;
static __thread int cached_tid __attribute__((tls_model("initial-exec")));

int threads_gettid(void)
{
    if (!cached_tid) cached_tid = (int)syscall(SYS_gettid);
    return cached_tid;
}

static int add_tls_span(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS)
            *(size_t *)data += info->dlpi_phdr[i].p_memsz + info->dlpi_phdr[i].p_align;
    return 0;
}

/* Bytes below the thread pointer that glibc's per-thread data takes. On
 * x86_64 glibc says it: its static TLS size (the loaded objects' blocks and
 * the surplus kept for objects opened later), rounded to the block's
 * alignment as glibc lays it out, less the thread descriptor, which lies
 * above the pointer. Where it does not (or on aarch64, where the descriptor
 * lies below the pointer and static TLS above it), every loaded object's
 * TLS block is counted with 4 KiB for the surplus and the descriptor: a
 * guess that can be 2 KiB over, cutting a thread's oldest frames off the
 * watch, and redone per registration as objects opened later add TLS. An
 * rseq area that glibc put below the pointer is kept out too (the kernel
 * writes it). Asked at each thread's registration, not on a hot path. */
static uintptr_t static_tls_span(void)
{
    size_t span = 0;
#if defined(__x86_64__)
    void (*info)(size_t *, size_t *) = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
    const unsigned *descriptor = dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread");
    size_t size = 0, align = 1;
    if (info && descriptor) info(&size, &align);
    if (!align || align & (align - 1)) align = 1;
    size = (size + align - 1) & ~(align - 1);
    if (descriptor && size > *descriptor) span = size - *descriptor;
#endif
    if (!span) {
        dl_iterate_phdr(add_tls_span, &span);
        span += 4096;
    }
    const ptrdiff_t *rseq_offset = dlsym(RTLD_DEFAULT, "__rseq_offset");
    if (rseq_offset && *rseq_offset < 0 && (size_t)-*rseq_offset > span) span = (size_t)-*rseq_offset;
    return (uintptr_t)span;
}

int threads_register_self(const char *name, void *jni_env)
{
    int tid = threads_gettid();
    if (threads_find(tid)) return threads_find(tid)->index;
    for (int k = 0; k < MAX_THREADS; k++) {
        int i = (int)(((unsigned)tid + (unsigned)k) % MAX_THREADS), expected = 0, tomb = TOMBSTONE;
        if (!atomic_compare_exchange_strong(&thread_ids[i], &expected, CLAIMED) &&
            !atomic_compare_exchange_strong(&thread_ids[i], &tomb, CLAIMED))
            continue;
        struct thread_info *t = &thread_table[i];
        memset(t, 0, sizeof *t);
        pthread_attr_t attr;
        void *addr;
        size_t size;
        if (!pthread_getattr_np(pthread_self(), &attr)) {
            if (!pthread_attr_getstack(&attr, &addr, &size))
                t->stack_lo = (uintptr_t)addr, t->stack_hi = (uintptr_t)addr + size;
            pthread_attr_destroy(&attr);
        }
        uintptr_t tp = (uintptr_t)pthread_self(), span = static_tls_span();
        t->frames_hi = tp > t->stack_lo + span && tp < t->stack_hi ? (tp - span) & ~(uintptr_t)7 : t->stack_hi;
        t->jni_env = jni_env;
        t->index = atomic_fetch_add(&next_index, 1);
        snprintf(t->name, sizeof t->name, "%s", name ? name : "?");
        t->tid = tid;
        atomic_store(&thread_ids[i], tid);
        atomic_fetch_add(&registered, 1);
        return t->index;
    }
    return -1;
}

void threads_unregister_self(void)
{
    int tid = threads_gettid();
    for (int i = 0; i < MAX_THREADS; i++)
        if (atomic_load(&thread_ids[i]) == tid) {
            thread_table[i].tid = 0;
            atomic_store(&thread_ids[i], TOMBSTONE);
            atomic_fetch_sub(&registered, 1);
        }
}

const struct thread_info *threads_find(int tid)
{
    for (int k = 0; k < MAX_THREADS; k++) {
        int i = (int)(((unsigned)tid + (unsigned)k) % MAX_THREADS);
        int v = atomic_load(&thread_ids[i]);
        if (v == tid) return &thread_table[i];
        if (v == 0) return NULL; /* probing ends at a never-used or freed slot */
    }
    return NULL;
}

static const struct thread_info *nth(unsigned n, int skip_tid)
{
    int count = atomic_load(&registered) - (skip_tid && threads_find(skip_tid) ? 1 : 0);
    if (count <= 0) return NULL;
    unsigned want = n % (unsigned)count;
    for (int i = 0; i < MAX_THREADS; i++) {
        int v = atomic_load(&thread_ids[i]);
        if (v <= 0 || v == skip_tid) continue;
        if (want-- == 0) return &thread_table[i];
    }
    return NULL;
}

const struct thread_info *threads_other(int tid, unsigned n) { return nth(n, tid); }

int threads_slot(const struct thread_info *t) { return (int)(t - thread_table); }

int threads_list(int *tids, int max)
{
    int n = 0;
    for (int i = 0; i < MAX_THREADS && n < max; i++) {
        int v = atomic_load(&thread_ids[i]);
        if (v > 0) tids[n++] = v;
    }
    return n;
}
