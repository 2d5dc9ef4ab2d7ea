/* The agent's options: one table gives keys, help and setters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "agent_config.h"
#include "case.h"
#include "casegen.h"
#include "options.h"
#include "record.h"
#include "stack_watch.h"
#include "startup.h"

#define CFG(c) ((struct agent_config *)(c))

static const char *set_interval(void *c, const char *v)
{
    const char *e = opt_parse_duration_ns(v, 1000, &CFG(c)->interval_ns);
    if (!e && CFG(c)->interval_ns < 1000) return "interval below 1us:";
    return e;
}
static const char *set_mode(void *c, const char *v)
{
    int m = v ? case_mode_parse(v) : -1;
    if (m < 0) return "expected signal, thread or queue, got";
    CFG(c)->mode = m;
    return NULL;
}
static const char *set_api(void *c, const char *v)
{
    return v && !api_kind_parse(v, &CFG(c)->api) ? NULL : "expected auto, asgst or agct, got";
}
static const char *set_mutate(void *c, const char *v)
{
    if (!v) return "expected none, random, near, blind, forge or corpus:<dir>, got";
    if (!strcmp(v, "none")) CFG(c)->mutate = CASEGEN_NONE;
    else if (!strcmp(v, "blind")) CFG(c)->mutate = CASEGEN_BLIND;
    else if (!strcmp(v, "random")) CFG(c)->mutate = CASEGEN_RANDOM;
    else if (!strcmp(v, "near")) CFG(c)->mutate = CASEGEN_NEAR;
    else if (!strcmp(v, "forge")) CFG(c)->mutate = CASEGEN_FORGE;
    else if (!strncmp(v, "corpus:", 7) && v[7] && strlen(v + 7) < sizeof CFG(c)->corpus) {
        CFG(c)->mutate = MUTATE_CORPUS;
        strcpy(CFG(c)->corpus, v + 7);
    } else return "expected none, random, near, blind, forge or corpus:<dir>, got";
    return NULL;
}
static const char *set_seed(void *c, const char *v)
{
    long x;
    const char *e = opt_parse_long(v, 0, 0x7fffffffffffffffL, &x);
    if (!e) CFG(c)->seed = (uint64_t)x;
    return e;
}
static const char *set_protect(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->protect); }
static const char *set_aim(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->aim); }
static const char *set_suspend(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->suspend); }
static const char *set_jvmti_walk(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->jvmti_walk); }
static const char *set_quiet(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->quiet); }
static const char *set_verify(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->verify); }
static const char *set_out(void *c, const char *v)
{
    if (!v || !*v || strlen(v) >= sizeof CFG(c)->out) return "expected a directory, got";
    strcpy(CFG(c)->out, v);
    return NULL;
}
static const char *set_duration(void *c, const char *v) { return opt_parse_duration_ns(v, 1000000000LL, &CFG(c)->duration_ns); }
static const char *set_stats(void *c, const char *v) { return opt_parse_duration_ns(v, 1000000000LL, &CFG(c)->stats_ns); }
static const char *set_threads(void *c, const char *v)
{
    if (!v || !*v || strlen(v) >= sizeof CFG(c)->threads) return "expected a thread-name glob, got";
    strcpy(CFG(c)->threads, v);
    return NULL;
}
static const char *set_depth(void *c, const char *v)
{
    long x;
    const char *e = opt_parse_long(v, 1, AGCT_MAX_DEPTH, &x);
    if (!e) CFG(c)->depth = (int)x;
    return e;
}
static const char *set_queue_size(void *c, const char *v)
{
    long x;
    const char *e = opt_parse_long(v, 1, 1 << 20, &x);
    if (!e) CFG(c)->queue_size = (int)x;
    return e;
}

static const char *set_max_records(void *c, const char *v) { return opt_parse_long(v, 0, 1L << 40, &CFG(c)->max_records); }
static const char *set_records_per_key(void *c, const char *v) { return opt_parse_long(v, 1, 1L << 40, &CFG(c)->records_per_key); }
static const char *set_watch(void *c, const char *v) { return opt_parse_long(v, 0, STACK_WATCH_MAX, &CFG(c)->watch); }

static const char *set_oracle(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->oracle); }
static const char *set_oracle_graph(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->oracle_graph); }
static const char *set_walker_cov(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->walker_cov); }
static const char *set_vthread_warmup(void *c, const char *v) { return opt_parse_bool(v, &CFG(c)->vthread_warmup); }
static const char *set_oracle_rules(void *c, const char *v)
{
    if (!v || !*v || strlen(v) >= sizeof CFG(c)->oracle_rules) return "expected a rules file, got";
    strcpy(CFG(c)->oracle_rules, v);
    return NULL;
}

static const char *set_timer(void *c, const char *v)
{
    if (v && !strcmp(v, "sampler")) CFG(c)->posix_timer = 0;
    else if (v && !strcmp(v, "posix")) CFG(c)->posix_timer = 1;
    else return "expected sampler or posix, got";
    return NULL;
}

static const char *set_queue_ops(void *c, const char *v) { return casegen_qop_groups_parse(v, &CFG(c)->queue_ops); }

/* qops=OP:VALUE+OP:VALUE...: case_codes.h's qop names. */
static const char *set_qops(void *c, const char *v)
{
    const char *bad = "expected OP:VALUE joined by + (OP a qop of corpus/FORMAT.md, at most 16), got";
    CFG(c)->nqop = 0;
    if (!v || !*v) return bad;
    for (const char *p = v; *p;) {
        char name[64];
        size_t len = strcspn(p, ":+");
        if (len >= sizeof name || CFG(c)->nqop == CASE_MAX_QOPS) return bad;
        memcpy(name, p, len), name[len] = 0;
        int op = case_qop_parse(name);
        if (op < 0) return bad;
        long long value = 0;
        p += len;
        if (*p == ':') {
            char *end;
            value = strtoll(p + 1, &end, 0);
            if (end == p + 1) return bad;
            p = end;
        }
        if (*p && *p != '+') return bad;
        p += *p == '+';
        CFG(c)->qop[CFG(c)->nqop++] = (struct case_qop){(uint8_t)op, value};
    }
    return NULL;
}

static const char *set_test_plant(void *c, const char *v)
{
    long x;
    if (v && !strcmp(v, "poll")) {
        CFG(c)->test_plant = STARTUP_PLANT_POLL;
        return NULL;
    }
    const char *e = opt_parse_long(v, 1, 0x7fffffffffffffffL, &x);
    if (!e) CFG(c)->test_plant = (uintptr_t)x;
    return e;
}

static const struct opt_def defs[] = {
    {"interval", "sampling interval per thread (ns/us/ms/s; bare number = us), default 100us", set_interval},
    {"mode", "signal|thread|queue: who walks (default signal)", set_mode},
    {"api", "auto|asgst|agct: backend (default auto)", set_api},
    {"mutate", "none|random|near|blind|forge|corpus:<dir>: context mutation (default none; blind: sp, fp += "
               "random 0..999999, a baseline; forge: forged stack words)", set_mutate},
    {"seed", "random seed (default 1)", set_seed},
    {"protect", "0|1: crash protection around every call (default 1)", set_protect},
    {"aim", "0|1: mutate only samples whose pc is in Java code (default 1)", set_aim},
    {"out", "directory for crash records, in-flight cases and summary.json (default .)", set_out},
    {"duration", "stop sampling after this long (default: until exit)", set_duration},
    {"threads", "globs of Java thread names to sample, | between (default *)", set_threads},
    {"stats", "progress line period, 0 = none (default 1s)", set_stats},
    {"depth", "frames per walk, 1..2048 (default 2048)", set_depth},
    {"queue_size", "mode=queue or thread: elements per thread queue (default 64)", set_queue_size},
    {"suspend", "mode=thread: also JVMTI SuspendThread/GetStackTrace walks (default 1)", set_suspend},
    {"jvmti_walk", "0|1: any mode: a thread walks the sampled threads with JVMTI (suspended GetStackTrace, "
                   "GetThreadListStackTraces) beside the sampler (default 0)", set_jvmti_walk},
    {"quiet", "0|1: no progress lines (default 0)", set_quiet},
    {"verify", "0|1: mode=queue: compare handler stacks with JVMTI GetStackTrace (default 0)", set_verify},
    {"oracle", "0|1: suspend sampled threads in turn and compare the VM's AsyncGetCallTrace walk of each, "
               "from a signal on it, with JVMTI GetStackTrace; mismatches become records (default 0)", set_oracle},
    {"walker_cov", "0|1: one-shot breakpoints on the basic blocks of libjvm's stack-walking functions, found in its "
                   "symbol table; the blocks reached go to out/walker-coverage.txt and summary.json (default 0)",
     set_walker_cov},
    {"vthread_warmup", "0|1: run one virtual thread to its end before sampling (JDK 21 and later), so the VM's "
                       "continuation state exists before any walk; 0 keeps the state of a VM that never entered a "
                       "continuation (default 1)", set_vthread_warmup},
    {"oracle_graph", "0|1: with oracle=1, also walk threads running Java where the signal finds them and check "
                     "each caller's bytecode calls the frame above it (default 0)", set_oracle_graph},
    {"oracle_rules", "file of the oracle's excuse rules (default: the built-in agents/oracle-rules.txt)", set_oracle_rules},
    {"timer", "sampler|posix: who sends the signals: the sampler thread (tgkill each round) or a per-thread kernel "
              "timer (signal and queue modes; default sampler)", set_timer},
    {"queue_ops", "mode=queue (and mode=thread: those of the queue handler): lifecycle operations besides Enqueue, "
                  "all|none|names joined by + from resize, handlers, elements, foreign, reregister, marks, info "
                  "(default all); in mode=signal only info (method and class info on a quarter of the samples) or "
                  "none", set_queue_ops},
    {"qops", "qop records every case carries, OP:VALUE joined by + (e.g. resize:1+enqueue:0+mark_move:-2; names in "
             "corpus/FORMAT.md): run after the call, in the crash record's case bytes", set_qops},
    {"max_records", "crash records written at most in the record directory; later faults are counted (default "
                    RECORD_TEXT(RECORD_TOTAL_DEFAULT) ")", set_max_records},
    {"records_per_key", "crash records kept per fault key (pc, signal, top frames); later ones are counted (default 20)", set_records_per_key},
    {"watch", "bytes of the sampled thread's frames above sp (0.." RECORD_TEXT(STACK_WATCH_MAX) ") checked, with its signal context, after "
              "each mutated case of a thread stopped in Java code for a store the walk made there: put back while "
              "protect=1 if it has the shape of HotSpot's anchor fill, and recorded (a write record); 0 = off (default " RECORD_TEXT(STACK_WATCH_DEFAULT) ")",
     set_watch},
    {"test_plant", "TEST HOOK: agct walks write frames to this address, or to the safepoint poll page with 'poll' (plants a fault in libjvm)", set_test_plant},
    {NULL, NULL, NULL},
};

int agent_options_parse(const char *text, struct agent_config *cfg, char *err, size_t errlen)
{
    *cfg = (struct agent_config){
        .interval_ns = 100000, .mode = MODE_SIGNAL, .api = API_AUTO, .mutate = CASEGEN_NONE, .seed = 1,
        .protect = 1, .aim = 1, .out = ".", .threads = "*", .stats_ns = 1000000000LL, .depth = AGCT_MAX_DEPTH,
        .queue_size = 64, .suspend = 1, .vthread_warmup = 1, .max_records = RECORD_TOTAL_DEFAULT, .records_per_key = RECORD_PER_KEY_DEFAULT,
        .watch = STACK_WATCH_DEFAULT,
        .queue_ops = CASEGEN_QOPS_ALL,
    };
    if (options_parse(text, defs, cfg, err, errlen)) return -1;
    return agent_options_verify(text, cfg, err, errlen);
}

/* Options that only one mode reads: given with another mode they would be
 * ignored, and the run would not test what the command line says. */
static const struct {
    const char *key;
    unsigned modes; /* bit per enum case_mode */
} mode_only[] = {
    {"queue_size", 1u << MODE_QUEUE | 1u << MODE_THREAD},
    {"verify", 1u << MODE_QUEUE},
    {"suspend", 1u << MODE_THREAD},
    {"timer", 1u << MODE_SIGNAL | 1u << MODE_QUEUE},
};

int agent_options_verify(const char *text, const struct agent_config *cfg, char *err, size_t errlen)
{
    int mode_at = options_given(text, "mode");
    char mode_text[48];
    if (mode_at) snprintf(mode_text, sizeof mode_text, "option %d \"mode=%s\"", mode_at, case_mode_name(cfg->mode));
    else snprintf(mode_text, sizeof mode_text, "the default mode=%s", case_mode_name(cfg->mode));
    for (size_t i = 0; i < sizeof mode_only / sizeof *mode_only; i++) {
        int at = options_given(text, mode_only[i].key);
        if (at && !(mode_only[i].modes & (1u << cfg->mode))) {
            snprintf(err, errlen, "option %d \"%s\" does not apply with %s: no walk would read it", at,
                     mode_only[i].key, mode_text);
            return -1;
        }
    }
    /* Signal mode has no queue: of the groups only info (the method_info
     * flag of its cases) does anything there, and none turns that off. */
    int qops_at = options_given(text, "queue_ops");
    if (qops_at && cfg->mode == MODE_SIGNAL && (cfg->queue_ops & ~CASEGEN_QOPS_INFO)) {
        snprintf(err, errlen, "option %d \"queue_ops\": with %s only info or none apply (a thread there has no queue "
                 "and no frame mark)", qops_at, mode_text);
        return -1;
    }
    /* Rules and the graph check are read only by the oracle: without it they would be ignored unseen. */
    static const char *const oracle_only[] = {"oracle_rules", "oracle_graph"};
    for (size_t i = 0; i < sizeof oracle_only / sizeof *oracle_only; i++) {
        int at = options_given(text, oracle_only[i]);
        if (at && !cfg->oracle) {
            snprintf(err, errlen, "option %d \"%s\" does not apply without oracle=1: no oracle would read it", at,
                     oracle_only[i]);
            return -1;
        }
    }
    /* out= must be a directory (or not exist yet: the agent creates it). A
     * regular file there would make every record fail while the run "passes". */
    struct stat st;
    if (!stat(cfg->out, &st) && !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "option %d \"out=%s\": not a directory", options_given(text, "out"), cfg->out);
        return -1;
    }
    return 0;
}

void agent_options_help(int fd) { options_help(defs, fd); }

int agent_config_uses_queues(const struct agent_config *cfg, const struct api *api)
{
    return cfg->mode == MODE_QUEUE || (cfg->mode == MODE_THREAD && api && api->enqueue && api->register_queue);
}
