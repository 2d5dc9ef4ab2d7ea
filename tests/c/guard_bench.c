/* Cost of the crash protection around one call, without a JVM. */
#include <stdio.h>
#include <time.h>
#include "guard.h"
#include "regions.h"

static volatile int sink;
static void __attribute__((noinline)) work(void *arg) { sink += (int)(long)arg; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    const char *why;
    if (guard_install(NULL, &why)) return fprintf(stderr, "guard: %s\n", why), 1;
    threads_register_self("bench", NULL);
    const long n = 20000000;
    struct guard_call call = {"agct", "bench", "direct", NULL, 0, NULL, NULL, 0, 0};
    double best_bare = 1e9, best_guarded = 1e9;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (long i = 0; i < n; i++) work((void *)i);
        double t1 = now();
        for (long i = 0; i < n; i++) guard_run(work, (void *)i, &call, NULL);
        double t2 = now();
        if (t1 - t0 < best_bare) best_bare = t1 - t0;
        if (t2 - t1 < best_guarded) best_guarded = t2 - t1;
    }
    printf("guard: unguarded call %.1f ns, guarded call %.1f ns, guard cost %.1f ns per call (best of 5 x %ld)\n",
           best_bare * 1e9 / (double)n, best_guarded * 1e9 / (double)n, (best_guarded - best_bare) * 1e9 / (double)n, n);
    return 0;
}
