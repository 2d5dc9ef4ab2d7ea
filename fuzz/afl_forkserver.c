/* AFL++ fork server without SIGSTOP (see afl_forkserver.h). Compiled
 * without AFL++ instrumentation: the server's own branches must not show
 * up in the coverage map of every input. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>
#include "afl_forkserver.h"

#define FROM_AFL 198
#define TO_AFL 199

/* AFL++ fork-server option bits (values of AFL++'s fork-server protocol). */
#define OPT_ENABLED 0x80000001u
#define OPT_MAPSIZE 0x40000000u
#define OPT_SHDMEM_FUZZ 0x01000000u
#define OPT_MAX_MAPSIZE ((0x00fffffeu >> 1) + 1)
#define CASE_BYTES_MAX (1u << 20) /* AFL++'s MAX_FILE: the shared test case never holds more */

/* Set by AFL++'s runtime (linked into asgf-afl) to the coverage map size;
 * weak so the file links anywhere. */
extern uint32_t __afl_map_size __attribute__((weak));

/* Child -> server: READY once its JVM is up. */
enum { READY = 2 };

/* Where the child is in the exchange with afl-fuzz, in memory shared with
 * the server, which reads it when the child dies: what afl-fuzz is still
 * owed (the pid and a status, a status, nothing). */
enum { BETWEEN, GOT_REQUEST, PID_SENT, QUIT };
static _Atomic uint32_t *state;

static const uint8_t *shm_case; /* AFL++'s test case: u32 length, then bytes */
static int go_fd = -1, done_fd = -1;

static void die(const char *what)
{
    fprintf(stderr, "asgf-afl: fork server: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
    exit(3);
}

static int read4(int fd, uint32_t *v)
{
    ssize_t n;
    while ((n = read(fd, v, 4)) < 0 && errno == EINTR) {}
    return n == 4 ? 0 : -1;
}

static void write_afl(uint32_t v)
{
    if (write(TO_AFL, &v, 4) != 4) exit(0); /* afl-fuzz went away */
}

static int handshake(void)
{
    uint32_t hello = OPT_ENABLED | OPT_SHDMEM_FUZZ, reply;
    if (&__afl_map_size && __afl_map_size > 1 && __afl_map_size <= OPT_MAX_MAPSIZE)
        hello |= OPT_MAPSIZE | (__afl_map_size - 1) << 1;
    if (write(TO_AFL, &hello, 4) != 4) return 0; /* not run by afl-fuzz */
    if (read4(FROM_AFL, &reply)) die("no answer to the hello from afl-fuzz");
    if ((reply & (OPT_ENABLED | OPT_SHDMEM_FUZZ)) != (OPT_ENABLED | OPT_SHDMEM_FUZZ))
        die("afl-fuzz did not accept shared-memory test cases");
    const char *id = getenv("__AFL_SHM_FUZZ_ID");
    if (!id) die("afl-fuzz set no __AFL_SHM_FUZZ_ID");
    void *m = shmat(atoi(id), NULL, SHM_RDONLY);
    if (m == (void *)-1) die("cannot attach the test-case shared memory");
    shm_case = m;
    return 1;
}

static int reap(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return st;
}

/* Server: a new child, or 1 in the child itself. The child keeps the
 * fork-server descriptors: once started, it answers afl-fuzz itself. */
static int spawn(pid_t *child)
{
    int go[2], done[2];
    if (go_fd >= 0) close(go_fd), close(done_fd); /* the last child's, who is gone */
    go_fd = done_fd = -1;
    if (pipe2(go, O_CLOEXEC) || pipe2(done, O_CLOEXEC)) die("pipe");
    pid_t server = getpid(), pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        close(go[1]), close(done[0]);
        go_fd = go[0], done_fd = done[1];
        signal(SIGPIPE, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* no JVM outlives its server */
        if (getppid() != server) _exit(0); /* it died before prctl */
        return 1;
    }
    close(go[0]), close(done[1]);
    go_fd = go[1], done_fd = done[0];
    /* The JVM starts before the first input is handed over, so start-up
     * neither counts against that input's timeout nor is filed as its
     * crash; afl-fuzz waits for the pid without a timer. */
    uint32_t msg;
    if (read4(done_fd, &msg) || msg != READY) {
        int st = reap(pid);
        errno = 0;
        char why[160];
        snprintf(why, sizeof why, "the JVM child did not start (%s %d; run the binary alone with a case on "
                 "stdin to see why)", WIFSIGNALED(st) ? "signal" : "exit status",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        die(why);
    }
    *child = pid;
    return 0;
}

int aflfs_serve(void)
{
    if (!handshake()) return 0;
    signal(SIGPIPE, SIG_IGN);
    state = mmap(NULL, sizeof *state, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (state == MAP_FAILED) die("mmap");
    int have_request = 0;
    for (;;) {
        uint32_t killed, go = 1;
        pid_t child;
        if (!have_request && read4(FROM_AFL, &killed)) exit(0);
        have_request = 0;
        /* A new child for this input; it answers every later one itself. */
        if (spawn(&child)) return 1;
        write_afl((uint32_t)child);
        atomic_store(state, PID_SENT);
        if (write(go_fd, &go, 4) != 4) {} /* a child that died already is reaped below */
        int st = reap(child);
        switch (atomic_load(state)) {
        case GOT_REQUEST: write_afl((uint32_t)child); /* fall through */
        case PID_SENT: write_afl((uint32_t)st); break; /* died in an input: its crash */
        case QUIT: break;                              /* ran its quota */
        default:
            /* Died between inputs. A JVM thread crashing after the walk is
             * reported on the next input, so AFL++ keeps a crash and its
             * hs_err, records and in-flight case name the real input. But
             * afl-fuzz's own kill (its time-out raced our status, so the
             * request says "killed") is no crash: a new child takes that
             * input. */
            if (read4(FROM_AFL, &killed)) exit(0);
            if (killed) {
                have_request = 1;
                break;
            }
            write_afl((uint32_t)child);
            write_afl((uint32_t)st);
        }
    }
}

/* Child: the status afl-fuzz gets for a live child is the one AFL++'s
 * persistent runtime sends (stopped); then the state says what the server
 * owes afl-fuzz should we die. Between the write and the store lies a
 * window of a few instructions in which a death would be reported twice. */
static int report_alive(int last)
{
    uint32_t st = W_STOPCODE(SIGSTOP);
    if (write(TO_AFL, &st, 4) != 4) return -1;
    atomic_store(state, last ? QUIT : BETWEEN);
    return last ? -1 : 0;
}

void aflfs_child_loop(long quota, void (*run)(const uint8_t *buf, size_t len, void *arg), void *arg)
{
    uint32_t msg = READY, go, n, killed, pid = (uint32_t)getpid();
    if (write(done_fd, &msg, 4) != 4 || read4(go_fd, &go)) return; /* the input the server took */
    for (long k = 1;; k++) {
        memcpy(&n, shm_case, 4);
        run(shm_case + 4, n < CASE_BYTES_MAX ? n : CASE_BYTES_MAX, arg);
        if (report_alive(k == quota)) return;
        if (read4(FROM_AFL, &killed)) return; /* afl-fuzz went away */
        atomic_store(state, GOT_REQUEST);
        if (write(TO_AFL, &pid, 4) != 4) return;
        atomic_store(state, PID_SENT);
    }
}
