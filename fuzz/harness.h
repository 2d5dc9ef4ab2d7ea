/*
 * The harness core shared by the libFuzzer binary, the AFL++ binary, the
 * replay tool and the seed generator: one live JVM with busy worker
 * threads, and a function that runs one case file against a worker.
 *
 * Start-up (harness_start), in this order:
 *   1. JNI_CreateJavaVM, class path = our workload classes (and the stress
 *      classes when built), -Xmx128m -XX:-UsePerfData -Xrs, -XX:+UseSerialGC
 *      unless $ASGF_JVM_OPTS names another collector,
 *      hs_err files into the record directory, then $ASGF_JVM_OPTS;
 *   2. the core's start-up path (startup_attach, src/startup.h): method
 *      cache, JIT code table, backend, crash protection (after
 *      JNI_CreateJavaVM: PRIMARY mode, our SIGSEGV/SIGBUS handler in front
 *      of HotSpot's, see fuzz/README.md), thread registry (glob
 *      asgst-worker-*), all before any worker exists, so every worker is
 *      registered at ThreadStart and gets a queue of its own;
 *   3. for agct, the queue's processing thread (src/queue_agct.h), and the
 *      sampling handler (target_install(SIGPROF));
 *   4. asgf.fuzz.Workload.start(scenario, workers), wait until the workers
 *      are registered, register the calling thread too (never a worker),
 *      let the JIT warm up, refresh the region snapshot.
 *
 * Per case (harness_run): strict validation (an invalid file is rejected
 * and never run), total decode, worker = prog.worker % workers, then
 * target_run in the case's mode. Cases come in held batches (src/target.h):
 * a signalled worker stays in its handler for up to ASGF_BATCH cases or
 * ASGF_HOLD_US, so most cases cost no signal; each still starts from the
 * worker's live interrupted context. MODE_QUEUE runs like MODE_SIGNAL; the
 * enqueue entry puts an element into the worker's queue (its walk happens
 * later on the backend's processing thread and is counted, not credited).
 *
 * Configuration comes from ASGF_* environment variables; unknown ASGF_*
 * names are reported, so a typo does not silently change a campaign.
 * Not handler-safe; call from one thread (the fuzzer's).
 */
#ifndef ASGF_FUZZ_HARNESS_H
#define ASGF_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include "case.h"
#include "exec.h"

struct harness_config {
    const char *api;          /* ASGF_API: auto | asgst | agct (auto) */
    const char *scenario;     /* ASGF_SCENARIO: loop | mixed | stress scenario(s) (loop) */
    int workers;              /* ASGF_WORKERS, 1..64 (cores - 1, at least 1) */
    const char *out;          /* ASGF_OUT: crash records, hs_err (./fuzz-out) */
    const char *jvm_opts;     /* ASGF_JVM_OPTS: extra JVM options, blank separated */
    const char *classpath;    /* ASGF_CLASSPATH: prepended to the class path */
    int keep_going;           /* ASGF_KEEP_GOING: 1 = count caught faults, do not abort (0) */
    int feedback;             /* ASGF_FEEDBACK: outcome features for the fuzzer (1) */
    int protect;              /* ASGF_PROTECT: crash protection (1) */
    long case_timeout_ms;     /* ASGF_CASE_TIMEOUT_MS: bound on a signal's round trip until the handler takes the case (500) */
    long spin_us;             /* ASGF_SPIN_US: busy-wait for the worker before sleeping (-1: 50 with two CPUs or more, 0 on one) */
    long gap_us;              /* ASGF_GAP_US: on one CPU, the worker's own run between batches (0: signal at once) */
    long batch;               /* ASGF_BATCH: most cases per signal, the worker held in its handler (128; 1 = a signal each) */
    long hold_us;             /* ASGF_HOLD_US: longest a worker is held for one batch (200) */
    long shared_hold_us;      /* ASGF_SHARED_HOLD_US: the same while fuzzer thread and worker share one CPU (2000) */
    int pin;                  /* ASGF_PIN: fuzzer thread and workers on CPUs of their own (one job only) */
    const char *placement;    /* ASGF_PLACEMENT: auto | spread | together (auto; fuzz/placement.h) */
    long warmup_ms;           /* ASGF_WARMUP_MS: JIT warm-up after the workers start (300) */
    uint64_t test_plant;      /* ASGF_TEST_PLANT: test hook, see harness_start (0 = off) */
    int quiet;                /* ASGF_QUIET: no start-up and exit lines (0) */
    long afl_loop;            /* ASGF_AFL_LOOP: inputs per AFL++ child (one JVM each) */
    long records_per_key;     /* ASGF_RECORDS_PER_KEY: crash records kept per fault key (20) */
    long max_records;         /* ASGF_MAX_RECORDS: crash records per output directory (100000) */
    long watch;               /* ASGF_WATCH: bytes of the walked thread's frames watched for a walk's stores
                                 (STACK_WATCH_DEFAULT; src/stack_watch.h) */
    int walker_cov;           /* ASGF_WALKER_COV: breakpoint coverage of libjvm's walker (1; src/walker_cov.h) */
    int walker_feedback;      /* ASGF_WALKER_FEEDBACK: newly reached walker blocks are fuzzer features (1) */
    int vthread_warmup;       /* ASGF_VTHREAD_WARMUP: one virtual thread before the first case (1; src/vm_warmup.h) */
    int mode_override;        /* not from env: -1, or a MODE_* every case runs in (replay --mode) */
};

/* Fills c with the defaults, then the environment. Returns 0, or -1 with a
 * message naming the variable. Warns on stderr about unknown ASGF_* names. */
int harness_config_from_env(struct harness_config *c, char *err, size_t errlen);

/* Starts everything (see above). Returns 0 or -1 with a message. The test
 * hook ASGF_TEST_PLANT=ADDR makes every agct walk write its frames to ADDR
 * (api_agct_plant_bad_frames): with an unmapped ADDR, every walk that finds
 * frames faults inside libjvm's frame filling, a deterministic fault for
 * the tests and the saved reproducer corpus/reproducers/planted-*. */
int harness_start(const struct harness_config *c, char *err, size_t errlen);
const struct harness_config *harness_cfg(void);

enum harness_rc {
    HARNESS_REJECT = -1, /* not a valid case file; not run */
    HARNESS_RAN = 0,     /* ran, no fault */
    HARNESS_FAULT = 1,   /* ran, the guard caught a fault (record written) */
    HARNESS_NOT_RUN = 2, /* the worker did not answer (timeout, thread gone) */
};

#define HARNESS_FRAMES 8

struct harness_result {
    struct case_prog prog;
    int tid;                 /* the worker signalled */
    int target_rc;           /* TARGET_RAN, TARGET_NO_SIGNAL, TARGET_TIMEOUT */
    struct exec_outcome out;
    ASGST_Frame frames[HARNESS_FRAMES];
    size_t err_offset;       /* HARNESS_REJECT: where and why */
    const char *err;
    /* Before the run: the target's registry slot, its handshake lots done
     * and the faults caught so far (harness_await_handshake compares). */
    int slot;
    unsigned long long lots_before, caught_before;
};

/* Runs one case file. buf is used as it is (it becomes the crash record's
 * case bytes). */
enum harness_rc harness_run(const uint8_t *buf, size_t len, struct harness_result *r);

/* After a run whose case has handshake qop records (done at the target's
 * next queue handler, after harness_run returned): waits up to timeout_ms
 * for them. 2: they ran and a fault was caught meanwhile; 1: they ran
 * clean; 0: the case has none; -1: they did not run in time. For replay,
 * where a fault at the handshake belongs to the run; fuzzers do not wait. */
int harness_await_handshake(const struct harness_result *r, long timeout_ms);

/* For the fuzzer entry points: prints one line about a caught fault and
 * aborts unless keep_going (the abort makes the fuzzer save the input). */
void harness_fault(const struct harness_result *r);

/* Name of the raw code the VM answered, e.g. "frames", "unknown_java". */
const char *harness_raw_name(int raw);
/* Name of an outcome class (feedback_class): a raw code name, "other",
 * "FAULT", or "queue:" and the ASGST code a queue entry answered. */
const char *harness_class_name(int c);

/* Prints the counters (runs, outcomes, faults, guard and target counters). */
void harness_stats(int fd);
/* Removes this process's in-flight case files (harness_start registers it
 * with atexit; a process that ends by _exit calls it first). */
void harness_remove_inflight(void);

#endif
