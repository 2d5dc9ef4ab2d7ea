/* crashgen: JNI helpers that crash a JVM on purpose, so that
 * crash-triage/testdata holds real hs_err files from this machine.
 * Built by gen.sh into /tmp; never linked into the framework. */
#define _GNU_SOURCE
#include <jni.h>
#include <jvmti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

typedef struct { jint lineno; jmethodID method_id; } cg_frame;
typedef struct { JNIEnv *env_id; jint num_frames; cg_frame *frames; } cg_trace;
typedef void (*agct_fn)(cg_trace *, jint, void *);

static agct_fn g_agct;
static char g_dir[512] = ".";
static JNIEnv *g_env;                 /* env of the sampled thread */
static volatile pid_t g_target_tid;
static volatile jlong g_bad_frames;

static pid_t cg_gettid(void) { return (pid_t)syscall(SYS_gettid); }

/* Mimic the harness: write the case bytes to <dir>/inflight-<tid>.case
 * before the guarded call, so triage can pair it with the hs_err. */
static void cg_write_inflight(const unsigned char *buf, size_t n) {
    char path[640];
    snprintf(path, sizeof path, "%s/inflight-%d.case", g_dir, (int)cg_gettid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    if (write(fd, buf, n) < 0) { /* best effort */ }
    close(fd);
}

static void JNICALL cg_class_load(jvmtiEnv *j, JNIEnv *e, jthread t, jclass k) {
    (void)j; (void)e; (void)t; (void)k;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    jvmtiEnv *jvmti = NULL;
    g_agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    /* AsyncGetCallTrace answers -1 unless ClassLoad events are enabled. */
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) == JNI_OK) {
        jvmtiEventCallbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.ClassLoad = cg_class_load;   /* an event counts only with a callback */
        (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL);
    }
    return JNI_VERSION_1_8;
}

JNIEXPORT void JNICALL Java_CrashGen_setDir(JNIEnv *env, jclass c, jstring d) {
    (void)c;
    const char *s = (*env)->GetStringUTFChars(env, d, NULL);
    snprintf(g_dir, sizeof g_dir, "%s", s);
    (*env)->ReleaseStringUTFChars(env, d, s);
}

__attribute__((noinline)) static int cg_deref(volatile int *p, int depth) {
    if (depth > 0) return cg_deref(p, depth - 1) + 1;
    return *p;                                   /* the fault */
}

JNIEXPORT jint JNICALL Java_CrashGen_nullDeref(JNIEnv *env, jclass c, jlong addr, jint depth) {
    (void)env; (void)c;
    return cg_deref((volatile int *)(intptr_t)addr, depth);
}

__attribute__((noinline)) static void cg_fatal_check(int v) {
    if (v != 42) abort();
}

JNIEXPORT void JNICALL Java_CrashGen_callAbort(JNIEnv *env, jclass c, jint v) {
    (void)env; (void)c;
    cg_fatal_check(v);
}

/* AGCT with a bad frames buffer: fills the trace from the last Java frame
 * (the thread is in native state) and faults on the first store. */
JNIEXPORT jint JNICALL Java_CrashGen_agctBadFrames(JNIEnv *env, jclass c, jlong frames) {
    (void)c;
    if (!g_agct) return -100;
    cg_trace t = { env, 0, (cg_frame *)(intptr_t)frames };
    unsigned char kase[24] = { 'A', 'S', 'G', 'F', 1, 0, 0, 1 };
    memcpy(kase + 8, &frames, sizeof frames);
    cg_write_inflight(kase, sizeof kase);
    g_agct(&t, 32, NULL);
    return t.num_frames;
}

/* SIGPROF handler: walk the interrupted thread with the real context but a
 * bad frames buffer, so the fault happens inside a signal handler. */
static void cg_prof(int sig, siginfo_t *si, void *uc) {
    (void)sig; (void)si;
    if (cg_gettid() != g_target_tid || !g_agct) return;
    cg_trace t = { g_env, 0, (cg_frame *)(intptr_t)g_bad_frames };
    unsigned char kase[24] = { 'A', 'S', 'G', 'F', 1, 0, 0, 2 };
    memcpy(kase + 8, (const void *)&g_bad_frames, sizeof g_bad_frames);
    cg_write_inflight(kase, sizeof kase);
    g_agct(&t, 64, uc);
}

static void *cg_sampler(void *arg) {
    (void)arg;
    struct timespec ts = { 0, 200000 };
    for (int i = 0; i < 200000; i++) {
        syscall(SYS_tgkill, getpid(), g_target_tid, SIGPROF);
        nanosleep(&ts, NULL);
    }
    return NULL;
}

JNIEXPORT void JNICALL Java_CrashGen_startSampler(JNIEnv *env, jclass c, jlong frames) {
    (void)c;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = cg_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    g_env = env;
    g_bad_frames = frames;
    g_target_tid = cg_gettid();
    pthread_t th;
    pthread_create(&th, NULL, cg_sampler, NULL);
    pthread_detach(th);
}

/* SIGBUS: read a shared mapping past the end of its (truncated) file. */
__attribute__((noinline)) static long cg_read_mapped(volatile long *p) {
    return p[0];
}

JNIEXPORT jlong JNICALL Java_CrashGen_busRead(JNIEnv *env, jclass c, jlong off) {
    (void)env; (void)c;
    char path[640];
    snprintf(path, sizeof path, "%s/crashgen-bus.tmp", g_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, 8192) != 0) return -1;
    char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return -1;
    if (ftruncate(fd, 0) != 0) return -1;
    unlink(path);
    return cg_read_mapped((volatile long *)(m + (off & 4095)));
}
