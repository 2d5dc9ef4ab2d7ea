/* Walker coverage by one-shot breakpoints in libjvm (see walker_cov.h). */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch.h"
#include "elf_note.h"
#include "glob.h"
#include "walking.h"
#include "walker_cov.h"

#if defined(__x86_64__) && __has_include(<capstone/capstone.h>)
#define WCOV_SUPPORTED 1
#include <capstone/capstone.h>
#endif

#define MAX_BLOCKS (1 << 18)
#define MAX_FUNCS (1 << 15)
#define NAME_MAX_LEN 160

/* Armed blocks, sorted by address: the handler searches them. */
static uintptr_t *block_pc;
static uint32_t *block_fn;
static _Atomic uint8_t *block_hit;
static unsigned nblocks;
/* Functions: names and whether reached. */
static char (*fn_name)[NAME_MAX_LEN];
static unsigned nfuncs;
static _Atomic unsigned reached_blocks, reached_funcs;
/* Traps of threads not walking for us (walking.h: the VM's own, a GC,
 * deoptimization, its own stack walks) per block, at most REARM_MAX + 1: such a hit is not the
 * walk's, so the block is put back (wcov_rearm) for a walk to reach, up to
 * REARM_MAX times; a block the VM keeps running stays unarmed after that. */
#define REARM_MAX 4
static _Atomic uint8_t *block_vm;
/* First hits of walks in order, for wcov_take_new. */
static _Atomic uint32_t *order;
static _Atomic unsigned order_n;
static unsigned order_taken;
static uintptr_t jvm_base;
static char jvm_path[PATH_MAX];
static char not_armed[200] = "walker coverage: off";

#ifdef WCOV_SUPPORTED
static const struct {
    const char *pattern, *why;
} walker_patterns[] = {
#define WALKER_FN(p, w) {p, w},
#include "walker_functions.def"
#undef WALKER_FN
};

static uint8_t *block_orig;         /* the bytes the int3s replaced */
/* Blocks to arm again, from the handler to the one consumer (index + 1; 0:
 * the slot's writer has not stored it yet). */
#define REARM_RING 4096
static _Atomic uint32_t rearm_ring[REARM_RING];
static _Atomic unsigned rearm_head, rearm_tail;
static _Atomic int disarmed;
static _Atomic uint8_t *fn_hit;
static struct sigaction previous;
static _Atomic int started;

/* capstone, opened at run time by the soname it was built against: a JDK
 * run in another distribution's root (ci/install-jdk) may lack it, and the
 * agent must still load there. The build copies the library next to the
 * agent (build/lib), which a root sees at the same path. */
static struct {
    cs_err (*open)(cs_arch, cs_mode, csh *);
    cs_err (*option)(csh, cs_opt_type, size_t);
    size_t (*disasm)(csh, const uint8_t *, size_t, uint64_t, size_t, cs_insn **);
    void (*free)(cs_insn *, size_t);
    cs_err (*close)(csh *);
} cs;

static int load_capstone(char *why, size_t len)
{
    char soname[32], path[PATH_MAX];
    snprintf(soname, sizeof soname, "libcapstone.so.%d", CS_API_MAJOR);
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    Dl_info self;
    if (!h && dladdr((void *)load_capstone, &self) && self.dli_fname) {
        const char *slash = strrchr(self.dli_fname, '/');
        int dir = slash ? (int)(slash - self.dli_fname) : 0;
        const char *tries[] = {"%.*s/%s", "%.*s/../lib/%s"};
        for (unsigned i = 0; !h && slash && i < 2; i++) {
            snprintf(path, sizeof path, tries[i], dir, self.dli_fname, soname);
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (!h) return snprintf(why, len, "walker coverage: %s cannot be loaded here: off", soname), -1;
    *(void **)&cs.open = dlsym(h, "cs_open");
    *(void **)&cs.option = dlsym(h, "cs_option");
    *(void **)&cs.disasm = dlsym(h, "cs_disasm");
    *(void **)&cs.free = dlsym(h, "cs_free");
    *(void **)&cs.close = dlsym(h, "cs_close");
    if (!cs.open || !cs.option || !cs.disasm || !cs.free || !cs.close)
        return snprintf(why, len, "walker coverage: %s lacks the functions we use: off", soname), -1;
    return 0;
}

/* A mangled C++ name as Class::method (its nested names only), or the name
 * itself when it is not mangled. 0 if it cannot be read. */
static int demangle_nested(const char *m, char *out, size_t len)
{
    if (strncmp(m, "_Z", 2)) return snprintf(out, len, "%s", m) < (int)len;
    const char *p = m + 2;
    if (*p == 'L') p++;
    int nested = *p == 'N';
    if (nested) {
        p++;
        while (*p == 'K' || *p == 'V' || *p == 'r' || *p == 'R' || *p == 'O') p++;
    }
    size_t o = 0;
    out[0] = 0;
    do {
        if (*p < '0' || *p > '9') break;
        char *end;
        long n = strtol(p, &end, 10);
        if (n <= 0 || (size_t)n >= len || strnlen(end, (size_t)n) < (size_t)n) return 0;
        if (o && o + 2 < len) out[o++] = ':', out[o++] = ':';
        if (o + (size_t)n + 1 > len) return 0;
        memcpy(out + o, end, (size_t)n);
        o += (size_t)n;
        out[o] = 0;
        p = end + n;
    } while (nested && *p != 'E');
    return o > 0;
}

static int is_walker(const char *name)
{
    for (size_t i = 0; i < sizeof walker_patterns / sizeof walker_patterns[0]; i++)
        if (glob_match(walker_patterns[i].pattern, name)) return 1;
    return 0;
}

/* [handler-safe] Index of the block starting at pc, or -1. */
static long find_block(uintptr_t pc)
{
    unsigned lo = 0, hi = nblocks;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (block_pc[mid] < pc) lo = mid + 1;
        else hi = mid;
    }
    return lo < nblocks && block_pc[lo] == pc ? (long)lo : -1;
}

/* [handler-safe] A VM thread's hit: the block goes back on the ring, unless
 * it is full (it then stays unarmed). */
static void queue_rearm(long i)
{
    /* A claim is never taken back: a slot claimed and left empty would stop
     * the consumer for good. */
    unsigned k = atomic_load(&rearm_head);
    do {
        if (k - atomic_load(&rearm_tail) >= REARM_RING) return;
    } while (!atomic_compare_exchange_weak(&rearm_head, &k, k + 1));
    atomic_store(&rearm_ring[k % REARM_RING], (uint32_t)i + 1);
}

/* [handler-safe] One of our breakpoints: put the byte back, note the block,
 * run the instruction. Only a thread walking for us (walking.h) counts: a hit
 * of any other is the VM's own work (a GC scanning frames, a deoptimization
 * unpacking them), not the walk's, and the block is armed again later (up to
 * REARM_MAX times). Anything else goes to the handler before ours. */
static void on_trap(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    uint64_t *pcp = arch_reg_slot(uc, ARCH_REG_PC);
    long i = si && si->si_code == SI_KERNEL && pcp ? find_block((uintptr_t)*pcp - 1) : -1;
    if (i >= 0) {
        volatile uint8_t *code = (volatile uint8_t *)block_pc[i];
        if (*code == 0xCC) *code = block_orig[i];
        *pcp = block_pc[i];
        if (!walking_now()) {
            if (!atomic_load(&block_hit[i]) && atomic_fetch_add(&block_vm[i], 1) < REARM_MAX) queue_rearm(i);
        } else if (!atomic_exchange(&block_hit[i], 1)) {
            unsigned k = atomic_fetch_add(&order_n, 1);
            if (k < nblocks) atomic_store(&order[k], (uint32_t)i);
            atomic_fetch_add(&reached_blocks, 1);
            if (!atomic_exchange(&fn_hit[block_fn[i]], 1)) atomic_fetch_add(&reached_funcs, 1);
        }
        return;
    }
    if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction) {
        previous.sa_sigaction(sig, si, ucv);
    } else if (previous.sa_handler != SIG_IGN && previous.sa_handler != SIG_DFL && previous.sa_handler) {
        previous.sa_handler(sig);
    } else {
        /* A trap that is not ours, with no one to take it: die of it, as
         * without us. */
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

/* libjvm's path and load address, from /proc/self/maps. */
static int find_libjvm(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[PATH_MAX + 128];
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, off;
        char path[PATH_MAX];
        if (sscanf(line, "%lx-%*x %*4s %lx %*s %*u %4095s", &lo, &off, path) == 3 && strstr(path, "/libjvm.so") &&
            off == 0) {
            jvm_base = lo;
            snprintf(jvm_path, sizeof jvm_path, "%s", path);
            found = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

struct elf_file {
    const uint8_t *data;
    size_t size;
};

static int map_file(const char *path, struct elf_file *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return -1;
    if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) return close(fd), -1;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return -1;
    e->data = p, e->size = (size_t)st.st_size;
    const Elf64_Ehdr *h = p;
    if (memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
        h->e_shoff + (size_t)h->e_shnum * sizeof(Elf64_Shdr) > e->size) {
        munmap(p, e->size);
        return -1;
    }
    return 0;
}

static const Elf64_Shdr *section(const struct elf_file *e, unsigned type, const char *name)
{
    const Elf64_Ehdr *h = (const void *)e->data;
    const Elf64_Shdr *sh = (const void *)(e->data + h->e_shoff);
    const Elf64_Shdr *names = h->e_shstrndx < h->e_shnum ? &sh[h->e_shstrndx] : NULL;
    for (unsigned i = 0; i < h->e_shnum; i++) {
        if (sh[i].sh_type != type) continue;
        if (!name) return &sh[i];
        if (names && names->sh_offset + sh[i].sh_name < e->size &&
            !strcmp((const char *)e->data + names->sh_offset + sh[i].sh_name, name))
            return &sh[i];
    }
    return NULL;
}

/* The file's GNU build-id as hex, or "" if it has none. */
static void build_id(const struct elf_file *e, char *out, size_t len)
{
    out[0] = 0;
    const Elf64_Shdr *s = section(e, SHT_NOTE, ".note.gnu.build-id");
    if (s && s->sh_offset + s->sh_size <= e->size)
        elf_note_build_id(e->data + s->sh_offset, s->sh_size, s->sh_addralign, out, len);
}

static int add_function(const char *name)
{
    if (nfuncs == MAX_FUNCS) return -1;
    snprintf(fn_name[nfuncs], NAME_MAX_LEN, "%s", name);
    return (int)nfuncs++;
}

static int cmp_pc(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* The leaders of one function's blocks: its start, every target of a
 * branch inside it, every instruction after a branch or a return. */
static void add_blocks(csh handle, uintptr_t start, size_t size, int fn)
{
    static uintptr_t leaders[1 << 14];
    size_t nl = 0;
    leaders[nl++] = start;
    cs_insn *insn;
    size_t n = cs.disasm(handle, (const uint8_t *)start, size, start, 0, &insn);
    for (size_t k = 0; k < n && nl + 2 < sizeof leaders / sizeof leaders[0]; k++) {
        cs_detail *d = insn[k].detail;
        int jump = 0, ret = 0;
        for (int g = 0; d && g < d->groups_count; g++) {
            jump |= d->groups[g] == CS_GRP_JUMP;
            ret |= d->groups[g] == CS_GRP_RET;
        }
        if (jump && d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
            uintptr_t t = (uintptr_t)d->x86.operands[0].imm;
            if (t > start && t < start + size) leaders[nl++] = t;
        }
        if ((jump || ret) && k + 1 < n) leaders[nl++] = (uintptr_t)insn[k + 1].address;
    }
    /* Only instruction starts: a leader that decoding never reached is dropped. */
    qsort(leaders, nl, sizeof leaders[0], cmp_pc);
    size_t ki = 0;
    for (size_t i = 0; i < nl && nblocks < MAX_BLOCKS; i++) {
        if (i && leaders[i] == leaders[i - 1]) continue;
        while (ki < n && insn[ki].address < leaders[i]) ki++;
        if (ki == n || insn[ki].address != leaders[i]) continue;
        block_pc[nblocks] = leaders[i];
        block_fn[nblocks] = (uint32_t)fn;
        nblocks++;
    }
    if (n) cs.free(insn, n);
}

struct pair {
    uintptr_t pc;
    uint32_t fn;
};
static int cmp_pair(const void *a, const void *b) { return cmp_pc(&((const struct pair *)a)->pc, &((const struct pair *)b)->pc); }

/* Sorts the blocks by address (the handler's binary search), keeping each
 * block's function, and drops duplicates (aliases of one function). */
static void sort_blocks(void)
{
    struct pair *p = malloc(nblocks * sizeof *p);
    if (!p) return;
    for (unsigned i = 0; i < nblocks; i++) p[i] = (struct pair){block_pc[i], block_fn[i]};
    qsort(p, nblocks, sizeof *p, cmp_pair);
    unsigned m = 0;
    for (unsigned i = 0; i < nblocks; i++)
        if (!m || p[i].pc != block_pc[m - 1]) block_pc[m] = p[i].pc, block_fn[m] = p[i].fn, m++;
    nblocks = m;
    free(p);
}

/* Makes every page holding a block writable, then plants the int3s. */
static int arm(char *why, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t last = 0;
    for (unsigned i = 0; i < nblocks; i++) {
        uintptr_t pg = block_pc[i] & ~(uintptr_t)(page - 1);
        if (pg == last) continue;
        if (mprotect((void *)pg, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC))
            return snprintf(why, len, "walker coverage: cannot make libjvm's text writable: %s", strerror(errno)), -1;
        last = pg;
    }
    for (unsigned i = 0; i < nblocks; i++) {
        volatile uint8_t *code = (volatile uint8_t *)block_pc[i];
        block_orig[i] = *code;
    }
    for (unsigned i = 0; i < nblocks; i++) *(volatile uint8_t *)block_pc[i] = 0xCC;
    return 0;
}
#endif

/* [handler-safe] See walker_cov.h. Pages stay writable once armed. */
void wcov_disarm(void)
{
#ifdef WCOV_SUPPORTED
    atomic_store(&disarmed, 1); /* before the bytes: wcov_rearm must not undo it */
    for (unsigned i = 0; i < nblocks; i++) {
        volatile uint8_t *code = (volatile uint8_t *)block_pc[i];
        if (*code == 0xCC && block_orig[i] != 0xCC) *code = block_orig[i];
    }
#endif
}

void wcov_rearm(void)
{
#ifdef WCOV_SUPPORTED
    unsigned tail = atomic_load_explicit(&rearm_tail, memory_order_relaxed);
    while (tail != atomic_load(&rearm_head)) {
        uint32_t v = atomic_exchange(&rearm_ring[tail % REARM_RING], 0);
        if (!v) break; /* claimed, not yet written: the next call takes it */
        atomic_store_explicit(&rearm_tail, ++tail, memory_order_relaxed);
        if (atomic_load(&disarmed) || atomic_load(&block_hit[v - 1])) continue;
        volatile uint8_t *code = (volatile uint8_t *)block_pc[v - 1];
        *code = 0xCC;
        /* A fatal fault's wcov_disarm between the check and the store: undo
         * it, the VM's error report walks these functions. */
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load(&disarmed)) *code = block_orig[v - 1];
    }
#endif
}

int wcov_start(char *why, size_t len)
{
#ifndef WCOV_SUPPORTED
    snprintf(why, len, "walker coverage: not built in (x86_64 with libcapstone-dev only)");
    snprintf(not_armed, sizeof not_armed, "%s", why);
    return -1;
#else
    if (atomic_exchange(&started, 1)) return snprintf(why, len, "walker coverage: already started"), -1;
    if (find_libjvm()) return snprintf(why, len, "walker coverage: libjvm.so is not mapped"), -1;
    struct elf_file main_file, sym_file;
    if (map_file(jvm_path, &main_file)) return snprintf(why, len, "walker coverage: cannot read %s", jvm_path), -1;
    sym_file = main_file;
    if (!section(&main_file, SHT_SYMTAB, NULL)) {
        /* A stripped libjvm: its -dbg package's file, by build-id. */
        char id[2 * 64 + 1], dbg[PATH_MAX];
        build_id(&main_file, id, sizeof id);
        snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
        if (!id[0] || map_file(dbg, &sym_file) || !section(&sym_file, SHT_SYMTAB, NULL)) {
            snprintf(why, len, "walker coverage: %s has no symbol table and no debug file (%s): off", jvm_path,
                     id[0] ? dbg : "no build-id");
            snprintf(not_armed, sizeof not_armed, "%s", why);
            return -1;
        }
    }
    block_pc = calloc(MAX_BLOCKS, sizeof *block_pc);
    block_orig = calloc(MAX_BLOCKS, 1);
    block_fn = calloc(MAX_BLOCKS, sizeof *block_fn);
    block_hit = calloc(MAX_BLOCKS, 1);
    block_vm = calloc(MAX_BLOCKS, 1);
    order = calloc(MAX_BLOCKS, sizeof *order);
    fn_name = calloc(MAX_FUNCS, sizeof *fn_name);
    fn_hit = calloc(MAX_FUNCS, 1);
    if (!block_pc || !block_orig || !block_fn || !block_hit || !block_vm || !order || !fn_name || !fn_hit)
        return snprintf(why, len, "walker coverage: out of memory"), -1;
    if (load_capstone(why, len)) {
        snprintf(not_armed, sizeof not_armed, "%s", why);
        return -1;
    }
    csh handle;
    if (cs.open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) return snprintf(why, len, "walker coverage: capstone"), -1;
    cs.option(handle, CS_OPT_DETAIL, CS_OPT_ON);
    const Elf64_Shdr *symtab = section(&sym_file, SHT_SYMTAB, NULL);
    const Elf64_Ehdr *h = (const void *)sym_file.data;
    const Elf64_Shdr *sh = (const void *)(sym_file.data + h->e_shoff);
    const Elf64_Shdr *strtab = symtab->sh_link < h->e_shnum ? &sh[symtab->sh_link] : NULL;
    const Elf64_Sym *syms = (const void *)(sym_file.data + symtab->sh_offset);
    size_t nsyms = symtab->sh_offset + symtab->sh_size <= sym_file.size ? symtab->sh_size / sizeof *syms : 0;
    char name[NAME_MAX_LEN];
    for (size_t i = 0; strtab && i < nsyms; i++) {
        const Elf64_Sym *s = &syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_size || s->st_shndx == SHN_UNDEF ||
            strtab->sh_offset + s->st_name >= sym_file.size)
            continue;
        const char *mangled = (const char *)sym_file.data + strtab->sh_offset + s->st_name;
        if (!demangle_nested(mangled, name, sizeof name) || !is_walker(name)) continue;
        int fn = add_function(name);
        if (fn < 0) break;
        add_blocks(handle, jvm_base + s->st_value, s->st_size, fn);
    }
    cs.close(&handle);
    sort_blocks();
    if (!nblocks) return snprintf(why, len, "walker coverage: no walker function found in %s", jvm_path), -1;
    /* The handler first, then the breakpoints. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    /* Asynchronous signals wait until the byte is back: one taken on top of
     * this handler sees our frame as the interrupted context, so a target's
     * batch (or any sampler) walked from here instead of from the VM's code.
     * Synchronous ones stay open: one raised while blocked kills the process
     * with no hs_err (a trap in a chained handler, SA_NODEFER's reason). */
    sigfillset(&sa.sa_mask);
    static const int synchronous[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof synchronous / sizeof *synchronous; i++) sigdelset(&sa.sa_mask, synchronous[i]);
    if (sigaction(SIGTRAP, &sa, &previous)) return snprintf(why, len, "walker coverage: sigaction"), -1;
    if (arm(why, len)) {
        nblocks = 0; /* nothing planted: no block to count, find or disarm */
        return -1;
    }
    snprintf(not_armed, sizeof not_armed, "walker coverage: none reached");
    return 0;
#endif
}

void wcov_counts(struct wcov_counts *o)
{
    o->blocks = nblocks, o->functions = nfuncs;
    o->blocks_reached = atomic_load(&reached_blocks), o->functions_reached = atomic_load(&reached_funcs);
    o->blocks_vm_only = 0;
    for (unsigned i = 0; block_vm && i < nblocks; i++)
        o->blocks_vm_only += atomic_load(&block_vm[i]) && !atomic_load(&block_hit[i]);
}

int wcov_take_new(uint32_t *idx, int max)
{
    unsigned end = atomic_load(&order_n);
    if (end > nblocks) end = nblocks;
    int n = 0;
    while (order_taken < end && n < max) idx[n++] = atomic_load(&order[order_taken++]);
    return n;
}

/* all: every armed block (the list a report needs for the lines not
 * reached), else the reached ones. */
static int wcov_write(const char *path, int all)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    struct wcov_counts c;
    wcov_counts(&c);
    fprintf(f, "# walker %s %s: %u of %u blocks, %u of %u functions\n", all ? "blocks armed in" : "coverage of", jvm_path,
            all ? c.blocks : c.blocks_reached, c.blocks, all ? c.functions : c.functions_reached, c.functions);
    for (unsigned i = 0; i < nblocks; i++)
        if (all || atomic_load(&block_hit[i]))
            fprintf(f, "0x%lx %s\n", (unsigned long)(block_pc[i] - jvm_base), fn_name[block_fn[i]]);
    return fclose(f);
}

/* The armed list once for the jobs of a campaign (they run one libjvm):
 * the first to end writes it, under a name of its own, then renames. */
static void write_armed_once(const char *path)
{
    if (!path || !*path || access(path, F_OK) == 0) return;
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp) return;
    if (wcov_write(tmp, 1) == 0 && rename(tmp, path) == 0) return;
    unlink(tmp);
}

void wcov_summary(char *out, size_t len)
{
    struct wcov_counts c;
    wcov_counts(&c);
    if (!c.blocks) snprintf(out, len, "%s", not_armed);
    else
        snprintf(out, len, "walker coverage: %u of %u blocks (%u of %u functions); %u more reached by the VM's own threads only",
                 c.blocks_reached, c.blocks, c.functions_reached, c.functions, c.blocks_vm_only);
}

int wcov_finish(const char *dir, char *out, size_t len)
{
    wcov_summary(out, len);
    if (!nblocks) return 0;
    char path[PATH_MAX];
    write_armed_once(getenv("ASGF_WALKER_BLOCKS"));
    snprintf(path, sizeof path, "%s/walker-coverage.txt", dir);
    return wcov_write(path, 0);
}
