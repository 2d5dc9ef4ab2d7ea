/*
 * How far apart two CPUs are right now (build/fuzz/asgf-line-trip): the
 * round trip of one cache line between a thread pinned to each, in ns.
 *
 * The held hand-off (src/target.c) moves several lines between the fuzzer
 * thread and the target for every case (the request word each way, the
 * case, its outcome), so its rate follows this figure.
 * On a guest the host decides where the two vCPUs sit, and may move them
 * while a run goes on: on the AMD EPYC guests here the same pair of vCPUs
 * measured about 75-135 ns one minute and 390-420 ns the next, and one
 * libFuzzer job alone made 314-348k and 202-214k execs/s in those states
 * (docs/figures.md). fuzz/bench prints it beside every contended run so
 * that a figure can be read with the state it was taken in.
 *
 *   asgf-line-trip [CPU_A CPU_B]   (default 0 1)
 *
 * Prints "line-trip: cpus A B: N ns" (the median of 5 rounds of 100,000
 * trips, a fraction of a second); exits 2 with its usage on a bad
 * argument, 1 if a CPU cannot be used or the trips take over 2 s in all
 * (a CPU busy with other threads: each trip would wait for a time slice,
 * and the figure would be the scheduler's, not the line's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setaffinity_np */
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRIPS 100000L
#define ROUNDS 5

/* The one line the two threads pass between them, alone on its lines
 * (two: the adjacent-line prefetch). */
static struct {
    _Alignas(128) _Atomic long v;
} ball;
static _Atomic int peer_pin_errno; /* the peer could not run on its CPU */

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *peer(void *arg)
{
    int rc = pin(*(int *)arg);
    if (rc) {
        atomic_store(&peer_pin_errno, rc);
        return NULL;
    }
    for (long i = 0; i < ROUNDS * TRIPS; i++) {
        while (atomic_load_explicit(&ball.v, memory_order_acquire) != 2 * i + 1) {}
        atomic_store_explicit(&ball.v, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A CPU number in [0, CPU_SETSIZE), or -1. */
static int cpu_arg(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || end == s || *end || v < 0 || v >= CPU_SETSIZE ? -1 : (int)v;
}

int main(int argc, char **argv)
{
    int a = 0, b = 1;
    if (argc == 3) a = cpu_arg(argv[1]), b = cpu_arg(argv[2]);
    if ((argc != 1 && argc != 3) || a < 0 || b < 0 || (argc == 3 && a == b)) {
        fprintf(stderr, "usage: asgf-line-trip [CPU_A CPU_B] (two distinct CPU numbers; default 0 1)\n");
        return 2;
    }
    int rc = pin(a);
    if (rc) {
        fprintf(stderr, "asgf-line-trip: cannot run on cpu %d: %s\n", a, strerror(rc));
        return 1;
    }
    pthread_t t;
    if ((rc = pthread_create(&t, NULL, peer, &b))) {
        fprintf(stderr, "asgf-line-trip: no thread: %s\n", strerror(rc));
        return 1;
    }
    double per[ROUNDS], start = now_ns();
    long i = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (long end = i + TRIPS; i < end; i++) {
            atomic_store_explicit(&ball.v, 2 * i + 1, memory_order_release);
            /* A peer that could not pin itself, or does not get its CPU,
             * never answers: give up on it. */
            for (long spins = 1; atomic_load_explicit(&ball.v, memory_order_acquire) != 2 * i + 2; spins++) {
                if (spins % 4096) continue; /* a prompt answer pays for no check */
                if ((rc = atomic_load(&peer_pin_errno))) {
                    fprintf(stderr, "asgf-line-trip: cannot run on cpu %d: %s\n", b, strerror(rc));
                    return 1;
                }
                if (now_ns() - start > 2e9) {
                    fprintf(stderr, "asgf-line-trip: cpus %d %d: no figure, trips still unanswered after 2 s: "
                                    "the CPUs are busy with other threads\n", a, b);
                    return 1;
                }
            }
        }
        per[r] = (now_ns() - t0) / TRIPS;
    }
    pthread_join(t, NULL);
    qsort(per, ROUNDS, sizeof per[0], cmp);
    printf("line-trip: cpus %d %d: %.0f ns\n", a, b, per[ROUNDS / 2]);
    return 0;
}
