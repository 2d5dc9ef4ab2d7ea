/*
 * The floor under any signal-based sampler on this machine: two busy
 * threads, signalled every 100 us by a sampler thread (absolute deadlines,
 * tgkill) with an EMPTY handler, against the same threads unsignalled. The
 * agent's overhead can only be compared with this.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define THREADS 2
static _Atomic int stop;
static _Atomic long tids[THREADS];
static _Atomic long handled;

static void on_signal(int s)
{
    (void)s;
    atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void *busy(void *arg)
{
    tids[(long)arg] = syscall(SYS_gettid);
    volatile unsigned long x = 0;
    long ops = 0;
    while (!stop) {
        for (int k = 0; k < 100000; k++) x = x * 6364136223846793005UL + 1;
        ops++;
    }
    return (void *)ops;
}

static void *sampler(void *arg)
{
    (void)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!stop) {
        if ((next.tv_nsec += 100000) >= 1000000000) next.tv_sec++, next.tv_nsec -= 1000000000;
        for (int i = 0; i < THREADS; i++)
            if (tids[i]) syscall(SYS_tgkill, getpid(), tids[i], SIGPROF);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    return NULL;
}

static long run(int signalled, int seconds)
{
    pthread_t t[THREADS], s;
    stop = 0;
    for (long i = 0; i < THREADS; i++) {
        tids[i] = 0;
        pthread_create(&t[i], NULL, busy, (void *)i);
    }
    if (signalled) pthread_create(&s, NULL, sampler, NULL);
    sleep((unsigned)seconds);
    stop = 1;
    long total = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        total += (long)r;
    }
    if (signalled) pthread_join(s, NULL);
    return total;
}

int main(void)
{
    signal(SIGPROF, on_signal);
    long base = 0, sig = 0;
    for (int i = 0; i < 2; i++) base += run(0, 5), sig += run(1, 5);
    printf("signal floor: 2 busy threads, empty SIGPROF handler every 100 us: %ld ops vs %ld unsignalled, "
           "overhead %.1f%% (%ld signals handled)\n",
           sig, base, 100.0 * (1.0 - (double)sig / (double)base), (long)handled);
    return 0;
}
