/*
 * The overhead floor for `make bench`: a JVMTI agent that signals the same
 * Java threads as the sampling agent (names matching threads=, default
 * asgst-worker-*), at the same interval and the same way (a sampler thread,
 * absolute deadlines, tgkill per thread and round, late rounds skipped
 * rather than bunched), but whose handler does nothing. The workload's
 * slowdown under it is what signalling alone costs; the agent's slowdown
 * divided by it is the share the walking adds.
 *
 *   -agentpath:libfloor_agent.so=interval=100,threads=asgst-worker-*
 *   (interval in microseconds)
 * Prints one line at VM death: signals sent, handled, late rounds.
 */
#include <errno.h>
#include <fnmatch.h>
#include <jvmti.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 1024

static long long interval_ns = 100000;
static char glob[128] = "asgst-worker-*";
static _Atomic int tids[MAX_THREADS]; /* 0 = free slot */
static _Atomic long sent, handled, late;
static _Atomic int running;
static pthread_t sampler;

/* [handler-safe] Empty on purpose, but for a relaxed count. */
static void on_signal(int sig)
{
    (void)sig;
    atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *sampler_main(void *arg)
{
    (void)arg;
    pid_t pid = getpid();
    long long next = now_ns();
    while (atomic_load(&running)) {
        for (int i = 0; i < MAX_THREADS; i++) {
            int tid = atomic_load_explicit(&tids[i], memory_order_relaxed);
            if (tid && syscall(SYS_tgkill, pid, tid, SIGPROF) == 0)
                atomic_fetch_add_explicit(&sent, 1, memory_order_relaxed);
        }
        next += interval_ns;
        long long now = now_ns();
        if (now > next + interval_ns) {
            atomic_fetch_add(&late, 1);
            next = now;
            continue;
        }
        struct timespec ts = {next / 1000000000LL, next % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    return NULL;
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)env;
    jvmtiThreadInfo info;
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return;
    int match = info.name && fnmatch(glob, info.name, 0) == 0;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    if (!match) return;
    int self = (int)syscall(SYS_gettid);
    for (int i = 0; i < MAX_THREADS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&tids[i], &free_slot, self)) return;
    }
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
    (void)jvmti, (void)env, (void)thread;
    int self = (int)syscall(SYS_gettid);
    for (int i = 0; i < MAX_THREADS; i++) {
        int mine = self;
        if (atomic_compare_exchange_strong(&tids[i], &mine, 0)) return;
    }
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
    (void)jvmti, (void)env;
    if (atomic_exchange(&running, 0)) pthread_join(sampler, NULL);
    fprintf(stderr, "floor_agent: interval %lld ns, %ld signals sent, %ld handled, %ld late rounds\n", interval_ns,
            (long)sent, (long)handled, (long)late);
}

static int parse(const char *opts)
{
    char buf[256];
    if (!opts) return 0;
    if (strlen(opts) >= sizeof buf) return -1;
    strcpy(buf, opts);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *end;
        if (!strncmp(kv, "interval=", 9)) {
            long us = strtol(kv + 9, &end, 10);
            if (*end || us < 1) return fprintf(stderr, "floor_agent: interval=%s: want microseconds >= 1\n", kv + 9), -1;
            interval_ns = us * 1000LL;
        } else if (!strncmp(kv, "threads=", 8) && strlen(kv + 8) < sizeof glob) {
            strcpy(glob, kv + 8);
        } else {
            return fprintf(stderr, "floor_agent: unknown option '%s' (interval=US, threads=GLOB)\n", kv), -1;
        }
    }
    return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    if (parse(options)) return JNI_ERR;
    jvmtiEnv *jvmti;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
    jvmtiEventCallbacks cb = {0};
    cb.ThreadStart = on_thread_start;
    cb.ThreadEnd = on_thread_end;
    cb.VMDeath = on_vm_death;
    if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE) return JNI_ERR;
    jvmtiEvent events[] = {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_VM_DEATH};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) != JVMTI_ERROR_NONE)
            return JNI_ERR;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL)) return JNI_ERR;
    /* The sampler must never take the signal itself. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    atomic_store(&running, 1);
    int rc = pthread_create(&sampler, NULL, sampler_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc ? JNI_ERR : JNI_OK;
}
