/*
 * The agent's statistics. Counters are atomics bumped from signal handlers
 * ([handler-safe]); reports are made by the sampler thread and at exit.
 */
#ifndef ASGF_STATS_H
#define ASGF_STATS_H

#include <stdatomic.h>
#include <stdio.h>
#include "exec.h"

#define STATS_RAW_MIN (-20) /* raw codes below this share one bucket */
#define STATS_INTERVAL_BUCKETS 20001 /* 1 us each up to 20 ms, then overflow */

struct stats {
    _Atomic unsigned long long rounds, late_rounds, signals_sent, signals_failed;
    _Atomic unsigned long long handler_runs, walks, traces, depth_sum, faults, nested, dropped;
    _Atomic unsigned long long aimed, unaimed, queue_full, queue_other, target_timeouts;
    _Atomic unsigned long long suspend_walks, suspend_errors, suspend_frames, list_walks;
    _Atomic unsigned long long queue_handled, queue_frames; /* elements walked by queue handlers */
    _Atomic unsigned long long threads_walked; /* threads with at least one walk */
    /* stk cases: walks that ran on a forged stack copy, forged words written,
     * and cases whose copy could not be made (not the thread's own context) */
    _Atomic unsigned long long forged_walks, forged_words, forged_foreign;
    _Atomic unsigned long long fw[EXEC_FW__COUNT]; /* samples per framework outcome (exec.h) */
    _Atomic unsigned long long substituted;        /* ran another entry than the case's (exec_entry_to_run) */
    long long start_ns;                         /* CLOCK_MONOTONIC when sampling began */
    _Atomic long long first_fault_ns;           /* since start_ns; 0 = none yet */
    _Atomic unsigned long long raw[2 - STATS_RAW_MIN]; /* [0] positive, [1+k] raw -k, last: below min */
    _Atomic unsigned intervals[STATS_INTERVAL_BUCKETS];
};

extern struct stats stats;

/* Whose raw codes the reports name: the backend's, or ASGST codes whatever
 * the backend (queue mode: Enqueue answers ASGST codes). Set once at start. */
void stats_set_code_names(const struct api *api, int codes_are_asgst);

/* [handler-safe] */
void stats_interval(long long ns);
void stats_outcome(const struct exec_outcome *o);

/* Interval percentile in microseconds (p in 0..1); -1 if no data. */
double stats_interval_percentile(double p);
/* Percentage of samples whose call reached the API (returned or faulted
 * inside it), of all samples that ran a case; -1 if none. */
double stats_reached_pct(void);
void stats_progress(FILE *f, double elapsed_s);
/* Human summary and JSON summary. */
void stats_summary(FILE *f, double elapsed_s);
int stats_write_json(const char *path, double elapsed_s, const char *config_line);

#endif
