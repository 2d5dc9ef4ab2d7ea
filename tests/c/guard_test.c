/* Crash protection without a JVM: faults inside guards are recovered and
 * recorded, faults outside are not swallowed. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "guard.h"
#include "inflight.h"
#include "regions.h"
#include "tap.h"

static char dir[] = "/tmp/asgf-guard-XXXXXX";
static const uint8_t case_bytes[] = "ASGF\1\0\0\0\0\0\0\0\0\0\0\0";
static const struct guard_call call = {"agct", "test", "direct", case_bytes, 16, NULL, NULL, 0, 0};

/* The address goes through a volatile so the compiler cannot see (and
 * warn about) the deliberate bad access. */
static void write_to(void *p)
{
    volatile uintptr_t a = (uintptr_t)p;
    *(volatile int *)a = 1;
}
static void read_from(void *p)
{
    volatile uintptr_t a = (uintptr_t)p;
    (void)*(volatile int *)a;
}
static void nothing(void *p) { (void)p; }

static char *slurp(const char *path)
{
    static char buf[65536];
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = 0;
    return buf;
}

static void caught_with_record(void)
{
    struct guard_fault f;
    int rc = guard_run(write_to, (void *)0x10, &call, &f);
    CHECK(rc == SIGSEGV, "write to 0x10 inside a guard is caught as SIGSEGV (rc %d)", rc);
    CHECK(f.addr == 0x10, "si_addr is the planted pointer (0x%lx)", (unsigned long)f.addr);
    char *text = f.record[0] ? slurp(f.record) : NULL;
    CHECK(text != NULL, "a crash record was written (%s)", f.record);
    CHECK(text && strstr(text, "si_addr: 0x0000000000000010\n"), "record has the right si_addr");
    CHECK(text && strstr(text, "case: 41534746010000000000000000000000\n"), "record carries the case bytes");
    CHECK(text && strstr(text, "signal: 11 SIGSEGV\n") && strstr(text, "\nEND\n"), "record is complete");
    CHECK(text && strstr(text, "frame: 1 "), "record has a backtrace beyond the faulting pc");
}

static void unmapped_and_sigbus(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(m, (size_t)page);
    struct guard_fault f;
    int rc = guard_run(read_from, m + 8, &call, &f);
    CHECK(rc == SIGSEGV && f.addr == (uintptr_t)(m + 8) && f.code == SEGV_MAPERR,
          "read of an unmapped page: SIGSEGV/MAPERR at that address");

    char path[64];
    snprintf(path, sizeof path, "%s/bus", dir);
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (ftruncate(fd, page)) return;
    char *b = mmap(NULL, (size_t)page * 2, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    rc = guard_run(read_from, b + page, &call, &f);
    CHECK(rc == SIGBUS && f.addr == (uintptr_t)(b + page), "read past the end of a mapped file: SIGBUS caught");
    munmap(b, (size_t)page * 2);
}

static void many_and_mask(void)
{
    int caught = 0;
    for (int i = 0; i < 10000; i++) caught += guard_run(write_to, (void *)(uintptr_t)(8 * (i % 256)), NULL, NULL) == SIGSEGV;
    CHECK(caught == 10000, "10000 faults in a row all caught (%d)", caught);
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    CHECK(!sigismember(&now, SIGSEGV) && !sigismember(&now, SIGBUS), "signal mask restored after the jumps");
    CHECK(guard_run(nothing, NULL, &call, NULL) == 0, "a call that does not fault returns 0");
}

static void nested_inner(void *rc) { *(int *)rc = guard_run(nothing, NULL, &call, NULL); }

static void nested(void)
{
    int inner = 99;
    int rc = guard_run(nested_inner, &inner, &call, NULL);
    CHECK(rc == 0 && inner == GUARD_NESTED, "a guard inside a guard on one thread is refused (GUARD_NESTED)");
}

static void *fault_loop(void *arg)
{
    (void)arg;
    threads_register_self("faulter", NULL);
    long caught = 0;
    for (int i = 0; i < 2000; i++) caught += guard_run(write_to, (void *)0x20, NULL, NULL) == SIGSEGV;
    threads_unregister_self();
    return (void *)caught;
}

static void threads(void)
{
    pthread_t t[4];
    long total = 0;
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, fault_loop, NULL);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        total += (long)r;
    }
    CHECK(total == 8000, "4 threads x 2000 concurrent faults all caught (%ld)", total);
}

static int child_status(void (*body)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        body();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return st;
}

static void unguarded_body(void) { write_to((void *)0x30); }
static void disabled_body(void)
{
    guard_set_enabled(0);
    guard_run(write_to, (void *)0x30, &call, NULL);
}

static void not_swallowed(void)
{
    int st = child_status(unguarded_body);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "a fault outside any guard kills the process with SIGSEGV");
    st = child_status(disabled_body);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "with protection disabled a guarded fault kills with SIGSEGV");
}

/* A fault inside the fault handler (its record reads a case pointer that is
 * bad) is passed on, as an unguarded one is, and said on stderr: with the
 * signal blocked in the handler the kernel would kill the process silently. */
static const struct guard_call bad_case_call = {"agct", "test", "direct", (const uint8_t *)0x60, 16,
                                                NULL, NULL, 0, 0};
static char stderr_path[64];
static void fault_in_handler_body(void)
{
    int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) dup2(fd, 2);
    guard_run(write_to, (void *)0x70, &bad_case_call, NULL);
}

static void fault_in_handler(void)
{
    snprintf(stderr_path, sizeof stderr_path, "%s/stderr.txt", dir);
    int st = child_status(fault_in_handler_body);
    char *text = slurp(stderr_path);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && text &&
              strstr(text, "a fault inside the guard's fault handler: passed on"),
          "a fault while recording a caught fault is passed on and said (%s)", text ? text : "no stderr");
    unlink(stderr_path);
}

/* A handler that interrupts a guarded call can tell (the oracle's reference
 * walk then declines), and an unmutated walk hides the in-flight case and
 * puts it back. */
static void note_in_call(void *p) { *(int *)p = guard_in_call(); }
static void in_call_and_hidden_case(void)
{
    int inside = -1;
    guard_run(note_in_call, &inside, &call, NULL);
    CHECK(inside == 1 && guard_in_call() == 0, "guard_in_call: 1 inside a guarded call, 0 outside (%d)", inside);
    CHECK(inflight_open(dir) == 0, "in-flight file opens");
    inflight_store(case_bytes, 16);
    char path[128];
    snprintf(path, sizeof path, "%s/inflight-%d-%d.bin", dir, (int)getpid(), threads_gettid());
    uint32_t kept = inflight_hide();
    uint32_t during = 1, after = 0;
    int fd = open(path, O_RDONLY);
    if (fd >= 0 && pread(fd, &during, 4, 8) == 4) {
        inflight_restore(kept);
        if (pread(fd, &after, 4, 8) != 4) after = 0;
    }
    if (fd >= 0) close(fd);
    CHECK(kept == 16 && during == 0 && after == 16, "inflight_hide says no case, restore brings it back (%u, %u, %u)",
          kept, during, after);
    inflight_close(0);
}

static void child_faults(void)
{
    for (int i = 0; i < 5; i++) guard_run(write_to, (void *)0x50, &call, NULL);
}

/* Lines in all faults-*.txt files of the record directory. */
static long fault_lines(void)
{
    long lines = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "faults-", 7)) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        for (const char *t = slurp(path); t && *t; t++) lines += *t == '\n';
    }
    if (d) closedir(d);
    return lines;
}

/* The count files stay open between faults (record.c): every caught fault
 * is still one line, from concurrent threads and from a forked child that
 * inherited the parent's open files. */
static void counted_once_each(void)
{
    int st = child_status(child_faults);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a forked child's guarded faults are caught (status %d)", st);
    struct guard_counters c;
    guard_counters(&c);
    long lines = fault_lines();
    CHECK(lines == (long)c.caught + 5, "one faults-file line per fault caught here and in the child (%ld lines, %llu + 5 faults)",
          lines, (unsigned long long)c.caught);
}
/* A fault inside a VM call marked as changing state taints the process:
 * its own record says nothing of it, every later one names it. Last in
 * main, as the taint stays for the process. */
static const char *replaced_mark, *mark_at_entry = "unset";
static void write_marked(void *p)
{
    guard_state_op("resize");
    replaced_mark = guard_state_op("resize");
    write_to(p);
}
static void note_mark(void *p)
{
    (void)p;
    mark_at_entry = guard_state_op(NULL);
}
static void tainted_after_state_fault(void)
{
    static const uint8_t other[] = "ASGF\1\0\0\0\0\0\0\0\0\0\0\7";
    const struct guard_call second = {"agct", "test", "direct", other, 16, NULL, NULL, 0, 0};
    struct guard_fault f;
    int rc = guard_run(write_to, (void *)0x30, &call, &f);
    char *text = f.record[0] ? slurp(f.record) : NULL;
    CHECK(rc == SIGSEGV && text && !strstr(text, "tainted:"), "before any state-changing fault no record is tainted");
    rc = guard_run(write_marked, (void *)0x38, &call, &f);
    text = f.record[0] ? slurp(f.record) : NULL;
    CHECK(rc == SIGSEGV && text && !strstr(text, "tainted:"), "the state-changing fault's own record is not tainted");
    char key[17] = "";
    const char *k = text ? strstr(text, "\nkey: ") : NULL;
    if (k) memcpy(key, k + 6, 16);
    rc = guard_run(write_to, (void *)0x40, &second, &f);
    text = f.record[0] ? slurp(f.record) : NULL;
    char want[64];
    snprintf(want, sizeof want, "\ntainted: resize %s\n", key);
    CHECK(rc == SIGSEGV && key[0] && text && strstr(text, want), "a later record names it (%s)", want + 1);
    char file[128];
    snprintf(file, sizeof file, "%s/tainted-%d.txt", dir, (int)getpid());
    text = slurp(file);
    CHECK(text && !strcmp(text, want + 10), "tainted-PID.txt names it for a later hs_err (%s)", text ? text : "missing");
    rc = guard_run(write_marked, (void *)0x48, &second, &f);
    text = f.record[0] ? slurp(f.record) : NULL;
    CHECK(rc == SIGSEGV && text && strstr(text, want), "a second state-changing fault leaves the first one named");
    CHECK(replaced_mark && !strcmp(replaced_mark, "resize"), "guard_state_op hands back the mark it replaced");
    guard_run(note_mark, NULL, &call, NULL);
    CHECK(mark_at_entry == NULL, "the next guarded call starts unmarked, though the last one jumped out marked");
}

/* The build-id readelf reads from a file, or "" if it has none. */
static const char *file_build_id(const char *path, char out[static 128])
{
    char cmd[4400], line[512];
    snprintf(cmd, sizeof cmd, "readelf -n '%s' 2>/dev/null", path);
    out[0] = 0;
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, " Build ID: %127s", out) == 1) break;
    if (p) pclose(p);
    return out;
}

/* Each library a refresh sees is named with its own build-id, the second
 * one loaded after the first was closed (at its addresses, if the loader
 * reuses them): a record's frames must be named from the build that ran
 * them. A dlopen racing the refresh is not staged here. */
static void build_ids_follow_the_loaded_object(void)
{
    /* the stand-ins built beside this test */
    static const char *names[] = {"libfake_asgst.so", "libfake_jfrll.so"};
    static const char *syms[] = {"ASGST_RunWithIterator", "JFRLL_RunWithIterator"};
    char here[4096], prev[128] = "";
    ssize_t n = readlink("/proc/self/exe", here, sizeof here - 1);
    here[n > 0 ? n : 0] = 0;
    char *slash = strrchr(here, '/');
    if (slash) *slash = 0;
    for (int i = 0; i < 2; i++) {
        char want[128], abs[4096], lib[4200];
        snprintf(lib, sizeof lib, "%s/%s", here, names[i]);
        file_build_id(lib, want);
        void *h = realpath(lib, abs) ? dlopen(abs, RTLD_NOW | RTLD_LOCAL) : NULL;
        void *fn = h ? dlsym(h, syms[i]) : NULL;
        CHECK(fn, "%s loads (%s)", lib, h ? "ok" : dlerror());
        if (!fn || !want[0]) {
            if (fn) SKIP("%s has no build-id: nothing to name", lib);
            if (h) dlclose(h);
            continue;
        }
        regions_refresh();
        uintptr_t off = 0;
        const char *id = NULL, *mod = regions_module_and_id((uintptr_t)fn, &off, &id);
        CHECK(mod && !strcmp(mod, abs), "a function of %s is named in that module (%s)", lib, mod ? mod : "none");
        CHECK(id && !strcmp(id, want), "%s's build-id is the loaded object's (%s, want %s)", lib, id ? id : "none", want);
        if (i > 0) CHECK(strcmp(want, prev), "the two libraries' build-ids differ (else the check above tells nothing)");
        snprintf(prev, sizeof prev, "%s", want);
        dlclose(h);
    }
    regions_refresh();
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    char stale[128];
    snprintf(stale, sizeof stale, "%s/tainted-%d.txt", dir, (int)getpid());
    FILE *sf = fopen(stale, "w"); /* left by an earlier process with this pid */
    if (sf) fputs("resize 00000000000000aa\n", sf), fclose(sf);
    const char *why = NULL;
    int rc = guard_install(dir, &why);
    CHECK(access(stale, F_OK) != 0, "guard_install removes a tainted-PID.txt an earlier process of this pid left");
    CHECK(rc == 0, "guard installs without a JVM (%s)", why ? why : "ok");
    CHECK(guard_mode() == GUARD_PRIMARY, "mode is primary without libjsig (%s)", guard_mode_name());
    threads_register_self("main", NULL);
    caught_with_record();
    unmapped_and_sigbus();
    many_and_mask();
    nested();
    in_call_and_hidden_case();
    threads();
    not_swallowed();
    counted_once_each();
    fault_in_handler(); /* after the count: its child may count the fault before it dies */
    tainted_after_state_fault();
    build_ids_follow_the_loaded_object();
    struct guard_counters c;
    guard_counters(&c);
    CHECK(c.records_failed == 0, "no record failed to write");
    printf("# caught %llu, passed on %llu\n", (unsigned long long)c.caught, (unsigned long long)c.passed_on);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) printf("# could not remove %s\n", dir);
    return TAP_DONE();
}
