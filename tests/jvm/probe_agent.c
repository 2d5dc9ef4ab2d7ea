/*
 * Test agent for the core on a live JVM (the tests/jvm_*.t scripts). Loaded with
 *   -agentpath:build/tests/libprobe.so=api=agct,protect=1,out=DIR
 * it exposes natives to tests/jvm/Probe.java: walk the calling thread
 * through the selected backend in a SIGPROF handler and compare with JVMTI
 * GetStackTrace, sample a worker thread with given or random cases, plant a
 * bad pointer inside a guarded walk. Faults are caught by the core's guard.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <jvmti.h>
#include "api.h"
#include "arch.h"
#include "casegen.h"
#include "exec.h"
#include "guard.h"
#include "jmethods.h"
#include "jvm_regions.h"
#include "options.h"
#include "regions.h"
#include "startup.h"
#include "target.h"

#define SAMPLE_SIGNAL SIGPROF
#define MAX_FRAMES 64

struct config {
    enum api_kind api;
    int protect;
    char out[200];
};

static struct config cfg = {API_AUTO, 1, "."};
static const struct api *api;

struct request {
    struct case_prog prog;
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len;
    ASGST_Frame frames[MAX_FRAMES];
    struct exec_outcome out;
};

static const char *set_api(void *c, const char *v)
{
    return v && !api_kind_parse(v, &((struct config *)c)->api) ? NULL : "expected auto, asgst or agct, got";
}
static const char *set_protect(void *c, const char *v) { return opt_parse_bool(v, &((struct config *)c)->protect); }
static const char *set_out(void *c, const char *v)
{
    if (!v || !*v || strlen(v) >= sizeof cfg.out) return "expected a directory path, got";
    strcpy(((struct config *)c)->out, v);
    return NULL;
}

static const struct opt_def probe_options[] = {
    {"api", "auto|asgst|agct: backend", set_api},
    {"protect", "0|1: crash protection around every call", set_protect},
    {"out", "directory for crash records", set_out},
    {NULL, NULL, NULL},
};

/* Runs r on thread tid's context in the given mode; 0 when it ran. */
static int run_on(int tid, int mode, struct request *r)
{
    struct exec_ctx cx = {api, case_mode_name(mode), r->bytes, r->len, NULL, r->frames, MAX_FRAMES};
    return target_run(tid, mode, &cx, &r->prog, &r->out, 2000000000LL);
}

static jstring method_string(JNIEnv *env, jmethodID id)
{
    const struct jmethod_entry *e = jmethods_resolve(id);
    char buf[512];
    snprintf(buf, sizeof buf, "%s.%s", e && e->klass ? e->klass->name : "?", e ? e->name : "?");
    return (*env)->NewStringUTF(env, buf);
}

static jobjectArray names_of(JNIEnv *env, jmethodID *ids, int n)
{
    jclass string = (*env)->FindClass(env, "java/lang/String");
    jobjectArray arr = (*env)->NewObjectArray(env, n, string, NULL);
    for (int i = 0; i < n; i++) (*env)->SetObjectArrayElement(env, arr, i, method_string(env, ids[i]));
    return arr;
}

JNIEXPORT jint JNICALL Java_Probe_registerThread(JNIEnv *env, jclass k, jstring name)
{
    (void)k;
    const char *s = (*env)->GetStringUTFChars(env, name, NULL);
    threads_register_self(s, env);
    (*env)->ReleaseStringUTFChars(env, name, s);
    jvm_regions_refresh(env);
    return threads_gettid();
}

JNIEXPORT jstring JNICALL Java_Probe_apiName(JNIEnv *env, jclass k)
{
    (void)k;
    return (*env)->NewStringUTF(env, api->name);
}

/* Walks this thread through the backend (in a SIGPROF handler) and through
 * JVMTI GetStackTrace, from the same native frame. Returns {backend names,
 * jvmti names}. */
JNIEXPORT jobjectArray JNICALL Java_Probe_walkBoth(JNIEnv *env, jclass k)
{
    (void)k;
    static struct request r;
    memset(&r, 0, sizeof r);
    r.len = case_encode(&r.prog, r.bytes);
    int ran = run_on(threads_gettid(), MODE_SIGNAL, &r);

    jmethodID ids[MAX_FRAMES];
    int n = 0;
    for (; ran == 0 && n < r.out.frames && n < MAX_FRAMES; n++) ids[n] = (jmethodID)r.frames[n].method;
    for (int i = 0; i < n && api->method_to_jmethodid; i++) ids[i] = api->method_to_jmethodid((ASGST_Method)ids[i]);

    jvmtiFrameInfo frames[MAX_FRAMES];
    jint count = 0;
    (*jmethods_jvmti())->GetStackTrace(jmethods_jvmti(), NULL, 0, MAX_FRAMES, frames, &count);
    jmethodID jids[MAX_FRAMES];
    for (int i = 0; i < count; i++) jids[i] = frames[i].method;

    jclass arrk = (*env)->FindClass(env, "[Ljava/lang/String;");
    jobjectArray both = (*env)->NewObjectArray(env, 2, arrk, NULL);
    (*env)->SetObjectArrayElement(env, both, 0, names_of(env, ids, n));
    (*env)->SetObjectArrayElement(env, both, 1, names_of(env, jids, count));
    return both;
}

/* Whether name is one of the '|'-separated alternatives. */
static int name_in(const char *name, const char *alternatives)
{
    size_t n = strlen(name);
    for (const char *p = alternatives; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p += len + (bar != NULL);
    }
    return 0;
}

/* Samples thread tid `count` times in `mode` (0 signal, 1 thread) with
 * cases from `strategy` (0 none, 1 random, 2 near) or, if text is non-null,
 * that case. Returns counters {ran, positive, faults, max_frames, top_hits}
 * where top_hits counts walks whose top 3 frames include a method named
 * `want` (alternatives separated by '|'). */
JNIEXPORT jlongArray JNICALL Java_Probe_sample(JNIEnv *env, jclass k, jint tid, jint mode, jint strategy,
                                               jstring text, jint count, jlong seed, jstring want)
{
    (void)k;
    static struct request r;
    long counters[5] = {0};
    char wanted[128] = "";
    if (want) {
        const char *w = (*env)->GetStringUTFChars(env, want, NULL);
        snprintf(wanted, sizeof wanted, "%s", w);
        (*env)->ReleaseStringUTFChars(env, want, w);
    }
    struct case_prog fixed;
    int have_fixed = 0;
    if (text) {
        const char *t = (*env)->GetStringUTFChars(env, text, NULL);
        char err[256];
        have_fixed = case_parse_text(t, &fixed, err, sizeof err) == 0;
        if (!have_fixed) fprintf(stderr, "probe: bad case text: %s\n", err);
        (*env)->ReleaseStringUTFChars(env, text, t);
        if (!have_fixed) return NULL;
    }
    uint64_t rng = (uint64_t)seed;
    for (int i = 0; i < count; i++) {
        memset(&r, 0, sizeof r);
        if (have_fixed) r.prog = fixed, r.len = case_encode(&r.prog, r.bytes);
        else r.len = casegen_make((enum casegen_strategy)strategy, &rng, arch_reg_count(), &r.prog, r.bytes);
        r.prog.mode = (uint8_t)mode;
        if (run_on(tid, mode, &r)) continue;
        counters[0]++;
        counters[1] += r.out.ret > 0;
        counters[2] += r.out.guard_rc > 0;
        if (r.out.frames > counters[3]) counters[3] = r.out.frames;
        for (int f = 0; wanted[0] && api->method_to_jmethodid && f < 3 && f < r.out.frames; f++) {
            const struct jmethod_entry *e = jmethods_resolve(api->method_to_jmethodid(r.frames[f].method));
            if (e && name_in(e->name, wanted)) {
                counters[4]++;
                break;
            }
        }
    }
    jlongArray out = (*env)->NewLongArray(env, 5);
    jlong tmp[5];
    for (int i = 0; i < 5; i++) tmp[i] = counters[i];
    (*env)->SetLongArrayRegion(env, out, 0, 5, tmp);
    return out;
}

/* Walks this thread with a planted invalid frames pointer. Returns
 * "sig si_addr record-path", or "none" if nothing faulted. */
JNIEXPORT jstring JNICALL Java_Probe_plantedFault(JNIEnv *env, jclass k, jlong bad)
{
    (void)k;
    static struct request r;
    memset(&r, 0, sizeof r);
    r.len = case_encode(&r.prog, r.bytes);
    api_agct_plant_bad_frames((void *)(uintptr_t)bad);
    int ran = run_on(threads_gettid(), MODE_SIGNAL, &r);
    api_agct_plant_bad_frames(NULL);
    char buf[512] = "none";
    if (ran == 0 && r.out.guard_rc > 0)
        snprintf(buf, sizeof buf, "%d 0x%lx %s", r.out.fault.sig, (unsigned long)r.out.fault.addr, r.out.fault.record);
    return (*env)->NewStringUTF(env, buf);
}

/* A guarded call that faults, described with a case pointer that is bad:
 * writing its crash record faults again, inside the guard's handler. The
 * guard must pass that fault on so the JVM writes its report. */
static void write_low(void *p) { *(volatile int *)p = 1; }
static const struct guard_call bad_case = {"agct", "test", "direct", (const uint8_t *)0x60, 16, NULL, NULL, 0, 0};
static void fault_with_bad_case(int sig)
{
    (void)sig;
    guard_run(write_low, (void *)0x70, &bad_case, NULL);
}
/* From a signal handler on thread tid, interrupted in Java code, as the
 * agent's walks run. */
JNIEXPORT void JNICALL Java_Probe_faultInHandler(JNIEnv *env, jclass k, jint tid)
{
    (void)env, (void)k;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fault_with_bad_case;
    sigemptyset(&sa.sa_mask);
    sigaction(SAMPLE_SIGNAL, &sa, NULL);
    syscall(SYS_tgkill, getpid(), tid, SAMPLE_SIGNAL);
}

/* Walks thread tid with unmutated cases for `millis`, one at a time (signal,
 * handler walk, answer). Returns {walks, traces, elapsed_ns, ns_in_walks}
 * where ns_in_walks is the time inside exec_case as measured around it. */
JNIEXPORT jlongArray JNICALL Java_Probe_benchWalks(JNIEnv *env, jclass k, jint tid, jint millis, jboolean protect)
{
    (void)k;
    static struct request r;
    memset(&r, 0, sizeof r);
    r.len = case_encode(&r.prog, r.bytes);
    guard_set_enabled(protect);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long elapsed = 0, walks = 0, traces = 0;
    while (elapsed < (long long)millis * 1000000LL) {
        if (run_on(tid, MODE_SIGNAL, &r) == 0) walks++, traces += r.out.ret > 0;
        clock_gettime(CLOCK_MONOTONIC, &t);
        elapsed = (t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec);
    }
    guard_set_enabled(1);
    jlong v[3] = {walks, traces, elapsed};
    jlongArray out = (*env)->NewLongArray(env, 3);
    (*env)->SetLongArrayRegion(env, out, 0, 3, v);
    return out;
}

struct first_answers {
    int first, second, type;
};

static void two_next_frames(ASGST_Iterator *it, void *arg)
{
    struct first_answers *a = arg;
    ASGST_Frame f, g;
    a->first = api->next_frame(it, &f);
    a->type = f.type;
    a->second = api->next_frame(it, &g);
}

/* agct's iterator with END_ON_FIRST_JAVA_FRAME over two frames: the first
 * NextFrame's answer, the second's and the first frame's type, as
 * {first, second, type}; null when the backend is not agct. The prototype
 * answers 0 with the frame filled, then 0 (docs/asgst-api.md). */
JNIEXPORT jintArray JNICALL Java_Probe_endOnFirstAnswers(JNIEnv *env, jclass k)
{
    (void)k;
    if (api->kind != API_AGCT) return NULL;
    ASGCT_CallFrame frames[2] = {{17, (jmethodID)0x1000}, {3, (jmethodID)0x2000}};
    struct first_answers a = {9, 9, -1};
    api_agct_run_over_frames(frames, 2, ASGST_END_ON_FIRST_JAVA_FRAME, two_next_frames, &a);
    jintArray out = (*env)->NewIntArray(env, 3);
    jint tmp[3] = {a.first, a.second, a.type};
    if (out) (*env)->SetIntArrayRegion(env, out, 0, 3, tmp);
    return out;
}

/* Calls counted by a fake ASGST provider (tests/jvm/fake_asgst.c), -1 if none is loaded. */
JNIEXPORT jlong JNICALL Java_Probe_fakeCalls(JNIEnv *env, jclass k)
{
    (void)env, (void)k;
    long *calls = dlsym(RTLD_DEFAULT, "fake_asgst_calls");
    return calls ? *calls : -1;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[512];
    if (options_parse(options, probe_options, &cfg, err, sizeof err)) {
        fprintf(stderr, "probe: %s\nprobe options:\n", err);
        options_help(probe_options, 2);
        return JNI_ERR;
    }
    struct startup_config sc = {.api = cfg.api, .protect = cfg.protect, .max_records = -1, .out = cfg.out};
    if (!(api = startup_attach(vm, &sc, err, sizeof err))) {
        fprintf(stderr, "probe: %s\n", err);
        return JNI_ERR;
    }
    api_report(api, 2);
    fprintf(stderr, "probe: guard mode %s, protection %s\n", guard_mode_name(), cfg.protect ? "on" : "off");
    if (target_install(SAMPLE_SIGNAL, 0)) {
        fprintf(stderr, "probe: cannot install the sampling handler\n");
        return JNI_ERR;
    }
    return JNI_OK;
}
