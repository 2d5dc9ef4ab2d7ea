/*
 * The stress sampling agent: one config, filled from the -agentpath
 * options, and the pieces that share it.
 */
#ifndef ASGF_AGENT_H
#define ASGF_AGENT_H

#include <stdint.h>
#include <jvmti.h>
#include <stdio.h>
#include <ucontext.h>
#include "api.h"
#include "casegen.h"

#define MUTATE_CORPUS 64 /* beside enum casegen_strategy, clear of its values */

struct agent_config {
    long long interval_ns;
    int mode;           /* enum case_mode */
    enum api_kind api;
    int mutate;         /* enum casegen_strategy or MUTATE_CORPUS */
    char corpus[256];
    uint64_t seed;
    int protect;
    int aim;            /* mutate only when the pc is in Java code */
    char out[256];
    long long duration_ns; /* 0: until the VM exits */
    char threads[128];     /* glob on Java thread names */
    long long stats_ns;    /* progress line period; 0: none */
    int depth;
    int queue_size;
    int suspend;        /* mode=thread: also JVMTI Suspend/GetStackTrace/Resume walks */
    int jvmti_walk;     /* any mode: the JVMTI walker thread runs beside the sampler */
    int quiet;
    int verify;         /* mode=queue: compare handler stacks with JVMTI */
    uintptr_t test_plant; /* test hook: planted bad frames pointer (api_agct_plant_bad_frames) */
    long max_records;
    long records_per_key;
    int oracle;         /* compare AGCT walks of held threads with JVMTI (agents/oracle.c) */
    char oracle_rules[256]; /* "": the built-in rules */
    int oracle_graph;   /* oracle: also walks of running threads against their callers' bytecode */
    int posix_timer;    /* timer=posix: per-thread kernel timers instead of the sampler's tgkill */
    unsigned queue_ops; /* mode=queue: QOPS_* bits (queue_ops.h) */
    int nqop;           /* qops=: qop records every case carries */
    struct case_qop qop[CASE_MAX_QOPS];
};

extern struct agent_config agent_cfg;
extern const struct api *agent_api;

/* agent_options.c */
int agent_options_parse(const char *text, struct agent_config *cfg, char *err, size_t errlen);
void agent_options_help(int fd);
/* Checks the parsed options as a whole (options that do not apply to the
 * mode, out= not a directory): 0, or -1 with one message naming the options. */
int agent_options_verify(const char *text, const struct agent_config *cfg, char *err, size_t errlen);

#include "exec.h"
#define VERIFY_FRAMES 16
extern jvmtiEnv *agent_jvmti;

/* Whether every sampled thread gets an ASGST queue: mode=queue, and
 * mode=thread when the backend has queues (a held target's queue is the
 * API's supported way in from another thread). */
int agent_uses_queues(void);

/* sample_handler.c: the SIGPROF handler for modes signal and queue. */
int sample_handler_install(int signo);
/* Per-thread set-up and tear-down, on the thread itself. */
void sample_thread_start(JNIEnv *jni, int index);
void sample_thread_end(JNIEnv *jni);
/* Makes the case for one sample of thread `slot` ([handler-safe]). */
size_t sample_make_case(int slot, const ucontext_t *uc, struct case_prog *p, uint8_t *bytes);
/* [handler-safe] Accounts one sample of thread `slot` (interval, outcome). */
void sample_note(int slot, const struct exec_outcome *o);
/* The top frames the last queue handler of thread `slot` saw, and its
 * jthread; 0 if none or it is being written. */
int sample_queue_snapshot(int slot, jthread *thread, jmethodID *frames, int max);
/* [handler-safe] The handlers the VM runs for us (queue elements,
 * processing start and end, frame marks) bracket their work with these;
 * enter says 0 once the agent stops at VM death. */
int sample_handler_enter(void);
void sample_handler_leave(void);
/* At VM death, before the summary: no handler starts after it, and those
 * running end (waited for, bounded), so every fault is in the counts. */
void sample_handlers_stop(void);

/* queue_verify.c: compares queue handler stacks with JVMTI GetStackTrace. */
int queue_verify_start(jvmtiEnv *jvmti, JNIEnv *jni);
void queue_verify_stop(void);
void queue_verify_report(FILE *f);

/* sampler.c */
int sampler_start(void);
void sampler_stop(void);
double sampler_elapsed_s(void);

/* corpus_cases.c */
int corpus_load(const char *dir, char *err, size_t errlen);
int corpus_count(void);
/* [handler-safe] */
void corpus_pick(uint64_t r, struct case_prog *p);

/* suspend_walker.c: JVMTI suspended-thread walks (mode=thread). */
int suspend_walker_prepare(jvmtiEnv *jvmti); /* Agent_OnLoad: capabilities */
int suspend_walker_start(jvmtiEnv *jvmti, JNIEnv *jni);
void suspend_walker_stop(void);

#endif
