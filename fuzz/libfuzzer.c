/*
 * libFuzzer entry point (build/fuzz/asgf-libfuzzer, and -asan). Run it
 * through fuzz/run-libfuzzer, which passes the options a JVM needs.
 *
 * The JVM is created on the first input, not in LLVMFuzzerInitialize: a
 * -jobs/-fork parent never runs inputs, so it never starts a JVM whose
 * busy workers would steal a core from its children.
 *
 * Only this file is compiled with coverage instrumentation; the harness
 * and the core are not, so with ASGF_FEEDBACK=0 the fuzzer sees (almost)
 * nothing of the outcome and the with/without comparison is fair.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "casefix.h"
#include "feedback.h"
#include "harness.h"
#include "walker_cov.h"

/* libFuzzer clears this section before every input and reads it after:
 * the outcome features, then the walker blocks first reached while the
 * input ran (src/walker_cov.h), a slot and a value each (feedback.h). */
__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t extra_counters[FEEDBACK_SLOTS];
__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t walker_counters[WALKER_SLOTS];

static void print_stats(void) { harness_stats(2); }

static void start_once(void)
{
    static int started;
    if (started) return;
    struct harness_config c;
    char err[1024];
    if (harness_config_from_env(&c, err, sizeof err) || harness_start(&c, err, sizeof err)) {
        fprintf(stderr, "asgf: %s\n", err);
        _exit(3); /* not exit(): libFuzzer would file the input as a crash */
    }
    if (!c.quiet) atexit(print_stats);
    started = 1;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* A share of the mutations edit the case's structure (casefix_mutate);
 * the rest are libFuzzer's own (dictionary included), then the fix-up that
 * keeps them valid cases. Validation in LLVMFuzzerTestOneInput stays
 * strict: inputs from elsewhere (corpus dirs, -merge) are checked as they are. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    if ((int)(seed % 100) < casefix_struct_share()) {
        size_t n = casefix_mutate(data, size, max_size, seed);
        if (n) return n;
    }
    return casefix_apply(data, LLVMFuzzerMutate(data, size, max_size), max_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct harness_result r;
    start_once();
    enum harness_rc rc = harness_run(data, size, &r);
    if (rc == HARNESS_REJECT) return -1; /* never kept, so every saved input is a valid case */
    if (harness_cfg()->feedback) {
        uint16_t idx[FEEDBACK_MAX_FEATURES];
        int n = feedback_features(&r.prog, &r.out, r.target_rc, idx);
        for (int i = 0; i < n; i++) extra_counters[idx[i]] = 1;
    }
    if (harness_cfg()->walker_feedback) {
        uint32_t blocks[256];
        int n;
        while ((n = wcov_take_new(blocks, 256)) > 0)
            for (int i = 0; i < n; i++) {
                static const uint8_t value_range[8] = {1, 2, 3, 4, 8, 16, 32, 128};
                walker_counters[blocks[i] % WALKER_SLOTS] = value_range[blocks[i] / WALKER_SLOTS % 8];
            }
    }
    if (rc == HARNESS_FAULT) harness_fault(&r);
    return 0;
}
