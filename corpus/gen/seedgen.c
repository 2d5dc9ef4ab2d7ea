/*
 * asgf-seedgen: records near-real seed cases from a running workload.
 *
 *   asgf-seedgen --out DIR [--text-out DIR] [--runs N] [--near N] [--seed S]
 *
 * It starts the fuzz harness (fuzz/harness.h: JVM, workers, guard), then
 *   1. samples the workers unmutated and notes where they really are: the
 *      pc's offset in the code cache, the fp - sp distance;
 *   2. builds candidates around those facts: the real pc offsets (and
 *      neighbours) with sp/fp left alone, nudged or made hostile; small
 *      deltas on pc/sp/fp; pointers into every region at a few offsets
 *      (including the real frame distance); casegen "near" cases; in signal
 *      and thread mode, through every entry point;
 *   3. runs every candidate --runs times and keeps those that add an
 *      outcome feature (fuzz/feedback.h) no earlier candidate had, so the
 *      seeds are small and each one reaches something the others do not.
 * Kept cases are written as DIR/gen-<hash>.bin (binary case files), and as
 * text to --text-out if given. Crash records of faults met on the way go to
 * DIR.records (not inside DIR: fuzzers read corpus directories recursively).
 * Exit 0, 2 on bad usage, 3 if the harness could not start.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "arch.h"
#include "casegen.h"
#include "feedback.h"
#include "harness.h"
#include "regions.h"

#define MAX_PCS 8

static const char *out_dir, *text_dir;
static long runs_per_case = 3, near_cases = 400;
static uint64_t rng = 0x5eed5eedULL;
static uint8_t seen[FEEDBACK_SLOTS];
static long candidates, kept, faulted;

static int usage(const char *why, const char *what)
{
    if (why) fprintf(stderr, "asgf-seedgen: %s%s%s\n", why, what ? " " : "", what ? what : "");
    fprintf(stderr, "usage: asgf-seedgen --out DIR [--text-out DIR] [--runs N] [--near N] [--seed S]\n");
    return 2;
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static void save(const struct case_prog *p, const uint8_t *bytes, size_t len)
{
    char path[4096];
    uint32_t h = fnv1a(bytes, len);
    snprintf(path, sizeof path, "%s/gen-%08x.bin", out_dir, h);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "asgf-seedgen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    if (text_dir) {
        snprintf(path, sizeof path, "%s/gen-%08x.txt", text_dir, h);
        if ((f = fopen(path, "w"))) {
            fprintf(f, "# recorded by asgf-seedgen from a live workload\n");
            case_print(f, p);
            fclose(f);
        }
    }
}

/* Runs a candidate; keeps it if it reached a feature nothing before had. */
static void try_case(struct case_prog *p)
{
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len = case_encode(p, bytes);
    static struct harness_result r;
    int fresh = 0;
    candidates++;
    for (long i = 0; i < runs_per_case; i++) {
        enum harness_rc rc = harness_run(bytes, len, &r);
        if (rc == HARNESS_REJECT) return;
        if (rc == HARNESS_FAULT) faulted++, harness_fault(&r); /* keep_going: prints only */
        uint16_t idx[FEEDBACK_MAX_FEATURES];
        int n = feedback_features(&r.prog, &r.out, r.target_rc, idx);
        for (int k = 0; k < n; k++)
            if (!seen[idx[k]]) seen[idx[k]] = 1, fresh = 1;
    }
    if (fresh) kept++, save(p, bytes, len);
}

static void one_mut(struct case_prog *p, int reg, int kind, int region, int64_t value)
{
    struct case_mutation *m = &p->mut[p->nmut++];
    m->reg = (uint8_t)reg, m->kind = (uint8_t)kind, m->region = (uint8_t)region, m->value = value;
}

static struct case_prog base(int entry, int mode)
{
    struct case_prog p;
    memset(&p, 0, sizeof p);
    p.entry = (uint8_t)entry, p.mode = (uint8_t)mode;
    return p;
}

/* Step 1: where the workers really are. */
static int sample_live(uint64_t *pc_off, int max, int64_t *frame_dist)
{
    struct case_prog p = base(ENTRY_RUN_WITH_ITERATOR, MODE_SIGNAL);
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len = case_encode(&p, bytes);
    static struct harness_result r;
    uintptr_t lo, hi;
    int n = 0;
    *frame_dist = 0x40;
    for (int i = 0; i < 200 && n < max; i++) {
        bytes[CASE_HEADER_SIZE + 3] = (uint8_t)i; /* worker byte: go round the workers */
        if (harness_run(bytes, len, &r) != HARNESS_RAN || r.out.frames < 1) continue;
        uintptr_t pc = (uintptr_t)r.frames[0].pc, sp = (uintptr_t)r.frames[0].sp, fp = (uintptr_t)r.frames[0].fp;
        if (fp > sp && fp - sp < (1u << 16)) *frame_dist = (int64_t)(fp - sp);
        if (!regions_bounds(REGION_CODE_CACHE, &lo, &hi) || pc < lo || pc >= hi) continue;
        int dup = 0;
        for (int k = 0; k < n; k++) dup |= pc_off[k] == pc - lo;
        if (!dup) pc_off[n++] = pc - lo;
    }
    return n;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(NULL, NULL);
            return 0;
        }
        if (strcmp(a, "--out") && strcmp(a, "--text-out") && strcmp(a, "--runs") && strcmp(a, "--near") &&
            strcmp(a, "--seed"))
            return usage("unknown option", a);
        if (i + 1 >= argc) return usage("missing value for", a);
        const char *v = argv[++i];
        char *end = "";
        if (!strcmp(a, "--out")) out_dir = v;
        else if (!strcmp(a, "--text-out")) text_dir = v;
        else if (!strcmp(a, "--runs")) runs_per_case = strtol(v, &end, 10);
        else if (!strcmp(a, "--near")) near_cases = strtol(v, &end, 10);
        else rng = strtoull(v, &end, 0);
        if (*end || !*v || runs_per_case < 1 || near_cases < 0) return usage("bad value for", a);
    }
    if (!out_dir) return usage("--out is required", NULL);
    if ((mkdir(out_dir, 0755) && errno != EEXIST) || (text_dir && mkdir(text_dir, 0755) && errno != EEXIST)) {
        fprintf(stderr, "asgf-seedgen: cannot create %s: %s\n", out_dir, strerror(errno));
        return 2;
    }
    struct harness_config c;
    char err[1024], records[4096];
    if (harness_config_from_env(&c, err, sizeof err)) return fprintf(stderr, "asgf-seedgen: %s\n", err), 2;
    snprintf(records, sizeof records, "%s.records", out_dir);
    c.out = records, c.keep_going = 1;
    if (harness_start(&c, err, sizeof err)) return fprintf(stderr, "asgf-seedgen: %s\n", err), 3;

    uint64_t pcs[MAX_PCS];
    int64_t dist;
    int npcs = sample_live(pcs, MAX_PCS, &dist);
    static const int64_t deltas[] = {8, -8, 16, -16, 0x20, -0x20, 0x40, -0x40, 0x100, -0x100, 0x1000, -0x1000};
    static const int frame_regs[] = {ARCH_REG_PC, ARCH_REG_SP, ARCH_REG_FP};
    static const int walk_modes[] = {MODE_SIGNAL, MODE_THREAD};

    for (int e = 0; e < ENTRY__COUNT; e++) /* every entry, unmutated, each mode */
        for (int m = 0; m < MODE__COUNT; m++) {
            struct case_prog p = base(e, m);
            try_case(&p);
        }
    for (int k = 0; k < npcs; k++) /* 2. the real pcs, neighbours, hostile sp/fp */
        for (int64_t d = -8; d <= 8; d += 4) {
            static const int sp_shapes[][2] = {{-1, 0}, {MUT_DELTA, 8}, {MUT_REGION, REGION_NONCANONICAL},
                                               {MUT_REGION, REGION_GUARD_PAGE}, {MUT_REGION, REGION_UNMAPPED}};
            for (size_t s = 0; s < sizeof sp_shapes / sizeof sp_shapes[0]; s++) {
                struct case_prog p = base(ENTRY_RUN_WITH_ITERATOR, MODE_SIGNAL);
                one_mut(&p, ARCH_REG_PC, MUT_REGION, REGION_CODE_CACHE, (int64_t)pcs[k] + d);
                if (sp_shapes[s][0] == MUT_DELTA) one_mut(&p, ARCH_REG_SP, MUT_DELTA, 0, sp_shapes[s][1]);
                else if (sp_shapes[s][0] == MUT_REGION) one_mut(&p, ARCH_REG_SP, MUT_REGION, sp_shapes[s][1], 0);
                try_case(&p);
            }
        }
    for (size_t r = 0; r < 3; r++) /* small deltas on pc/sp/fp */
        for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++)
            for (size_t m = 0; m < 2; m++) {
                struct case_prog p = base(ENTRY_RUN_WITH_ITERATOR, walk_modes[m]);
                one_mut(&p, frame_regs[r], MUT_DELTA, 0, deltas[d]);
                try_case(&p);
            }
    const int64_t offsets[] = {0, 8, dist, 0x100, 0x1000, 0x10000};
    for (size_t r = 0; r < 3; r++) /* pointers into every region */
        for (int g = 0; g < REGION__COUNT; g++)
            for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
                for (int e = 0; e < ENTRY__COUNT; e++) {
                    struct case_prog p = base(e, e == ENTRY_ENQUEUE ? MODE_QUEUE : MODE_SIGNAL);
                    one_mut(&p, frame_regs[r], MUT_REGION, g, offsets[o]);
                    try_case(&p);
                }
    for (long i = 0; i < near_cases; i++) { /* casegen's near strategy */
        struct case_prog p;
        uint8_t bytes[CASE_MAX_SIZE];
        casegen_make(CASEGEN_NEAR, &rng, arch_reg_count(), &p, bytes);
        p.mode = (uint8_t)walk_modes[i % 2];
        try_case(&p);
    }
    fprintf(stderr, "asgf-seedgen: %d live pc offsets, frame distance 0x%llx; %ld candidates, %ld kept in %s, "
            "%ld runs faulted (records in %s)\n",
            npcs, (unsigned long long)dist, candidates, kept, out_dir, faulted, records);
    return 0;
}
