/*
 * The AFL++ protocol's ceiling on this machine (build/fuzz/asgf-afl-noop).
 *
 * The same fork server as asgf-afl (afl_forkserver.c), the same shared-
 * memory test cases and persistent child, but no JVM: each input costs
 * only NS nanoseconds of busy work (argument; 0 by default). Under
 * afl-fuzz its execs/s is what the round trip between afl-fuzz and a
 * target allows, the bound asgf-afl's own rate is read against
 * (fuzz/bench, docs/figures.md). Outside afl-fuzz it reads stdin and exits.
 *
 *   afl-fuzz -i IN -o OUT -- build/fuzz/asgf-afl-noop [NS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "afl_forkserver.h"

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Busy for *arg ns; one branch on the first byte, so afl-fuzz sees more
 * than one path and keeps mutating. */
static void run(const uint8_t *buf, size_t len, void *arg)
{
    static volatile unsigned sink;
    long long end = now_ns() + *(const long *)arg;
    if (len > 0 && buf[0] == 'A') sink++;
    while (now_ns() < end) {}
}

int main(int argc, char **argv)
{
    static volatile const char markers[] = "##SIG_AFL_PERSISTENT##\0##SIG_AFL_DEFER_FORKSRV##";
    (void)markers[0];
    static long busy_ns;
    char *end = NULL;
    if (argc > 2 || (argc == 2 && ((busy_ns = strtol(argv[1], &end, 10)) < 0 || busy_ns > 1000000000 ||
                                   end == argv[1] || *end))) {
        fprintf(stderr, "usage: asgf-afl-noop [NS]   (NS: busy nanoseconds per input, 0..1000000000)\n");
        return 2;
    }
    if (!aflfs_serve()) {
        static uint8_t buf[1 << 16];
        run(buf, fread(buf, 1, sizeof buf, stdin), &busy_ns);
        return 0;
    }
    aflfs_child_loop(1000000000L, run, &busy_ns);
    _exit(0);
}
