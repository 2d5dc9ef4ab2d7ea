/*
 * Record type mut (0): sets one register of the context copy.
 *   head: register, kind, region (kind region only, else 0), type 0, value (i64 LE)
 *   text: mut REG abs VALUE | mut REG delta [-]VALUE | mut REG region REGION VALUE
 */
#include <inttypes.h>
#include "arch.h"
#include "case.h"

/* [handler-safe] */
static int decode(const uint8_t *r, int nwords, int nregs, struct case_prog *p, size_t *bad, const char **why)
{
    (void)nwords;
    if (r[0] >= nregs) return *bad = 0, *why = "unknown register", -1;
    if (r[1] >= MUT__COUNT) return *bad = 1, *why = "unknown mutation kind", -1;
    if (r[1] == MUT_REGION && r[2] >= REGION__COUNT) return *bad = 2, *why = "unknown region", -1;
    if (r[1] != MUT_REGION && r[2]) return *bad = 2, *why = "region byte of an abs or delta record is not 0", -1;
    if (p->nmut == CASE_MAX_MUTATIONS) return *bad = 0, *why = "more than 32 mut records", -1;
    struct case_mutation *m = &p->mut[p->nmut++];
    m->reg = r[0], m->kind = r[1], m->region = r[2];
    m->value = (int64_t)case_get_le64(r + 4);
    return 0;
}

static int count(const struct case_prog *p) { return p->nmut; }

/* [handler-safe] */
static size_t encode(const struct case_prog *p, int i, uint8_t *r)
{
    const struct case_mutation *m = &p->mut[i];
    r[0] = m->reg, r[1] = m->kind, r[2] = m->kind == MUT_REGION ? m->region : 0, r[3] = CASE_REC_MUT;
    case_put_le64(r + 4, (uint64_t)m->value);
    return CASE_RECORD_SIZE;
}

static void print(FILE *f, const struct case_prog *p, int i)
{
    const struct case_mutation *m = &p->mut[i];
    fprintf(f, "mut %s %s ", arch_reg_name(m->reg), case_kind_name(m->kind));
    if (m->kind == MUT_REGION) fprintf(f, "%s ", case_region_name(m->region));
    if (m->kind == MUT_DELTA && m->value < 0)
        fprintf(f, "-0x%" PRIx64 "\n", -(uint64_t)m->value);
    else
        fprintf(f, "0x%" PRIx64 "\n", (uint64_t)m->value);
}

static int parse(struct case_text *t, struct case_prog *p)
{
    char w[128];
    if (p->nmut == CASE_MAX_MUTATIONS) return case_text_fail(t, NULL, "more than %d mutations", CASE_MAX_MUTATIONS);
    struct case_mutation *m = &p->mut[p->nmut];
    const char *at = case_text_word(t, w, sizeof w);
    int reg = arch_reg_parse(w);
    if (reg < 0) return case_text_fail(t, at, "unknown register '%s'", w);
    at = case_text_word(t, w, sizeof w);
    int kind = case_kind_parse(w);
    if (kind < 0) return case_text_fail(t, at, "unknown mutation kind '%s' (abs, delta, region)", w);
    int region = 0;
    if (kind == MUT_REGION) {
        at = case_text_word(t, w, sizeof w);
        region = case_region_parse(w);
        if (region < 0) return case_text_fail(t, at, "unknown region '%s'", w);
    }
    at = case_text_word(t, w, sizeof w);
    if (case_text_number(t, at, w, kind == MUT_DELTA, &m->value)) return -1;
    /* A delta is signed: 0xffffffffffffffff would come back as -0x1. */
    if (kind == MUT_DELTA && w[0] != '-' && m->value < 0)
        return case_text_fail(t, at, "delta '%s' out of range (a delta is a signed 64-bit number)", w);
    m->reg = (uint8_t)reg, m->kind = (uint8_t)kind, m->region = (uint8_t)region;
    p->nmut++;
    return 0;
}

const struct case_record_handler case_rec_mut = {decode, count, encode, print, parse};
