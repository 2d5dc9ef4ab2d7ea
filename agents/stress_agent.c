/*
 * asgf stress agent:
 *   java -agentpath:build/lib/libasgfagent.so=interval=100us,mode=signal,... -cp ... Main
 * Samples every matching Java thread each interval through the chosen API
 * backend, optionally on mutated contexts, under crash protection, and
 * reports statistics (stderr, and out/summary.json at exit). The options
 * are listed by agent_options.c (`-agentpath:...=help` prints them).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agent_config.h"
#include "corpus_cases.h"
#include "guard.h"
#include "inflight.h"
#include "record.h"
#include "stack_watch.h"
#include "jvm_regions.h"
#include "lifecycle.h"
#include "oracle.h"
#include "oracle_check.h"
#include "oracle_rules.h"
#include "info_calls.h"
#include "queue_agct.h"
#include "callback_gate.h"
#include "queue_ops.h"
#include "queue_verify.h"
#include "sample_handler.h"
#include "sampler.h"
#include "startup.h"
#include "stats.h"
#include "suspend_walker.h"
#include "vm_warmup.h"
#include "walker_cov.h"

/* The agent's state, here only: every module gets what it needs at init. */
static struct agent_config agent_cfg;
static const struct api *agent_api;
static jvmtiEnv *jvmti;
static char config_line[1024];

static void fail(const char *what, const char *why) { fprintf(stderr, "asgf: %s: %s\n", what, why); }

static void on_start(JNIEnv *jni, const char *name, int index)
{
    (void)name;
    sample_thread_start(jni, index);
    if (agent_cfg.oracle) oracle_thread_start(jni);
}

static void on_end(JNIEnv *jni, const char *name, int index)
{
    (void)name, (void)index;
    if (agent_cfg.oracle) oracle_thread_end(jni);
    sample_thread_end(jni);
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    (void)thread;
    const char *why;
    jvm_regions_refresh(jni);
    if (record_note_libraries(agent_cfg.out)) fail("libraries", "cannot write");
    char why_cov[300];
    if (agent_cfg.walker_cov && wcov_start(why_cov, sizeof why_cov)) fail("walker_cov", why_cov);
    /* Registered before the workload starts unloading classes: the handler
     * feeds the stale handles the info calls try. */
    lc_register_unload_handler(agent_api, info_calls_on_unload, NULL);
    if (agent_config_uses_queues(&agent_cfg, agent_api) && agent_api->kind == API_AGCT &&
        queue_agct_start(env, jni, 1000000, agent_cfg.depth, &why))
        fail("queue", why);
    if (agent_cfg.mode == MODE_QUEUE && agent_cfg.verify && queue_verify_start(env, jni))
        fail("queue verifier", "cannot start");
    if (((agent_cfg.mode == MODE_THREAD && agent_cfg.suspend) || agent_cfg.jvmti_walk) &&
        suspend_walker_start(env, jni, agent_cfg.interval_ns))
        fail("suspend walker", "cannot start");
    if (agent_cfg.oracle && oracle_start(env, jni, agent_cfg.out, agent_cfg.oracle_graph, &why)) fail("oracle", why);
    if (agent_cfg.vthread_warmup && vm_warmup_continuation(jni, &why) < 0) fail("virtual-thread warm-up", why);
    if (sampler_start(&agent_cfg, agent_api)) fail("sampler", "cannot start");
}

/* A clean exit leaves no crashing input: the in-flight files go at the end. */
static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni)
{
    (void)env, (void)jni;
    double t = sampler_elapsed_s();
    sampler_stop();
    gate_close();
    queue_agct_stop();
    suspend_walker_stop();
    queue_verify_stop();
    if (agent_cfg.oracle) oracle_stop();
    /* -1: it faulted, which the guard has recorded; 0: a wrong answer. */
    if (agent_api->deregister_class_unload_handler && !lc_deregister_unload_handler(agent_api, info_calls_on_unload, NULL))
        fail("class unload handler", "DeregisterClassUnloadHandler did not find the handler registered at VMInit");
    stats_summary(stderr, t);
    if (!agent_cfg.quiet) queue_ops_report(stderr);
    char path[600];
    if (agent_cfg.walker_cov) {
        char cov[300];
        if (wcov_finish(agent_cfg.out, cov, sizeof cov)) fail("walker-coverage.txt", "cannot write");
        fprintf(stderr, "asgf: %s\n", cov);
    }
    if (agent_cfg.verify) queue_verify_report(stderr);
    if (agent_cfg.oracle) {
        oracle_report(stderr);
        snprintf(path, sizeof path, "%s/oracle.json", agent_cfg.out);
        if (oracle_write_json(path)) fail(path, "cannot write");
    }
    snprintf(path, sizeof path, "%s/summary.json", agent_cfg.out);
    if (stats_write_json(path, t, config_line)) fail(path, "cannot write");
    inflight_remove_all(agent_cfg.out);
}

static int setup(JavaVM *vm)
{
    if (mkdir(agent_cfg.out, 0755) && access(agent_cfg.out, W_OK)) return fail(agent_cfg.out, "output directory not writable"), -1;
    char err[600];
    if (agent_cfg.mutate == MUTATE_CORPUS) {
        if (corpus_load(agent_cfg.corpus, err, sizeof err)) return fail("mutate=corpus", err), -1;
        fprintf(stderr, "asgf: mutate=corpus: %d cases from %s\n", corpus_count(), agent_cfg.corpus);
    }
    struct jvm_threads_config tc = {agent_cfg.threads, on_start, on_end};
    record_set_limits(agent_cfg.records_per_key, -1);
    stack_watch_set(agent_cfg.watch, agent_cfg.protect);
    struct startup_config sc = {
        .api = agent_cfg.api, .jit_code = agent_cfg.mutate != CASEGEN_NONE, .agct_depth = agent_cfg.depth,
        .test_plant = agent_cfg.test_plant, .protect = agent_cfg.protect, .max_records = agent_cfg.max_records,
        .out = agent_cfg.out, .threads = &tc,
    };
    if (agent_cfg.oracle) oracle_check_prepare(); /* before the VM prepares classes: jmethods learns as they come */
    if (!(agent_api = startup_attach(vm, &sc, err, sizeof err))) return fprintf(stderr, "asgf: %s\n", err), -1;
    stats_set_code_names(agent_api, agent_cfg.mode == MODE_QUEUE);
    if (agent_cfg.mode == MODE_QUEUE && !agent_api->enqueue)
        return fail("mode=queue", "the backend has no Enqueue/RegisterQueue"), -1;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return fail("jvmti", "no environment"), -1;
    sample_handler_init(&agent_cfg, agent_api, jvmti);
    queue_ops_init(&agent_cfg, agent_api);
    if (((agent_cfg.mode == MODE_THREAD && agent_cfg.suspend) || agent_cfg.jvmti_walk) &&
        suspend_walker_prepare(jvmti))
        return fail("suspend walker", "can_suspend capability not available"), -1;
    if (agent_cfg.oracle && oracle_load_rules(agent_cfg.oracle_rules, err, sizeof err)) return fail("oracle", err), -1;
    if (agent_cfg.oracle && oracle_prepare(jvmti)) return fail("oracle", "can_suspend capability not available"), -1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[600];
    snprintf(config_line, sizeof config_line, "%s", options ? options : "");
    for (char *c = config_line; *c; c++)
        if (*c == '"' || *c == '\\') *c = '\'';
    if (options && !strcmp(options, "help")) {
        fprintf(stderr, "asgf: options (k=v, comma separated):\n");
        agent_options_help(2);
        return JNI_ERR;
    }
    if (agent_options_parse(options, &agent_cfg, err, sizeof err)) {
        fprintf(stderr, "asgf: bad agent options: %s\nasgf: options are:\n", err);
        agent_options_help(2);
        return JNI_ERR;
    }
    if (setup(vm)) return JNI_ERR;
    int caps = lc_capabilities(agent_api);
    if (!agent_cfg.quiet)
        fprintf(stderr, "asgf: capabilities 0x%x\n", caps);
    if (!agent_cfg.quiet)
        fprintf(stderr, "asgf: backend %s, mode %s, interval %lldns, mutate %d, protect %d (guard %s), out %s\n",
                agent_api->name, case_mode_name(agent_cfg.mode), agent_cfg.interval_ns, agent_cfg.mutate,
                agent_cfg.protect, guard_mode_name(), agent_cfg.out);
    return JNI_OK;
}
