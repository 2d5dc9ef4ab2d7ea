/*
 * The stress agent's configuration: what the -agentpath options say
 * (agent_options.c lists and parses them). Every agent module gets a
 * const pointer to it at init; none reads another module's copy.
 */
#ifndef ASGF_AGENT_CONFIG_H
#define ASGF_AGENT_CONFIG_H

#include <stddef.h>
#include <stdint.h>
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
    long watch;       /* bytes of live frames above sp watched for a walk's stores (src/stack_watch.h) */
    int oracle;         /* compare AGCT walks of held threads with JVMTI (agents/oracle.c) */
    char oracle_rules[256]; /* "": the built-in rules */
    int oracle_graph;   /* oracle: also walks of running threads against their callers' bytecode */
    int walker_cov;     /* breakpoint coverage of libjvm's walker (src/walker_cov.h) */
    int vthread_warmup; /* one virtual thread before sampling (src/vm_warmup.h) */
    int posix_timer;    /* timer=posix: per-thread kernel timers instead of the sampler's tgkill */
    unsigned queue_ops; /* mode=queue: CASEGEN_QOPS_* groups (casegen.h) */
    int nqop;           /* qops=: qop records every case carries */
    struct case_qop qop[CASE_MAX_QOPS];
};

int agent_options_parse(const char *text, struct agent_config *cfg, char *err, size_t errlen);
void agent_options_help(int fd);
/* Checks the parsed options as a whole (options that do not apply to the
 * mode, out= not a directory): 0, or -1 with one message naming the options. */
int agent_options_verify(const char *text, const struct agent_config *cfg, char *err, size_t errlen);

/* Whether every sampled thread gets an ASGST queue: mode=queue, and
 * mode=thread when the backend has queues (a held target's queue is the
 * API's supported way in from another thread). */
int agent_config_uses_queues(const struct agent_config *cfg, const struct api *api);

#endif
