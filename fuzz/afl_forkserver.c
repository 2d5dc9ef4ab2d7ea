/* AFL++ fork server without SIGSTOP (see afl_forkserver.h). Compiled
 * without AFL++ instrumentation: the server's own branches must not show
 * up in the coverage map of every input. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>
#include "afl_forkserver.h"

#define FROM_AFL 198
#define TO_AFL 199

/* AFL++ fork-server option bits (its include/types.h). */
#define OPT_ENABLED 0x80000001u
#define OPT_MAPSIZE 0x40000000u
#define OPT_SHDMEM_FUZZ 0x01000000u
#define OPT_MAX_MAPSIZE ((0x00fffffeu >> 1) + 1)
#define CASE_BYTES_MAX (1u << 20) /* AFL++'s MAX_FILE: the shared test case never holds more */

/* Set by AFL++'s runtime (linked into asgf-afl) to the coverage map size;
 * weak so the file links anywhere. */
extern uint32_t __afl_map_size __attribute__((weak));

/* Child -> server, one per input. */
enum { RAN = 0, RAN_LAST = 1 };

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

/* Server: a new child, or 1 in the child itself. */
static int spawn(pid_t *child)
{
    int go[2], done[2];
    if (go_fd >= 0) close(go_fd), close(done_fd); /* the last child's, who is gone */
    go_fd = done_fd = -1;
    if (pipe(go) || pipe(done)) die("pipe");
    pid_t server = getpid(), pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        close(FROM_AFL), close(TO_AFL), close(go[1]), close(done[0]);
        go_fd = go[0], done_fd = done[1];
        signal(SIGPIPE, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* no JVM outlives its server */
        if (getppid() != server) _exit(0); /* it died before prctl */
        return 1;
    }
    close(go[0]), close(done[1]);
    go_fd = go[1], done_fd = done[0];
    *child = pid;
    return 0;
}

static int reap(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return st;
}

int aflfs_serve(void)
{
    if (!handshake()) return 0;
    signal(SIGPIPE, SIG_IGN); /* a dead child shows as EOF on its pipe */
    pid_t child = -1;
    unsigned long child_runs = 0;
    for (;;) {
        uint32_t killed, msg;
        if (read4(FROM_AFL, &killed)) exit(0);
        if (killed && child > 0) { /* afl-fuzz SIGKILLed it after our last status */
            reap(child);
            child = -1;
        }
        if (child < 0) {
            if (spawn(&child)) return 1;
            child_runs = 0;
        }
        write_afl((uint32_t)child);
        uint32_t go = 1;
        int st;
        if (write(go_fd, &go, 4) == 4 && !read4(done_fd, &msg)) {
            child_runs++;
            if (msg == RAN) {
                st = W_STOPCODE(SIGSTOP); /* alive: what AFL++'s persistent runtime reports */
            } else {
                st = reap(child);
                child = -1;
            }
        } else {
            st = reap(child);
            child = -1;
            if (!child_runs && WIFEXITED(st) && WEXITSTATUS(st)) {
                errno = 0;
                die("the child exited before its first input (JVM start-up failed? run the binary alone "
                    "with a case on stdin to see why)");
            }
        }
        write_afl((uint32_t)st);
    }
}

int aflfs_next(const uint8_t **buf, size_t *len)
{
    uint32_t go, n;
    if (read4(go_fd, &go)) return -1;
    memcpy(&n, shm_case, 4);
    *buf = shm_case + 4;
    *len = n < CASE_BYTES_MAX ? n : CASE_BYTES_MAX;
    return 0;
}

void aflfs_done(int last)
{
    uint32_t msg = last ? RAN_LAST : RAN;
    if (write(done_fd, &msg, 4) != 4) _exit(0);
}
