/* Agent statistics (see stats.h). */
#include <sched.h>
#include <string.h>
#include <time.h>
#include "api.h"
#include "queue_ops.h"
#include "case.h"
#include "jvm_threads.h"
#include "queue_agct.h"
#include "sigsafe.h"
#include "jit_code.h"
#include "vm_structs.h"
#include "stack_image.h"
#include "guard.h"
#include "record.h"
#include "stats.h"
#include "walker_cov.h"

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
    /* the walk's stores into the live thread (src/stack_watch.h): walks with
     * a recorded store, and the stores by place (a code address into a frame
     * word is what the VM's store into a real anchor writes: not recorded) */
    _Atomic unsigned long long watch_walks, watch_frame, watch_frame_code, watch_context, watch_regs, watch_left;
    _Atomic unsigned long long fw[EXEC_FW__COUNT]; /* samples per framework outcome (exec.h) */
    _Atomic unsigned long long substituted;        /* ran another entry than the case's (exec_entry_to_run) */
    long long start_ns;                         /* CLOCK_MONOTONIC when sampling began */
    _Atomic long long first_fault_ns;           /* since start_ns; 0 = none yet */
    _Atomic unsigned long long raw[2 - STATS_RAW_MIN]; /* [0] positive, [1+k] raw -k, last: below min */
    _Atomic unsigned intervals[STATS_INTERVAL_BUCKETS];
};


static struct stats stats;

static _Atomic unsigned long long *const counters[STAT__COUNT] = {
    [STAT_ROUNDS] = &stats.rounds, [STAT_LATE_ROUNDS] = &stats.late_rounds,
    [STAT_SIGNALS_SENT] = &stats.signals_sent, [STAT_SIGNALS_FAILED] = &stats.signals_failed,
    [STAT_HANDLER_RUNS] = &stats.handler_runs, [STAT_AIMED] = &stats.aimed, [STAT_UNAIMED] = &stats.unaimed,
    [STAT_TARGET_TIMEOUTS] = &stats.target_timeouts, [STAT_SUSPEND_WALKS] = &stats.suspend_walks,
    [STAT_SUSPEND_ERRORS] = &stats.suspend_errors, [STAT_SUSPEND_FRAMES] = &stats.suspend_frames,
    [STAT_LIST_WALKS] = &stats.list_walks, [STAT_QUEUE_HANDLED] = &stats.queue_handled,
    [STAT_QUEUE_FRAMES] = &stats.queue_frames, [STAT_THREADS_WALKED] = &stats.threads_walked,
};

void stats_add(enum stats_counter c, unsigned long long n)
{
    if (c >= 0 && c < STAT__COUNT) atomic_fetch_add_explicit(counters[c], n, memory_order_relaxed);
}

void stats_set_start(long long ns) { stats.start_ns = ns; }
static const struct api *code_api; /* whose raw codes these are */
static int asgst_codes;           /* raw codes are ASGST codes whatever the backend */

void stats_set_code_names(const struct api *api, int codes_are_asgst)
{
    code_api = api, asgst_codes = codes_are_asgst;
}

#define N_RAW (2 - STATS_RAW_MIN)

void stats_interval(long long ns)
{
    long long us = ns / 1000;
    if (us < 0) return;
    atomic_fetch_add_explicit(&stats.intervals[us < STATS_INTERVAL_BUCKETS - 1 ? us : STATS_INTERVAL_BUCKETS - 1], 1,
                              memory_order_relaxed);
}

static int raw_bucket(int raw)
{
    if (raw > 0) return 0;
    if (raw < STATS_RAW_MIN) return N_RAW - 1;
    return 1 - raw;
}

void stats_outcome(const struct exec_outcome *o)
{
    if (o->fw >= 0 && o->fw < EXEC_FW__COUNT) atomic_fetch_add_explicit(&stats.fw[o->fw], 1, memory_order_relaxed);
    if (o->substituted) atomic_fetch_add_explicit(&stats.substituted, 1, memory_order_relaxed);
    if (o->image == STACK_IMAGE_BUILT) {
        atomic_fetch_add_explicit(&stats.forged_walks, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&stats.forged_words, (unsigned long long)o->image_written, memory_order_relaxed);
    } else if (o->image == STACK_IMAGE_FOREIGN) {
        atomic_fetch_add_explicit(&stats.forged_foreign, 1, memory_order_relaxed);
    }
    const struct stack_watch_hit *wh = &o->watch;
    if (wh->frame || wh->frame_code || wh->context || wh->regs) {
        if (stack_watch_recorded(wh)) atomic_fetch_add(&stats.watch_walks, 1);
        atomic_fetch_add(&stats.watch_frame, (unsigned long long)wh->frame);
        atomic_fetch_add(&stats.watch_frame_code, (unsigned long long)wh->frame_code);
        atomic_fetch_add(&stats.watch_context, (unsigned long long)wh->context);
        atomic_fetch_add(&stats.watch_regs, (unsigned long long)wh->regs);
        atomic_fetch_add(&stats.watch_left, (unsigned long long)wh->left);
    }
    if (o->guard_rc == GUARD_NESTED || o->guard_rc == GUARD_FULL) {
        atomic_fetch_add(&stats.nested, 1);
        return;
    }
    atomic_fetch_add_explicit(&stats.walks, 1, memory_order_relaxed);
    if (o->guard_rc > 0) {
        if (atomic_fetch_add(&stats.faults, 1) == 0)
            atomic_store(&stats.first_fault_ns, sigsafe_now_ns() - stats.start_ns);
        return;
    }
    if (o->fw != EXEC_REACHED) return; /* the VM was not asked: no code to count */
    /* mode=thread on agct mixes walks (AGCT codes) with queue calls (ASGST
     * codes): only the walks' codes go under AGCT's names */
    if (!asgst_codes && !case_entry_walks(o->entry)) return;
    atomic_fetch_add_explicit(&stats.raw[raw_bucket(o->raw)], 1, memory_order_relaxed);
    if (o->ret > 0) {
        atomic_fetch_add_explicit(&stats.traces, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&stats.depth_sum, (unsigned long long)o->frames, memory_order_relaxed);
    }
    if (o->ret == ASGST_ENQUEUE_FULL_QUEUE) atomic_fetch_add(&stats.queue_full, 1);
    if (o->ret == ASGST_ENQUEUE_OTHER_ERROR) atomic_fetch_add(&stats.queue_other, 1);
}

double stats_interval_percentile(double p)
{
    unsigned long long total = 0, seen = 0;
    for (int i = 0; i < STATS_INTERVAL_BUCKETS; i++) total += stats.intervals[i];
    if (!total) return -1;
    unsigned long long want = (unsigned long long)(p * (double)total);
    for (int i = 0; i < STATS_INTERVAL_BUCKETS; i++)
        if ((seen += stats.intervals[i]) > want) return i + 0.5;
    return STATS_INTERVAL_BUCKETS;
}

double stats_reached_pct(void)
{
    unsigned long long all = 0;
    for (int i = 0; i < EXEC_FW__COUNT; i++) all += stats.fw[i];
    return all ? 100.0 * (double)(stats.fw[EXEC_REACHED] + stats.fw[EXEC_FAULT]) / (double)all : -1;
}

static const char *raw_name(int bucket)
{
    static char buf[N_RAW][48];
    if (bucket == 0) return "frames";
    if (bucket == N_RAW - 1) return "below_min";
    int raw = 1 - bucket;
    snprintf(buf[bucket], sizeof buf[bucket], "%d_%s", raw,
             asgst_codes ? asgst_code_name(raw) : api_raw_code_name(code_api, raw));
    return buf[bucket];
}

static double delivered(void)
{
    return stats.signals_sent ? 100.0 * (double)stats.handler_runs / (double)stats.signals_sent : 0;
}

void stats_progress(FILE *f, double t)
{
    fprintf(f, "asgf: t=%.1fs sent=%llu walks=%llu traces=%llu faults=%llu delivered=%.1f%% reached_api=%.1f%% "
               "interval p50=%.0fus p99=%.0fus\n",
            t, stats.signals_sent, stats.walks, stats.traces, stats.faults, delivered(), stats_reached_pct(),
            stats_interval_percentile(0.5), stats_interval_percentile(0.99));
    fflush(f);
}

void stats_summary(FILE *f, double t)
{
    fprintf(f, "asgf: summary after %.1fs: rounds %llu (late %llu), signals sent %llu (failed %llu), handler runs %llu "
               "(%.1f%% delivered)\n",
            t, stats.rounds, stats.late_rounds, stats.signals_sent, stats.signals_failed, stats.handler_runs,
            delivered());
    fprintf(f, "asgf: walks %llu, traces %llu, mean depth %.1f, faults caught %llu, nested dropped %llu\n", stats.walks,
            stats.traces, stats.traces ? (double)stats.depth_sum / (double)stats.traces : 0.0, stats.faults,
            stats.nested);
    fprintf(f, "asgf: per-thread interval p50 %.0fus p99 %.0fus; aimed %llu unaimed %llu; queue full %llu other %llu; "
               "target timeouts %llu; suspend walks %llu (errors %llu)\n",
            stats_interval_percentile(0.5), stats_interval_percentile(0.99), stats.aimed, stats.unaimed,
            stats.queue_full, stats.queue_other, stats.target_timeouts, stats.suspend_walks, stats.suspend_errors);
    if (stats.forged_walks || stats.forged_foreign)
        fprintf(f, "asgf: forged stacks: %llu walks on a forged copy, %llu words forged, %llu cases not forged "
                   "(not the thread's own context); %lu VM stubs known\n",
                stats.forged_walks, stats.forged_words, stats.forged_foreign, jit_code_blob_count());
    if (stack_watch_bytes())
        fprintf(f, "asgf: live-frame watch (%ld bytes above sp): %llu walks stored where no correct walk would "
                   "(frame words %llu, signal context words %llu, registers %llu); code addresses stored over 0 in "
                   "frames %llu; words not in the anchor fill's shape %llu, left as found; %s\n",
                stack_watch_bytes(), stats.watch_walks, stats.watch_frame, stats.watch_context, stats.watch_regs,
                stats.watch_frame_code, stats.watch_left,
                stack_watch_puts_back() ? "the rest put back" : "none put back (protect=0)");
    uintptr_t csr = vm_structs_call_stub_return();
    fprintf(f, "asgf: call stub return pc %#lx (gHotSpotVMStructs), inside a reported VM stub: %s\n",
            (unsigned long)csr, !csr ? "unknown" : jit_code_in_blob(csr) ? "yes" : "no");
    uintptr_t barrier = jit_code_cont_barrier();
    fprintf(f, "asgf: continuation return barrier %#lx%s\n", (unsigned long)barrier,
            barrier ? "" : " (not reported: a VM without continuations)");
    if (stats.queue_handled)
        fprintf(f, "asgf: queue handlers ran %llu times, mean frames %.1f\n", stats.queue_handled,
                (double)stats.queue_frames / (double)stats.queue_handled);
    long started, ended, matched;
    jvm_threads_counts(&started, &ended, &matched);
    fprintf(f, "asgf: threads: %ld registered, %llu walked at least once (of %ld started)\n", matched,
            stats.threads_walked, started);
    fprintf(f, "asgf: reached the API %.1f%% of samples (entry substituted in %llu); framework outcomes:",
            stats_reached_pct(), stats.substituted);
    for (int i = 0; i < EXEC_FW__COUNT; i++)
        if (stats.fw[i]) fprintf(f, " %s=%llu", exec_fw_name(i), stats.fw[i]);
    fprintf(f, "\n");
    fflush(f);
    if (code_api) api_report_calls(code_api, fileno(f));
    fprintf(f, "asgf: raw codes:");
    for (int i = 0; i < N_RAW; i++)
        if (stats.raw[i]) fprintf(f, " %s=%llu", raw_name(i), stats.raw[i]);
    fprintf(f, "\n");
}

int stats_write_json(const char *path, double t, const char *config_line)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    struct queue_agct_counters q;
    queue_agct_counters(&q);
    fprintf(f, "{\n  \"elapsed_s\": %.3f,\n  \"config\": \"%s\",\n", t, config_line);
#define FIELD(name) fprintf(f, "  \"%s\": %llu,\n", #name, (unsigned long long)stats.name)
    FIELD(rounds); FIELD(late_rounds); FIELD(signals_sent); FIELD(signals_failed); FIELD(handler_runs);
    FIELD(walks); FIELD(traces); FIELD(depth_sum); FIELD(faults); FIELD(nested); FIELD(aimed); FIELD(unaimed);
    FIELD(queue_full); FIELD(queue_other); FIELD(target_timeouts); FIELD(suspend_walks); FIELD(suspend_errors);
    FIELD(suspend_frames); FIELD(list_walks); FIELD(queue_handled); FIELD(queue_frames); FIELD(threads_walked);
    FIELD(forged_walks); FIELD(forged_words); FIELD(forged_foreign);
    FIELD(watch_walks); FIELD(watch_frame); FIELD(watch_frame_code); FIELD(watch_context); FIELD(watch_regs); FIELD(watch_left);
    fprintf(f, "  \"watch_bytes\": %ld,\n", stack_watch_bytes());
    long started, ended, matched;
    jvm_threads_counts(&started, &ended, &matched);
    fprintf(f, "  \"threads_registered\": %ld,\n", matched);
#undef FIELD
    fprintf(f, "  \"delivered_pct\": %.2f,\n  \"interval_p50_us\": %.1f,\n  \"interval_p99_us\": %.1f,\n", delivered(),
            stats_interval_percentile(0.5), stats_interval_percentile(0.99));
    /* a disk that filled and was freed again still shows the records it cost */
    fprintf(f, "  \"records_out_of_space\": %s,\n", record_out_of_space() ? "true" : "false");
    fprintf(f, "  \"first_fault_s\": %.3f,\n", stats.faults ? (double)stats.first_fault_ns / 1e9 : -1.0);
    /* Every fault the guard caught in this process: the cases' ("faults")
     * and those of the calls made outside a case (lifecycle, handlers,
     * queue operations), each counted once. */
    struct guard_counters g;
    guard_counters(&g);
    fprintf(f, "  \"guard_caught\": %llu,\n", (unsigned long long)g.caught);
    struct wcov_counts wc;
    wcov_counts(&wc);
    fprintf(f, "  \"walker_blocks\": %u, \"walker_blocks_reached\": %u, \"walker_functions\": %u, "
               "\"walker_functions_reached\": %u, \"walker_blocks_vm_only\": %u,\n", wc.blocks, wc.blocks_reached,
            wc.functions, wc.functions_reached, wc.blocks_vm_only);
    /* Where the campaign let this VM run (ci/job pins each job to the CPUs it takes). */
    cpu_set_t cpus;
    fprintf(f, "  \"cpus_allowed\": \"");
    if (!sched_getaffinity(0, sizeof cpus, &cpus))
        for (int c = 0, first = 1; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &cpus)) fprintf(f, "%s%d", first ? "" : ",", c), first = 0;
    fprintf(f, "\",\n");
    fprintf(f, "  \"mean_depth\": %.2f,\n", stats.traces ? (double)stats.depth_sum / (double)stats.traces : 0.0);
    fprintf(f, "  \"queue\": {\"enqueued\": %llu, \"full\": %llu, \"contended\": %llu, \"batches\": %llu, "
               "\"handled\": %llu, \"walk_errors\": %llu},\n",
            q.enqueued, q.full, q.contended, q.batches, q.handled, q.walk_errors);
    fprintf(f, "  \"reached_api_pct\": %.2f,\n  \"substituted\": %llu,\n  \"outcomes\": {", stats_reached_pct(),
            stats.substituted);
    for (int i = 0; i < EXEC_FW__COUNT; i++) fprintf(f, "%s\"%s\": %llu", i ? ", " : "", exec_fw_name(i), stats.fw[i]);
    fprintf(f, "},\n  \"api_calls\": {");
    for (int i = 0, first = 1; code_api && code_api->calls && i < ASGST_EP__COUNT; i++)
        if (code_api->calls[i])
            fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", api_entry_point_name(i), code_api->calls[i]), first = 0;
    fprintf(f, "},\n");
    queue_ops_json(f);
    fprintf(f, "  \"raw_codes\": {");
    int first = 1;
    for (int i = 0; i < N_RAW; i++)
        if (stats.raw[i]) fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", raw_name(i), stats.raw[i]), first = 0;
    fprintf(f, "}\n}\n");
    return fclose(f);
}
