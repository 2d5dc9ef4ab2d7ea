/* The harness core (see harness.h). */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jni.h>
#include "agct.h"
#include "api.h"
#include "arch.h"
#include "feedback.h"
#include "guard.h"
#include "inflight.h"
#include "record.h"
#include "stack_watch.h"
#include "casefix.h"
#include "harness.h"
#include "placement.h"
#include "jit_code.h"
#include "jmethods.h"
#include "jvm_regions.h"
#include "jvm_threads.h"
#include "lifecycle.h"
#include "options.h"
#include "info_calls.h"
#include "qops.h"
#include "walker_cov.h"
#include "queue_agct.h"
#include "regions.h"
#include "sigsafe.h"
#include "startup.h"
#include "target.h"
#include "vm_warmup.h"

#define SAMPLE_SIGNAL SIGPROF
#define MAX_WORKERS 64
#define WORKER_GLOB "asgst-worker-*"
#define WORKER_WAIT_MS 20000
#define REFRESH_NS 2000000000LL /* region snapshot refresh: the code cache grows */
#define MAX_JVM_OPTIONS 64
#define QUEUE_SIZE 64
#define QUEUE_PERIOD_NS 1000000LL

/* ---- configuration from the environment ---- */

enum env_type { ENV_STR, ENV_BOOL, ENV_LONG, ENV_ADDR };

struct env_def {
    const char *name;
    enum env_type type;
    size_t offset;
    long min, max;
};

#define CFG(field) offsetof(struct harness_config, field)
static const struct env_def env_defs[] = {
    {"ASGF_API", ENV_STR, CFG(api), 0, 0},
    {"ASGF_SCENARIO", ENV_STR, CFG(scenario), 0, 0},
    {"ASGF_WORKERS", ENV_LONG, CFG(workers), 1, MAX_WORKERS},
    {"ASGF_OUT", ENV_STR, CFG(out), 0, 0},
    {"ASGF_JVM_OPTS", ENV_STR, CFG(jvm_opts), 0, 0},
    {"ASGF_CLASSPATH", ENV_STR, CFG(classpath), 0, 0},
    {"ASGF_KEEP_GOING", ENV_BOOL, CFG(keep_going), 0, 0},
    {"ASGF_FEEDBACK", ENV_BOOL, CFG(feedback), 0, 0},
    {"ASGF_PROTECT", ENV_BOOL, CFG(protect), 0, 0},
    {"ASGF_CASE_TIMEOUT_MS", ENV_LONG, CFG(case_timeout_ms), 1, 60000},
    {"ASGF_SPIN_US", ENV_LONG, CFG(spin_us), 0, 1000},
    {"ASGF_GAP_US", ENV_LONG, CFG(gap_us), 0, 10000},
    {"ASGF_BATCH", ENV_LONG, CFG(batch), 1, 4096},
    {"ASGF_HOLD_US", ENV_LONG, CFG(hold_us), 1, 100000},
    {"ASGF_SHARED_HOLD_US", ENV_LONG, CFG(shared_hold_us), 1, 100000},
    {"ASGF_PIN", ENV_BOOL, CFG(pin), 0, 0},
    {"ASGF_PLACEMENT", ENV_STR, CFG(placement), 0, 0},
    {"ASGF_WARMUP_MS", ENV_LONG, CFG(warmup_ms), 0, 60000},
    {"ASGF_TEST_PLANT", ENV_ADDR, CFG(test_plant), 0, 0},
    {"ASGF_QUIET", ENV_BOOL, CFG(quiet), 0, 0},
    {"ASGF_AFL_LOOP", ENV_LONG, CFG(afl_loop), 1, 1000000000},
    {"ASGF_RECORDS_PER_KEY", ENV_LONG, CFG(records_per_key), 1, 1000000000},
    {"ASGF_MAX_RECORDS", ENV_LONG, CFG(max_records), 0, 1000000000},
    {"ASGF_WATCH", ENV_LONG, CFG(watch), 0, STACK_WATCH_MAX},
    {"ASGF_WALKER_COV", ENV_BOOL, CFG(walker_cov), 0, 0},
    {"ASGF_WALKER_FEEDBACK", ENV_BOOL, CFG(walker_feedback), 0, 0},
    {"ASGF_VTHREAD_WARMUP", ENV_BOOL, CFG(vthread_warmup), 0, 0},
    {NULL, 0, 0, 0, 0},
};

static int errorf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

static int set_from_env(struct harness_config *c, const struct env_def *d, const char *v, char *err,
                        size_t errlen)
{
    void *field = (char *)c + d->offset;
    const char *why = NULL;
    long l;
    switch (d->type) {
    case ENV_STR: *(const char **)field = v; return 0;
    case ENV_BOOL: why = opt_parse_bool(v, (int *)field); break;
    case ENV_LONG:
        why = opt_parse_long(v, d->min, d->max, &l);
        if (!why && d->offset == CFG(workers)) *(int *)field = (int)l;
        else if (!why) *(long *)field = l;
        break;
    case ENV_ADDR: {
        char *end;
        errno = 0;
        unsigned long long a = strtoull(v, &end, 0);
        if (errno || !*v || *end) why = "expected an address such as 0x10, got";
        else *(uint64_t *)field = a;
        break;
    }
    }
    return why ? errorf(err, errlen, "%s: %s \"%s\"", d->name, why, v) : 0;
}

/* CPUs this process may run on (a campaign pins each job to its own). */
static int allowed_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) ? 2 : CPU_COUNT(&set);
}

/* One busy worker per core, leaving a core to the fuzzer thread: a worker
 * that waits for a core answers its signal a scheduler tick late. */
static int default_workers(void)
{
    int n = allowed_cpus();
    return n > 1 ? (n - 1 < MAX_WORKERS ? n - 1 : MAX_WORKERS) : 1;
}

/* Spinning for the worker's answer pays only while the worker can run on
 * another CPU at the same time: confined to one CPU, the fuzzer thread's
 * spin only keeps the worker from running. */
static long default_spin_us(void) { return allowed_cpus() > 1 ? 50 : 0; }

int harness_config_from_env(struct harness_config *c, char *err, size_t errlen)
{
    extern char **environ;
    *c = (struct harness_config){
        .api = "auto", .placement = "auto", .scenario = "loop", .workers = default_workers(), .out = "./fuzz-out", .jvm_opts = "",
        .classpath = "", .feedback = 1, .protect = 1, .case_timeout_ms = 500, .spin_us = -1, .gap_us = 20, .batch = 128, .hold_us = 200, .shared_hold_us = 2000, .warmup_ms = 300,
        .afl_loop = 1000000, .mode_override = -1, .records_per_key = RECORD_PER_KEY_DEFAULT,
        .watch = STACK_WATCH_DEFAULT,
        .max_records = RECORD_TOTAL_DEFAULT, .walker_cov = 1, .walker_feedback = 1, .vthread_warmup = 1,
    };
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "ASGF_", 5)) continue;
        if (!strncmp(*e, "ASGF_FAKE_", 10)) continue; /* the test stand-in provider's (tests/jvm/fake_proto.c) */
        if (!strncmp(*e, "ASGF_SYSROOT=", 13)) continue; /* the record writer's (src/record.h) */
        if (!strncmp(*e, "ASGF_PRELOAD=", 13)) continue; /* fuzz/replay's (fuzz/replay-env.sh) */
        if (!strncmp(*e, "ASGF_IN_JDK_ROOT=", 17)) continue; /* asgf-afl's (fuzz/afl.c) */
        if (!strncmp(*e, "ASGF_WALKER_BLOCKS=", 19)) continue; /* walker coverage's (src/walker_cov.h) */
        if (!strncmp(*e, "ASGF_CORPUS_STAGE=", 18) || !strncmp(*e, "ASGF_STAGE_", 11))
            continue; /* fuzz/run-libfuzzer's (fuzz/corpus-stage.sh) */
        if (!strncmp(*e, "ASGF_STRUCT_MUTATE=", 19)) { /* the mutators' (fuzz/casefix.h) */
            if (casefix_struct_share_parse(*e + 19) < 0)
                return errorf(err, errlen, "ASGF_STRUCT_MUTATE: expected a percentage 0..100, got \"%s\"", *e + 19);
            continue;
        }
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        const struct env_def *d = env_defs;
        while (d->name && (strlen(d->name) != n || strncmp(d->name, *e, n))) d++;
        if (!d->name) {
            fprintf(stderr, "asgf: warning: unknown environment variable %.*s ignored (known:", (int)n, *e);
            for (d = env_defs; d->name; d++) fprintf(stderr, " %s", d->name);
            fprintf(stderr, ")\n");
            continue;
        }
        if (set_from_env(c, d, eq ? eq + 1 : "", err, errlen)) return -1;
    }
    enum api_kind k;
    if (api_kind_parse(c->api, &k))
        return errorf(err, errlen, "ASGF_API: expected auto, asgst or agct, got \"%s\"", c->api);
    if (placement_parse(c->placement) < 0)
        return errorf(err, errlen, "ASGF_PLACEMENT: expected auto, spread or together, got \"%s\"", c->placement);
    if (!*c->scenario) return errorf(err, errlen, "ASGF_SCENARIO: empty scenario name");
    if (!*c->out) return errorf(err, errlen, "ASGF_OUT: empty directory name");
    return 0;
}

/* ---- state ---- */

static struct {
    struct harness_config cfg;
    int started;
    JavaVM *vm;
    const struct api *api;
    _Atomic int worker_tid[MAX_WORKERS];
    ASGST_Queue *_Atomic queue[MAX_WORKERS];
    _Atomic unsigned long long queue_walks, queue_frames;
    long long next_refresh, up_ns;
    unsigned long long runs, rejected, not_run, faults, queue_mode, unsupported, substituted;
    unsigned long long images_built, images_foreign; /* stk cases: forged on a stack copy, or not */
    unsigned long long watch_walks;                  /* walks that stored into the live thread (src/stack_watch.h) */
    unsigned long long watch_left;                   /* of their words, those not in the anchor fill's shape: left */
    unsigned long long outcome[FEEDBACK_CLASSES];
} h;

const struct harness_config *harness_cfg(void) { return &h.cfg; }

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static int mkdirs(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* ---- workers ---- */

/* Queue handler: walks the iterator it is given (the walk of an enqueued
 * element happens later, on the backend's processing thread or at the
 * worker's safepoint, so its outcome cannot be credited to the input that
 * enqueued it; it is counted). The enqueue arg is not dereferenced: it
 * points at an input buffer that is gone by now. */
static void on_queue_element(ASGST_Iterator *it, void *queue_arg, void *enqueue_arg)
{
    (void)enqueue_arg;
    int n = lc_walk(h.api, it, "queue_handler", EXEC_WALK_LIMIT, NULL, NULL);
    atomic_fetch_add(&h.queue_walks, 1);
    if (n > 0) atomic_fetch_add(&h.queue_frames, (unsigned long long)n);
    /* The handshake half of the qop records of earlier cases on this
     * worker (queue_arg: its registry slot + 1), guarded like the call. */
    qops_run_handshake(h.api, (int)(intptr_t)queue_arg - 1, it);
}

/* On the new worker, at ThreadStart: note its tid and give it a queue
 * (RegisterQueue must run on the thread that owns the queue). */
static void on_worker_start(JNIEnv *jni, const char *name, int index)
{
    (void)name;
    if (index < 0 || index >= MAX_WORKERS) return;
    const struct thread_info *self = threads_find(threads_gettid());
    int slot = self ? threads_slot(self) : -1;
    void *arg = (void *)(intptr_t)(slot + 1);
    /* Every case it runs is on disk before the call: a VM that dies of
     * one unprotected (or while writing its report) leaves the input
     * beside its hs_err, whatever the fuzzer manages to save. */
    inflight_open(h.cfg.out); /* says why on stderr when it cannot */
    ASGST_Queue *q = lc_register_queue(h.api, jni, QUEUE_SIZE, on_queue_element, arg);
    atomic_store(&h.queue[index], q);
    qops_thread_start(slot, q, on_queue_element, arg, QUEUE_SIZE);
    atomic_store(&h.worker_tid[index], threads_gettid());
}

static void on_worker_end(JNIEnv *jni, const char *name, int index)
{
    (void)name;
    if (index < 0 || index >= MAX_WORKERS) return;
    atomic_store(&h.worker_tid[index], 0);
    const struct thread_info *self = threads_find(threads_gettid());
    ASGST_Queue *q = atomic_exchange(&h.queue[index], NULL), *current;
    ASGST_FrameMark *mark;
    qops_thread_end(self ? threads_slot(self) : -1, &current, &mark);
    if (current) q = current; /* a reregister qop replaced it */
    lc_remove_frame_mark(h.api, mark);
    lc_deregister_queue(h.api, jni, q);
    inflight_close(0);
}

/* A normal exit removes the in-flight files (the fuzzer thread's own, for
 * its thread-mode walks, and the workers'); a crash leaves them for triage. */
void harness_remove_inflight(void)
{
    if (h.cfg.out) inflight_remove_all(h.cfg.out);
}

static int live_workers(void)
{
    int n = 0;
    for (int i = 0; i < h.cfg.workers; i++) n += atomic_load(&h.worker_tid[i]) != 0;
    return n;
}

/* The worker a case's worker byte picks: one of the first `workers`
 * registered threads, with its queue; if that one ended (stress scenarios
 * that recycle threads), any other registered thread but this one, without
 * a queue. 0 if there is none. */
static int pick_worker(unsigned w, ASGST_Queue **queue)
{
    unsigned i = w % (unsigned)h.cfg.workers;
    int tid = atomic_load(&h.worker_tid[i]);
    *queue = tid ? atomic_load(&h.queue[i]) : NULL;
    if (tid) return tid;
    const struct thread_info *t = threads_other(threads_gettid(), w);
    return t ? t->tid : 0;
}

/* ASGF_PIN: the fuzzer thread on the first CPU this process may use, the
 * workers on the others, so neither migrates nor waits behind the other
 * (about a tenth faster under libFuzzer+ASan, docs/figures.md). Only for
 * one job on an otherwise idle machine: parallel jobs would all pin to the
 * same CPUs. */
static void pin_threads(void)
{
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) || CPU_COUNT(&allowed) < 2) return;
    int cpus[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) cpus[n++] = c;
    CPU_ZERO(&one);
    CPU_SET(cpus[0], &one);
    sched_setaffinity(0, sizeof one, &one);
    for (int i = 0; i < h.cfg.workers; i++) {
        int tid = atomic_load(&h.worker_tid[i]);
        if (!tid) continue;
        CPU_ZERO(&one);
        CPU_SET(cpus[1 + i % (n - 1)], &one);
        sched_setaffinity(tid, sizeof one, &one);
    }
}

static JNIEnv *env_of_this_thread(void)
{
    JNIEnv *env = NULL;
    if ((*h.vm)->GetEnv(h.vm, (void **)&env, JNI_VERSION_1_8) == JNI_EDETACHED)
        (*h.vm)->AttachCurrentThreadAsDaemon(h.vm, (void **)&env, NULL);
    return env;
}

static int start_workload(JNIEnv *env, char *err, size_t errlen)
{
    jclass k = (*env)->FindClass(env, "asgf/fuzz/Workload");
    if (!k) {
        (*env)->ExceptionClear(env);
        return errorf(err, errlen, "class asgf.fuzz.Workload not found next to the binary (make fuzz-build)");
    }
    jmethodID start = (*env)->GetStaticMethodID(env, k, "start", "(Ljava/lang/String;I)I");
    jstring name = start ? (*env)->NewStringUTF(env, h.cfg.scenario) : NULL;
    jint n = name ? (*env)->CallStaticIntMethod(env, k, start, name, (jint)h.cfg.workers) : -2;
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionDescribe(env);
        (*env)->ExceptionClear(env);
        return errorf(err, errlen, "starting the workload failed with a Java exception (above)");
    }
    if (n < 0)
        return errorf(err, errlen,
                      "unknown scenario \"%s\": neither the harness's own (loop, mixed) nor a stress/run "
                      "scenario (stress/README.md: Main --list names them; built by 'make stress')",
                      h.cfg.scenario);
    if (n > MAX_WORKERS) n = MAX_WORKERS;
    if (n > h.cfg.workers) h.cfg.workers = n; /* stress: `workers` threads per scenario */
    for (long waited = 0; live_workers() < h.cfg.workers; waited += 10) {
        if (waited >= WORKER_WAIT_MS)
            return errorf(err, errlen, "only %d of %d workers named %s started within %d ms", live_workers(),
                          h.cfg.workers, WORKER_GLOB, WORKER_WAIT_MS);
        sleep_ms(10);
    }
    return 0;
}

/* ---- the JVM ---- */

static const char *exe_dir(void)
{
    static char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) return ".";
    dir[n] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    return dir;
}

/* Whether a JVM option list selects a garbage collector (-XX:+Use...GC). */
static int chooses_gc(const char *opts)
{
    for (const char *p = strstr(opts, "-XX:+Use"); p; p = strstr(p + 1, "-XX:+Use")) {
        size_t n = strcspn(p, " \t\n");
        if (n > 10 && !strncmp(p + n - 2, "GC", 2)) return 1;
    }
    return 0;
}

static int create_vm(JNIEnv **env, char *err, size_t errlen)
{
    static char classpath[3 * PATH_MAX + 64], errfile[PATH_MAX + 64], native[PATH_MAX + 64], extra[4096];
    const char *dir = exe_dir();
    struct stat st;
    char stress[PATH_MAX];
    snprintf(stress, sizeof stress, "%s/../stress/classes", dir);
    int n = snprintf(classpath, sizeof classpath, "-Djava.class.path=%s%s%s/classes", h.cfg.classpath,
                     *h.cfg.classpath ? ":" : "", dir);
    if (!stat(stress, &st) && n > 0 && (size_t)n < sizeof classpath)
        snprintf(classpath + n, sizeof classpath - (size_t)n, ":%s", stress);
    snprintf(errfile, sizeof errfile, "-XX:ErrorFile=%s/hs_err_pid%%p.log", h.cfg.out);
    /* The stress workloads' JNI scenario finds its library through this. */
    snprintf(native, sizeof native, "-Dasgst.stress.native=%s/../lib/libstressnative.so", dir);

    JavaVMOption opts[MAX_JVM_OPTIONS];
    int nopts = 0;
    const char *fixed[] = {classpath, "-Xmx128m", "-XX:-UsePerfData", "-Xrs", errfile, native};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) opts[nopts++].optionString = (char *)fixed[i];
    /* Serial GC unless ASGF_JVM_OPTS picks a collector (two would refuse to start). */
    if (!chooses_gc(h.cfg.jvm_opts)) opts[nopts++].optionString = (char *)"-XX:+UseSerialGC";
    if (strlen(h.cfg.jvm_opts) >= sizeof extra) return errorf(err, errlen, "ASGF_JVM_OPTS too long");
    strcpy(extra, h.cfg.jvm_opts);
    for (char *save, *o = strtok_r(extra, " \t\n", &save); o; o = strtok_r(NULL, " \t\n", &save)) {
        if (nopts == MAX_JVM_OPTIONS) return errorf(err, errlen, "ASGF_JVM_OPTS: more than %d options", MAX_JVM_OPTIONS);
        opts[nopts++].optionString = o;
    }
    for (int i = 0; i < nopts; i++) opts[i].extraInfo = NULL;
    /* A SIGSEGV handler already here (a sanitizer runtime's) becomes
     * HotSpot's chained handler, which JVM_handle_linux_signal calls for
     * faults it does not know: it would see faults in guarded calls before
     * the guard does. */
    struct sigaction pre;
    if (!sigaction(SIGSEGV, NULL, &pre) && (pre.sa_flags & SA_SIGINFO ? pre.sa_sigaction != NULL
                                                                      : pre.sa_handler != SIG_DFL))
        fprintf(stderr, "asgf: WARNING: a SIGSEGV handler is installed before the JVM (a sanitizer runtime? set "
                        "ASAN_OPTIONS/UBSAN_OPTIONS=handle_segv=0 as fuzz/run-libfuzzer does): it will see "
                        "faults inside guarded calls before the guard\n");
    JavaVMInitArgs args = {JNI_VERSION_1_8, nopts, opts, JNI_FALSE};
    jint rc = JNI_CreateJavaVM(&h.vm, (void **)env, &args);
    if (rc != JNI_OK) return errorf(err, errlen, "JNI_CreateJavaVM failed (%d); options: %s", (int)rc, h.cfg.jvm_opts);
    return 0;
}

/* "VERSION at JAVA_HOME" of the running VM, so that a replay or a fuzzer
 * log says which build it ran on (a wrapper's JAVA_HOME is easy to lose). */
static void describe_vm(char *buf, size_t n)
{
    jvmtiEnv *jvmti = jmethods_jvmti();
    char *version = NULL, *home = NULL;
    if (jvmti) {
        if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.version", &version) != JVMTI_ERROR_NONE) version = NULL;
        if ((*jvmti)->GetSystemProperty(jvmti, "java.home", &home) != JVMTI_ERROR_NONE) home = NULL;
    }
    snprintf(buf, n, "%s at %s", version ? version : "(version unknown)", home ? home : "(java.home unknown)");
    if (version) (*jvmti)->Deallocate(jvmti, (unsigned char *)version);
    if (home) (*jvmti)->Deallocate(jvmti, (unsigned char *)home);
}

int harness_start(const struct harness_config *c, char *err, size_t errlen)
{
    if (h.started) return 0;
    h.cfg = *c;
    long long t0 = sigsafe_now_ns();
    if (mkdirs(h.cfg.out)) return errorf(err, errlen, "cannot create %s: %s", h.cfg.out, strerror(errno));
    if (record_note_sysroot(h.cfg.out))
        return errorf(err, errlen, "cannot write %s/sysroot: %s", h.cfg.out, strerror(errno));
    inflight_open(h.cfg.out); /* says why on stderr when it cannot */
    atexit(harness_remove_inflight);

    JNIEnv *env;
    if (create_vm(&env, err, errlen)) return -1;
    if (record_note_libraries(h.cfg.out))
        return errorf(err, errlen, "cannot write %s/libraries: %s", h.cfg.out, strerror(errno));
    const char *why = NULL;
    /* The core's start-up path; its guard goes in PRIMARY mode here:
     * installed after JNI_CreateJavaVM, our handler sits in front of
     * HotSpot's and hands it every fault it does not own. The JIT code
     * table is always attached: region nmethod_tail needs it. */
    struct jvm_threads_config tc = {WORKER_GLOB, on_worker_start, on_worker_end};
    struct startup_config sc = {.jit_code = 1, .test_plant = (uintptr_t)h.cfg.test_plant, .protect = h.cfg.protect,
                                .max_records = -1, .out = h.cfg.out, .threads = &tc};
    api_kind_parse(h.cfg.api, &sc.api);
    record_set_limits(h.cfg.records_per_key, h.cfg.max_records);
    stack_watch_set(h.cfg.watch, h.cfg.protect);
    if (!(h.api = startup_attach(h.vm, &sc, err, errlen))) return -1;
    if (h.cfg.vthread_warmup && vm_warmup_continuation(env, &why) < 0) return errorf(err, errlen, "virtual-thread warm-up: %s", why);
    /* Unloaded methods become the stale handles of method_info cases. */
    lc_register_unload_handler(h.api, info_calls_on_unload, NULL);
    int caps = lc_capabilities(h.api);
    /* The agct backend's queue API: a ring per worker, drained by a
     * processing thread that walks with JVMTI (src/queue_agct.h). */
    if (h.api->kind == API_AGCT && queue_agct_start(jmethods_jvmti(), env, QUEUE_PERIOD_NS, 0, &why))
        return errorf(err, errlen, "agct queue: %s", why);
    if (h.cfg.spin_us < 0) h.cfg.spin_us = default_spin_us();
    if (target_install(SAMPLE_SIGNAL, h.cfg.spin_us * 1000LL)) return errorf(err, errlen, "cannot install the SIGPROF handler");
    target_set_batch((int)h.cfg.batch, h.cfg.hold_us * 1000LL);
    if (allowed_cpus() == 1) target_set_shared_cpu(h.cfg.gap_us * 1000LL, h.cfg.shared_hold_us * 1000LL);

    if (start_workload(env, err, errlen)) return -1;
    /* Registered after the workers (so it is never a worker): gives
     * REGION_OTHER_STACK a second stack even with one worker, and thread
     * mode walks from an attached thread, as a profiler's sampler would. */
    threads_register_self("asgf-fuzzer", env);
    if (h.cfg.pin) pin_threads();
    sleep_ms(h.cfg.warmup_ms);
    jvm_regions_refresh(env);
    /* After the warm-up: the VM's start-up code is not what the cases reach. */
    char cov[300] = "walker coverage: off (ASGF_WALKER_COV=0)";
    if (h.cfg.walker_cov && !wcov_start(cov, sizeof cov)) {
        struct wcov_counts wc;
        wcov_counts(&wc);
        snprintf(cov, sizeof cov, "walker coverage: %u blocks in %u functions armed", wc.blocks, wc.functions);
    }
    h.up_ns = sigsafe_now_ns();
    h.next_refresh = h.up_ns + REFRESH_NS;
    h.started = 1;
    int cpus = allowed_cpus(); /* what the process was given, before placement narrows it */
    if (!h.cfg.pin) placement_start((enum placement_mode)placement_parse(h.cfg.placement), h.cfg.spin_us * 1000LL, h.cfg.gap_us * 1000LL,
                                     h.cfg.shared_hold_us * 1000LL);
    char vm[512];
    describe_vm(vm, sizeof vm);
    if (!h.cfg.quiet)
        fprintf(stderr,
                "asgf: JVM up in %lld ms: VM %s, backend %s (capabilities 0x%x), guard %s, protection %s, %d workers (%s), "
                "%d CPUs, spin %ld us, placement %s, records in %s, feedback %s%s; %s\n",
                (sigsafe_now_ns() - t0) / 1000000, vm, h.api->name, caps, guard_mode_name(), h.cfg.protect ? "on" : "off",
                h.cfg.workers, h.cfg.scenario, cpus, h.cfg.spin_us, placement_name(), h.cfg.out,
                h.cfg.feedback ? "on" : "off", h.cfg.test_plant ? ", TEST HOOK: frames planted at ASGF_TEST_PLANT" : "",
                cov);
    return 0;
}

/* ---- running cases ---- */

enum harness_rc harness_run(const uint8_t *buf, size_t len, struct harness_result *r)
{
    /* Field by field: frames is the walk's to fill, prog the decoder's, out
     * the worker's (exec_case clears it; cleared here only for a case that
     * did not run). Clearing all 2.6 KB cost every run more than the rest of
     * this, and clearing out here moved its lines to this CPU and back. */
    r->tid = 0, r->target_rc = TARGET_NO_SIGNAL, r->slot = -1, r->lots_before = r->caught_before = 0;
    r->err_offset = 0, r->err = NULL;
    if (case_validate_decode(buf, len, &r->prog, &r->err_offset, &r->err)) {
        h.rejected++;
        return HARNESS_REJECT;
    }
    if (h.cfg.mode_override >= 0) r->prog.mode = (uint8_t)h.cfg.mode_override;
    h.runs++;
    if (sigsafe_now_ns() > h.next_refresh) {
        target_release(); /* the refresh may need the held worker at a safepoint */
        JNIEnv *env = env_of_this_thread();
        if (env) jvm_regions_refresh(env);
        h.next_refresh = sigsafe_now_ns() + REFRESH_NS;
    }
    ASGST_Queue *q;
    r->tid = pick_worker(r->prog.worker, &q);
    r->target_rc = TARGET_NO_SIGNAL;
    if (r->tid) {
        const struct thread_info *t = threads_find(r->tid);
        struct guard_counters gc;
        guard_counters(&gc);
        r->slot = t ? threads_slot(t) : -1;
        r->lots_before = qops_lots_done(r->slot), r->caught_before = gc.caught;
        struct exec_ctx cx = {h.api, case_mode_name(r->prog.mode), buf, len, q, r->frames, HARNESS_FRAMES};
        r->target_rc = target_run(r->tid, r->prog.mode, &cx, &r->prog, &r->out, h.cfg.case_timeout_ms * 1000000LL);
        placement_tick();
        wcov_rearm(); /* blocks the VM's own threads reached, back for the walks (feedback on or off) */
    }
    if (r->target_rc != TARGET_RAN) {
        memset(&r->out, 0, sizeof r->out);
        h.not_run++;
        return HARNESS_NOT_RUN;
    }
    h.outcome[feedback_class(r->prog.entry, &r->out)]++;
    h.queue_mode += r->prog.mode == MODE_QUEUE;
    h.unsupported += r->out.fw == EXEC_UNBOUND || r->out.fw == EXEC_NO_QUEUE;
    h.substituted += r->out.substituted;
    h.images_built += r->out.image == STACK_IMAGE_BUILT;
    h.images_foreign += r->out.image == STACK_IMAGE_FOREIGN;
    h.watch_walks += stack_watch_recorded(&r->out.watch) > 0;
    h.watch_left += (unsigned long long)r->out.watch.left;
    if (r->out.guard_rc > 0) {
        h.faults++;
        return HARNESS_FAULT;
    }
    return HARNESS_RAN;
}

int harness_await_handshake(const struct harness_result *r, long timeout_ms)
{
    int later = 0;
    for (int i = 0; i < r->prog.nqop; i++) later |= case_qop_at_handshake(r->prog.qop[i].op);
    if (!later || r->slot < 0) return 0;
    struct timespec ms = {0, 1000000};
    for (long i = 0; qops_lots_done(r->slot) == r->lots_before; i++) {
        if (i >= timeout_ms) return -1;
        nanosleep(&ms, NULL);
    }
    struct guard_counters gc;
    guard_counters(&gc);
    return gc.caught > r->caught_before ? 2 : 1;
}

const char *harness_class_name(int c)
{
    static char names[FEEDBACK_CLASSES][40];
    if (c == FEEDBACK_CLASS_FAULT) return "FAULT";
    if (c == FEEDBACK_CLASS_OTHER) return "other";
    if (c == FEEDBACK_CLASSES - 1) return "queue:other";
    if (c >= FEEDBACK_CLASS_QUEUE && c < FEEDBACK_CLASSES) {
        if (!names[c][0]) snprintf(names[c], sizeof names[c], "queue:%s", asgst_code_name(feedback_class_code(c)));
        return names[c];
    }
    return harness_raw_name(feedback_class_code(c));
}

const char *harness_raw_name(int raw) { return api_raw_code_name(h.api, raw); }

void harness_fault(const struct harness_result *r)
{
    const struct guard_fault *f = &r->out.fault;
    /* Keep-going campaigns can catch thousands: the first ones and every
     * 1000th are printed, the records have them all. */
    if (h.cfg.keep_going && h.faults > 20 && h.faults % 1000) {
        if (h.faults == 21) fprintf(stderr, "asgf: more faults: every 1000th is printed, all are counted and recorded\n");
        return;
    }
    uintptr_t off = 0;
    const char *module = regions_module_of(f->pc, &off);
    fprintf(stderr,
            "asgf: fault caught after %.3f s, run %llu: %s si_code %d addr 0x%lx pc 0x%lx %s+0x%lx in %s (%s mode), "
            "record %s\n",
            (sigsafe_now_ns() - h.up_ns) / 1e9, h.runs, sigsafe_signame(f->sig), f->code, (unsigned long)f->addr,
            (unsigned long)f->pc, module ? module : "?", (unsigned long)off, case_entry_name(r->prog.entry),
            case_mode_name(r->prog.mode), f->record[0] ? f->record : "(none: counted under its key, past the record cap)");
    if (h.cfg.keep_going) return;
    harness_stats(2);
    fprintf(stderr, "asgf: aborting so the fuzzer saves this input (ASGF_KEEP_GOING=1 counts and goes on)\n");
    harness_remove_inflight(); /* the fault was caught: its record and the fuzzer keep the input, no hs_err comes */
    abort();
}

void harness_stats(int fd)
{
    struct guard_counters g;
    struct target_counters t;
    guard_counters(&g);
    target_counters(&t);
    dprintf(fd, "asgf: runs %llu, rejected %llu, not run %llu, faults caught %llu, queue-mode %llu, unsupported %llu, "
                "entry substituted %llu\n",
            h.runs, h.rejected, h.not_run, h.faults, h.queue_mode, h.unsupported, h.substituted);
    if (h.api) api_report_calls(h.api, fd);
    dprintf(fd, "asgf: stack images: built %llu, not built %llu (context not on the walked thread's own stack)\n",
            h.images_built, h.images_foreign);
    if (stack_watch_bytes())
        dprintf(fd, "asgf: live-frame watch (%ld bytes above sp): %llu walks stored into the walked thread (%s; %llu "
                    "words not in the anchor fill's shape left as found; write records)\n", stack_watch_bytes(),
                h.watch_walks, stack_watch_puts_back() ? "put back" : "left: protect=0", h.watch_left);
    dprintf(fd, "asgf: queue: handler walks %llu, frames %llu\n", (unsigned long long)h.queue_walks,
            (unsigned long long)h.queue_frames);
    dprintf(fd, "asgf: outcomes:");
    for (int c = 0; c < FEEDBACK_CLASSES; c++)
        if (h.outcome[c]) dprintf(fd, " %s=%llu", harness_class_name(c), h.outcome[c]);
    dprintf(fd, "\nasgf: guard: caught %llu (%llu of them counted only: past the per-key or total record cap), passed on %llu, claimed by JVM %llu, "
            "nested %llu, records failed %llu; target: timeouts %llu, held too long %llu, late signals %llu\n",
            (unsigned long long)g.caught, (unsigned long long)g.duplicates, (unsigned long long)g.passed_on,
            (unsigned long long)g.claimed_by_jvm, (unsigned long long)g.nested, (unsigned long long)g.records_failed,
            t.timeouts, t.held_too_long, t.late_signals);
    /* How far batching went, and whether walks still start in Java code. */
    dprintf(fd, "asgf: target: %llu cases on %llu signals (%.1f a signal, batch %ld, hold %ld us, %ld us on a shared CPU); "
                "from Java code %llu (%.1f %%)\n",
            t.ran, t.signals, t.signals ? (double)t.ran / (double)t.signals : 0.0, h.cfg.batch, h.cfg.hold_us,
            h.cfg.shared_hold_us,
            t.from_java, t.ran ? 100.0 * (double)t.from_java / (double)t.ran : 0.0);
    char where[160];
    placement_describe(where, sizeof where);
    dprintf(fd, "asgf: placement: %s\n", where);
    char cov[300];
    int cov_rc = wcov_finish(h.cfg.out, cov, sizeof cov);
    dprintf(fd, "asgf: %s%s\n", cov, cov_rc ? " (walker-coverage.txt could not be written)" : "");
}
