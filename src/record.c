/* Crash record writer (see record.h and docs/crash-record.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h> /* rename(2), async-signal-safe; fopen only in the record_note_ functions */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "arch.h"
#include "fnv.h"
#include "record.h"
#include "regions.h"
#include "sigsafe.h"

/* [handler-safe] The part of this thread's stack that is surely readable:
 * from this frame up to the stack's top (a guard zone is always below the
 * frames in use). lo == hi when the thread is not registered or the handler
 * runs on another stack. */
static __attribute__((noinline)) void live_stack(uintptr_t *lo, uintptr_t *hi)
{
    char here_;
    uintptr_t here = (uintptr_t)&here_;
    const struct thread_info *t = threads_find(threads_gettid());
    *lo = *hi = 0;
    if (t && t->stack_hi && here >= t->stack_lo && here < t->stack_hi) *lo = here, *hi = t->stack_hi;
}

/* [handler-safe] A frame link on the live stack. Not instrumented: in an
 * ASan build a corrupt chain may point into a redzone of some live frame,
 * which is readable memory all the same. */
__attribute__((no_sanitize_address)) static void read_link(uintptr_t fp, uintptr_t link[2])
{
    const volatile uintptr_t *p = (const volatile uintptr_t *)fp;
    link[0] = p[0], link[1] = p[1];
}

int record_backtrace(ucontext_t *uc, uintptr_t *pcs, int max)
{
    int n = 0;
    if (max <= 0) return 0;
    pcs[n++] = (uintptr_t)*arch_reg_slot(uc, ARCH_REG_PC);
    uintptr_t fp = (uintptr_t)*arch_reg_slot(uc, ARCH_REG_FP), lo, hi;
    /* Links on the live stack are read directly; anything else through
     * sigsafe_read, a syscall (about 1.8 us each here: most of what a
     * fault cost the fuzzers before). */
    live_stack(&lo, &hi);
    while (n < max && fp && !(fp & 7)) {
        uintptr_t link[2]; /* saved fp, return address: same layout on x86_64 and aarch64 */
        if (fp >= lo && fp < hi && hi - fp >= sizeof link) read_link(fp, link);
        else if (sigsafe_read(fp, link, sizeof link)) break;
        if (!link[1]) break;
        pcs[n++] = link[1];
        /* Frames grow toward higher addresses; anything else is a broken chain. */
        if (link[0] <= fp || link[0] - fp > (1u << 20)) break;
        fp = link[0];
    }
    return n;
}

static void frame_line(struct sbuf *b, const char *key, int index, uintptr_t pc)
{
    uintptr_t off = 0;
    const char *module = regions_module_of(pc, &off);
    sb_str(b, key);
    if (index >= 0) {
        sb_dec(b, index);
        sb_chr(b, ' ');
    }
    sb_hex(b, pc, 16);
    sb_chr(b, ' ');
    if (module) {
        sb_str(b, module);
        sb_chr(b, '+');
        sb_hex(b, off, 0);
    } else {
        sb_chr(b, '?');
    }
    sb_chr(b, '\n');
}

static const char *or_unknown(const char *s) { return s ? s : "?"; }

/* [handler-safe] One `build_id:` line for each module the backtrace names,
 * at most 8: the offsets belong to that build, and triage must not name
 * them from another one rebuilt at the same path since. Written after the
 * case, and only while `reserve` bytes stay free: a record that would not
 * fit is not written at all, and these lines are the part it can spare. */
static void build_id_lines(struct sbuf *b, const uintptr_t *pcs, int n, size_t reserve)
{
    const char *seen[8];
    int k = 0;
    for (int i = 0; i < n && k < 8; i++) {
        uintptr_t off = 0;
        const char *id, *module = regions_module_and_id(pcs[i], &off, &id);
        int dup = !module || !id;
        for (int j = 0; j < k && !dup; j++) dup = !strcmp(seen[j], module);
        if (dup) continue;
        seen[k++] = module;
        if (b->len + strlen(module) + strlen(id) + 12 + reserve >= b->cap) return;
        sb_str(b, "build_id: ");
        sb_str(b, module);
        sb_chr(b, ' ');
        sb_str(b, id);
        sb_chr(b, '\n');
    }
}

/* [handler-safe] A forged stack copy's header line and its forged words:
 * those that differ from the live stack the copy was taken from
 * (relocation aside), at most 48, each with the module it points into. The
 * live words are still there: the faulting thread is the copied one, in its
 * handler, below the copied frames. Not instrumented, as read_link: the
 * live words include other frames' redzones in an ASan build. */
__attribute__((no_sanitize_address)) static void image_lines(struct sbuf *b, const struct guard_call *c)
{
    uintptr_t copy = (uintptr_t)c->image, real = c->image_real_sp, delta = real - copy;
    sb_str(b, "image: copy ");
    sb_hex(b, copy, 16);
    sb_str(b, " sp ");
    sb_hex(b, real, 16);
    sb_str(b, " bytes ");
    sb_dec(b, (long long)c->image_len);
    sb_chr(b, '\n');
    const uint64_t *live = (const uint64_t *)real;
    int shown = 0;
    for (size_t i = 0; i < c->image_len / 8 && shown < 48; i++) {
        uint64_t was = live[i];
        if (was >= real && was < real + c->image_len) was -= delta;
        if (c->image[i] == was) continue;
        shown++;
        frame_line(b, "image_word: ", (int)(i * 8), (uintptr_t)c->image[i]);
    }
}

static _Atomic long per_key_limit = RECORD_PER_KEY_DEFAULT;
static _Atomic long total_limit = RECORD_TOTAL_DEFAULT;
static _Atomic unsigned record_seq;
static _Atomic int cap_said;

void record_set_limits(long per_key, long total)
{
    if (per_key >= 0) atomic_store(&per_key_limit, per_key);
    if (total >= 0) atomic_store(&total_limit, total);
}

/* [handler-safe] FNV-1a over the signal and each pc's module and offset;
 * a pc in no file mapping (JIT code, stubs) adds only a marker, as its
 * address differs from run to run. */
static uint64_t fault_key(int sig, const uintptr_t *pcs, int n)
{
    uint64_t h = FNV1A_BASIS;
#define MIX(byte) (h = fnv1a_byte(h, (uint8_t)(byte)))
    MIX(sig);
    for (int i = 0; i < n && i < RECORD_KEY_FRAMES; i++) {
        uintptr_t off = 0;
        const char *m = regions_module_of(pcs[i], &off);
        if (!m) {
            MIX('?');
            continue;
        }
        for (const char *c = m; *c; c++) MIX(*c);
        for (int k = 0; k < 8; k++) MIX(off >> (8 * k));
    }
#undef MIX
    return h;
}

/* [handler-safe] 16 lower-case hex digits, no 0x: the key as file names show it. */
void record_key_text(struct sbuf *b, uint64_t key)
{
    uint8_t be[8];
    for (int i = 0; i < 8; i++) be[i] = (uint8_t)(key >> (56 - 8 * i));
    sb_hexbytes(b, be, sizeof be);
}

/* Set once a write in the record directory failed for want of space: from
 * then on faults are counted in memory (guard statistics) and nothing more is
 * written there, so a full disk costs records, never the process. */
static _Atomic int out_of_space;

/* [handler-safe] A write error in dir: ENOSPC/EDQUOT/EFBIG switch to counting
 * only, with one line on stderr naming the directory; other errors are left
 * to the caller's RECORD_FAILED. */
static void write_failed(const char *dir, int err)
{
    if (err != ENOSPC && err != EDQUOT && err != EFBIG) return;
    if (atomic_exchange(&out_of_space, 1)) return;
    char msg[400];
    struct sbuf m = {msg, 0, sizeof msg};
    sb_str(&m, "asgst-fuzz: ");
    sb_str(&m, dir);
    sb_str(&m, ": no space left on device writing crash records; from now on faults are "
               "only counted (faults in summary.json), not written\n");
    sigsafe_write_all(2, m.p, m.len);
}

int record_out_of_space(void) { return atomic_load(&out_of_space); }

/* [handler-safe] write(2) all of it; 0, or -1 with errno (a short write that
 * makes no progress is ENOSPC, as the kernel reports it on the next call). */
static int write_full(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Count files this process keeps open. A campaign's faults mostly repeat a
 * few keys past their record cap, so counting is most of what a fault costs:
 * opening and closing the file each time made record_fault take 23 us on
 * average (measured here, libFuzzer job on 17.0.21), several times the
 * fault's own delivery. The pid is part of an entry's identity, so a forked
 * child (the AFL++ fork server's) opens its own descriptions instead of
 * sharing the parent's file offsets. Full or contended: open per call. */
#define COUNT_FDS 64
static struct {
    _Atomic uint64_t id; /* hash of path and pid; 0: free */
    _Atomic int fd1;     /* the fd + 1; 0 while the claiming thread opens it */
} count_fds[COUNT_FDS];

/* [handler-safe] */
static int count_open(const char *path) { return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644); }

/* [handler-safe] An fd appending to path; *keep is set when it is cached
 * (the caller must not close it). */
static int count_fd(const char *path, int *keep)
{
    int pid = getpid();
    uint64_t id = fnv1a(FNV1A_BASIS ^ (uint64_t)pid, path, strlen(path)) | 1;
    *keep = 0;
    for (unsigned k = 0; k < 8; k++) {
        unsigned i = (unsigned)((id + k) % COUNT_FDS);
        uint64_t v = atomic_load(&count_fds[i].id);
        int claimed = v == 0 && atomic_compare_exchange_strong(&count_fds[i].id, &v, id);
        if (!claimed) { /* v: the slot's id now, perhaps just claimed for this path by another thread */
            if (v != id) continue;
            int fd1 = atomic_load(&count_fds[i].fd1);
            if (!fd1) break; /* it is still opening it */
            *keep = 1;
            return fd1 - 1;
        }
        int fd = count_open(path);
        if (fd < 0) {
            atomic_store(&count_fds[i].id, 0);
            return -1;
        }
        atomic_store(&count_fds[i].fd1, fd + 1);
        *keep = 1;
        return fd;
    }
    return count_open(path);
}

/* [handler-safe] Appends one line to dir/name; returns the file's length in
 * lines after the append (this caller's number), or -1. Threads of one
 * process appending to one file at once may read a later length than their
 * own: a cap then admits fewer records, never more. A kept fd whose write
 * fails is not closed (another thread may be using it); the append is tried
 * once more on a fd of its own, as before files were kept open. */
static long count_append(const char *dir, const char *name, uint64_t key, int with_key)
{
    char path[320];
    struct sbuf p = {path, 0, sizeof path};
    sb_str(&p, dir);
    sb_str(&p, name);
    if (with_key) {
        record_key_text(&p, key);
        sb_str(&p, ".txt");
    }
    if (p.len + 1 >= p.cap) return -1;
    int keep, fd = count_fd(path, &keep);
    if (keep && write_full(fd, "\n", 1) == 0) return (long)lseek(fd, 0, SEEK_CUR);
    if (keep) fd = count_open(path);
    if (fd < 0) return -1;
    long n = -1;
    if (write_full(fd, "\n", 1) == 0) n = (long)lseek(fd, 0, SEEK_CUR);
    else write_failed(dir, errno);
    close(fd);
    return n;
}

static int record_write(const struct record_info *ri, unsigned seq, uint64_t key, const uintptr_t *pcs, int n);

/* Faults recorded by this process, by hash of key and case bytes: the same
 * case faulting the same way again is counted, not recorded again. */
#define SEEN_SLOTS 8192
static _Atomic uint64_t seen[SEEN_SLOTS];

/* [handler-safe] 1 if (key, case) was recorded before; else remembers it. */
static int seen_before(uint64_t key, const struct guard_call *c)
{
    uint64_t h = key;
    if (c && c->case_bytes) h = fnv1a(h, c->case_bytes, c->case_len);
    h |= 1; /* 0 marks a free slot */
    for (unsigned k = 0; k < 64; k++) {
        _Atomic uint64_t *slot = &seen[(h + k) % SEEN_SLOTS];
        uint64_t v = atomic_load(slot);
        if (v == h) return 1;
        if (v == 0 && atomic_compare_exchange_strong(slot, &v, h)) return 0;
        if (v == h) return 1;
    }
    return 0; /* table crowded: record anyway */
}

/* The first fault caught inside a state-changing VM call: "OP KEY". Claimed
 * once (1), readable once written (2); a fault on another thread meanwhile
 * sees 1 and writes its record untainted, which errs on the quiet side. */
static char taint_text[96];
static _Atomic int taint_state;

/* [handler-safe] dir/tainted-PID.txt of this process into path (len
 * bytes); 0, or -1 if it does not fit. */
static int taint_path(const char *dir, char *path, size_t len)
{
    struct sbuf p = {path, 0, len};
    sb_str(&p, dir);
    sb_str(&p, "/tainted-");
    sb_dec(&p, getpid());
    sb_str(&p, ".txt");
    return p.len + 1 < p.cap ? 0 : -1;
}

/* [handler-safe] Keeps the first taint, and writes it to dir/tainted-PID.txt
 * for the report the VM may write later (an hs_err file has no record's
 * lines; triage pairs the two by pid). */
static void taint(const char *dir, const char *op, uint64_t key)
{
    int none = 0;
    if (!op || !atomic_compare_exchange_strong(&taint_state, &none, 1)) return;
    struct sbuf t = {taint_text, 0, sizeof taint_text - 17}; /* the name is cut, the key never */
    sb_str(&t, op);
    t.cap = sizeof taint_text;
    sb_chr(&t, ' ');
    record_key_text(&t, key);
    atomic_store(&taint_state, 2);
    if (atomic_load(&out_of_space)) return; /* nothing more is written there */
    char path[512];
    if (taint_path(dir, path, sizeof path)) return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (write_full(fd, taint_text, t.len) == 0) write_full(fd, "\n", 1);
    close(fd);
}

void record_forget_taint(const char *dir)
{
    char path[512];
    if (!taint_path(dir, path, sizeof path)) unlink(path);
}

/* [handler-safe] Counts the fault and writes its record when under the caps. */
static enum record_result count_and_write(const struct record_info *ri, uint64_t key, const uintptr_t *pcs, int n)
{
    if (atomic_load(&out_of_space)) return RECORD_FAILED;
    long nth = count_append(ri->dir, "/faults-", key, 1);
    if (nth < 0 && atomic_load(&out_of_space)) return RECORD_FAILED;
    if (nth > atomic_load(&per_key_limit) || seen_before(key, ri->call)) return RECORD_COUNTED;
    long total = count_append(ri->dir, "/records-written.txt", 0, 0);
    if (total > atomic_load(&total_limit)) {
        if (!atomic_exchange(&cap_said, 1)) {
            static const char msg[] = "asgst-fuzz: the record cap for this directory is reached; "
                                      "later faults are only counted (faults-*.txt)\n";
            sigsafe_write_all(2, msg, sizeof msg - 1);
        }
        return RECORD_COUNTED;
    }
    return record_write(ri, atomic_fetch_add(&record_seq, 1), key, pcs, n) ? RECORD_FAILED : RECORD_WRITTEN;
}

enum record_result record_fault(const struct record_info *ri)
{
    uintptr_t pcs[RECORD_MAX_FRAMES];
    int n = record_backtrace(ri->uc, pcs, RECORD_MAX_FRAMES);
    uint64_t key = fault_key(ri->sig, pcs, n);
    ri->path_out[0] = 0;
    enum record_result r = count_and_write(ri, key, pcs, n);
    taint(ri->dir, ri->state_op, key); /* after: its own record names an earlier taint only */
    return r;
}

static char sysroot[256];

void record_read_env(void)
{
    const char *r = getenv("ASGF_SYSROOT");
    if (r && *r == '/' && strlen(r) < sizeof sysroot) memcpy(sysroot, r, strlen(r) + 1);
}

int record_note_sysroot(const char *dir)
{
    if (!dir) return 0;
    record_read_env();
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/sysroot", dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!sysroot[0]) {
        /* A reused directory may hold one from a run in a root: this run's hs_err
         * files are not from there. */
        return unlink(path) && errno != ENOENT ? -1 : 0;
    }
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "%s\n", sysroot);
    return fclose(f) ? -1 : 0;
}

static int path_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* 1 if the file at `path` holds exactly len bytes of text. */
static int file_holds(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int same = 1;
    char buf[4096];
    size_t at = 0, got;
    while (same && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + got <= len && !memcmp(buf, text + at, got);
        at += got;
    }
    fclose(f);
    return same && at == len;
}

struct lib_list {
    char **lines;
    size_t n, room, len;
    int failed;
};

/* One line a shared object: its path, and the build-id of the loaded object
 * after a tab when the loader has one. A file deleted since it was mapped is
 * not the module on disk now. */
static void add_library(const char *path, const char *build_id, void *arg)
{
    struct lib_list *l = arg;
    const char *base = strrchr(path, '/');
    if (l->failed || !base || !strstr(base, ".so") || strstr(path, " (deleted)")) return;
    if (l->n == l->room) {
        char **more = realloc(l->lines, (l->room = l->room ? 2 * l->room : 64) * sizeof *l->lines);
        if (!more) {
            l->failed = 1;
            return;
        }
        l->lines = more;
    }
    size_t k = strlen(path), b = build_id ? strlen(build_id) : 0;
    char *line = malloc(k + (b ? b + 1 : 0) + 1);
    if (!line) {
        l->failed = 1;
        return;
    }
    memcpy(line, path, k);
    if (b) line[k] = '\t', memcpy(line + k + 1, build_id, b), k += b + 1;
    line[k] = 0;
    l->lines[l->n++] = line, l->len += k + 1;
}

int record_note_libraries(const char *dir)
{
    if (!dir) return 0;
    char path[4096], tmp[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/libraries", dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* The maps as they are now, each object with the build-id it was loaded
     * with: a VM rebuilt at the same path before triage reads an hs_err has
     * other code at its offsets (triage then does not name them from it). */
    errno = 0;
    if (regions_refresh() < 0) return -1;
    struct lib_list l = {0};
    char *text = NULL;
    int rc = -1;
    if (regions_each_file(add_library, &l)) {
        /* More mappings than the snapshot holds: a list cut short is no list
         * (triage would take a module missing from it for one not loaded). */
        rc = unlink(path) && errno != ENOENT ? -1 : 0;
        goto out;
    }
    if (l.failed) goto out;
    if (l.n) qsort(l.lines, l.n, sizeof *l.lines, path_cmp);
    if (!(text = malloc(l.len + 1))) goto out;
    size_t len = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (i && !strcmp(l.lines[i], l.lines[i - 1])) continue;
        size_t k = strlen(l.lines[i]);
        memcpy(text + len, l.lines[i], k), text[len + k] = '\n', len += k + 1;
    }
    /* Unchanged (the next JVM of the same run in this directory): the file
     * keeps its time, which triage compares with the reports' own. */
    if (file_holds(path, text, len)) {
        rc = 0;
        goto out;
    }
    snprintf(tmp, sizeof tmp, "%s.%d~", path, (int)getpid()); /* a reader never sees half a list */
    FILE *f = fopen(tmp, "w");
    if (!f) goto out;
    int bad = fwrite(text, 1, len, f) != len;
    bad |= ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        int e = errno;
        unlink(tmp);
        errno = e;
        goto out;
    }
    rc = 0;
out:
    if (rc && !errno) errno = ENOMEM;
    int e = errno; /* what the caller reports, not what the clean-up left */
    for (size_t i = 0; i < l.n; i++) free(l.lines[i]);
    free(l.lines), free(text);
    errno = e;
    return rc;
}

void record_head(struct sbuf *b, int tid, const char *thread, const char *backend, const char *entry,
                 const char *mode)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    sb_str(b, "ASGF-RECORD 1\npid: ");
    sb_dec(b, getpid());
    sb_str(b, "\ntid: ");
    sb_dec(b, tid);
    sb_str(b, "\nthread: ");
    sb_str(b, or_unknown(thread));
    sb_str(b, "\ntime_ns: ");
    sb_dec(b, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    sb_str(b, "\nbackend: ");
    sb_str(b, or_unknown(backend));
    sb_str(b, "\nentry: ");
    sb_str(b, or_unknown(entry));
    sb_str(b, "\nmode: ");
    sb_str(b, or_unknown(mode));
    if (sysroot[0]) {
        sb_str(b, "\nsysroot: ");
        sb_str(b, sysroot);
    }
}

/* [handler-safe] Writes n bytes as path_out (a name in dir, dir_len long)
 * under a dot name first, renamed when whole: a reader never sees a partial
 * or empty record, and a failed write leaves nothing behind (path_out is
 * then cleared). 0 or -1. */
static int publish(const char *dir, size_t dir_len, char *path_out, const char *p, size_t n)
{
    char tmp[512];
    struct sbuf tp = {tmp, 0, sizeof tmp};
    sb_str(&tp, dir);
    sb_str(&tp, "/.");
    sb_str(&tp, path_out + dir_len + 1);
    sb_str(&tp, ".tmp");
    if (tp.len + 1 >= tp.cap) {
        path_out[0] = 0;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        write_failed(dir, errno);
        path_out[0] = 0;
        return -1;
    }
    int bad = write_full(fd, p, n);
    int err = errno;
    if (close(fd) && !bad) bad = -1, err = errno;
    if (bad || rename(tmp, path_out)) {
        if (!bad) err = errno;
        unlink(tmp);
        write_failed(dir, err);
        path_out[0] = 0;
        return -1;
    }
    return 0;
}

static int record_write(const struct record_info *ri, unsigned seq, uint64_t key, const uintptr_t *pcs, int n)
{
    struct sbuf b = {ri->buf, 0, ri->buf_len};
    int tid = threads_gettid();
    const struct thread_info *t = threads_find(tid);
    const struct guard_call *c = ri->call;
    record_head(&b, tid, t ? t->name : NULL, c ? c->backend : NULL, c ? c->entry : NULL, c ? c->mode : NULL);
    /* Another thread calling in on a held target: the queue calls are allowed
     * there, the iterator calls belong to the owning thread and are a misuse
     * the fuzzer tries on purpose. */
    if (c && c->mode && c->entry && !strcmp(c->mode, "thread")) {
        sb_str(&b, "\npath: ");
        sb_str(&b, !strcmp(c->entry, "enqueue") || !strcmp(c->entry, "get_enqueuable_element") ? "supported"
                                                                                               : "robustness");
    }
    sb_str(&b, "\nkey: ");
    record_key_text(&b, key);
    /* The framework's verdict, apart from anything the VM returned: the
     * prototype's own codes include -17 and -18, so a bare number could be
     * read either way. */
    sb_str(&b, "\noutcome: fault\nvm_last: ");
    if (c && c->last_vm && *c->last_vm != INT_MIN) sb_dec(&b, *c->last_vm);
    else sb_str(&b, "none");
    sb_str(&b, "\nsignal: ");
    sb_dec(&b, ri->sig);
    sb_chr(&b, ' ');
    sb_str(&b, sigsafe_signame(ri->sig));
    sb_str(&b, "\nsi_code: ");
    sb_dec(&b, ri->si->si_code);
    sb_str(&b, "\nsi_addr: ");
    sb_hex(&b, (uintptr_t)ri->si->si_addr, 16);
    sb_chr(&b, '\n');

    frame_line(&b, "pc: ", -1, pcs[0]);
    for (int i = 0; i < n; i++) frame_line(&b, "frame: ", i, pcs[i]);
    if (atomic_load(&taint_state) == 2) {
        sb_str(&b, "tainted: ");
        sb_str(&b, taint_text);
        sb_chr(&b, '\n');
    }
    if (c && c->image && c->image_len) image_lines(&b, c);
    sb_str(&b, "case: ");
    if (c && c->case_bytes) sb_hexbytes(&b, c->case_bytes, c->case_len);
    sb_chr(&b, '\n');
    build_id_lines(&b, pcs, n, sizeof "END\n");
    sb_str(&b, "END\n");

    struct sbuf path = {ri->path_out, 0, ri->path_len};
    sb_str(&path, ri->dir);
    size_t dir_len = path.len;
    sb_str(&path, "/record-");
    sb_dec(&path, getpid());
    sb_chr(&path, '-');
    sb_dec(&path, tid);
    sb_chr(&path, '-');
    sb_dec(&path, seq);
    sb_str(&path, ".txt");
    if (path.len + 1 >= path.cap || b.len + 1 >= b.cap) {
        ri->path_out[0] = 0;
        return -1;
    }
    return publish(ri->dir, dir_len, ri->path_out, b.p, b.len);
}

enum record_result record_text(const char *dir, uint64_t key, const char *text, size_t len,
                               char *path_out, size_t path_len)
{
    path_out[0] = 0;
    long nth = count_append(dir, "/faults-", key, 1);
    if (nth > atomic_load(&per_key_limit) || seen_before(key, NULL)) return RECORD_COUNTED;
    if (count_append(dir, "/records-written.txt", 0, 0) > atomic_load(&total_limit)) return RECORD_COUNTED;
    struct sbuf path = {path_out, 0, path_len};
    sb_str(&path, dir);
    sb_str(&path, "/record-");
    sb_dec(&path, getpid());
    sb_chr(&path, '-');
    sb_dec(&path, threads_gettid());
    sb_chr(&path, '-');
    sb_dec(&path, atomic_fetch_add(&record_seq, 1));
    sb_str(&path, ".txt");
    if (path.len + 1 >= path.cap) {
        path_out[0] = 0;
        return RECORD_FAILED;
    }
    return publish(dir, strlen(dir), path_out, text, len) ? RECORD_FAILED : RECORD_WRITTEN;
}
