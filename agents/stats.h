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

/* Counters other modules bump (stats_add); the rest are stats.c's own. */
enum stats_counter {
    STAT_ROUNDS, STAT_LATE_ROUNDS, STAT_SIGNALS_SENT, STAT_SIGNALS_FAILED, STAT_HANDLER_RUNS, STAT_AIMED,
    STAT_UNAIMED, STAT_TARGET_TIMEOUTS, STAT_SUSPEND_WALKS, STAT_SUSPEND_ERRORS, STAT_SUSPEND_FRAMES,
    STAT_LIST_WALKS, STAT_QUEUE_HANDLED, STAT_QUEUE_FRAMES, STAT_THREADS_WALKED, STAT__COUNT
};

/* [handler-safe] */
void stats_add(enum stats_counter c, unsigned long long n);
/* When sampling began (CLOCK_MONOTONIC ns): times in the reports count from it. */
void stats_set_start(long long ns);

/* Whose raw codes the reports name: the backend's, or ASGST codes whatever
 * the backend (queue mode: Enqueue answers ASGST codes). Set once at start. */
void stats_set_code_names(const struct api *api, int codes_are_asgst);

/* [handler-safe] both */
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
