/* Case generators (see casegen.h). */
#include <string.h>
#include "arch.h"
#include "casegen.h"

uint64_t casegen_next(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ULL;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return *s = x;
}

/* The shapes that faulted stock AGCT on this project's machines
 * (docs/measured.md): a non-canonical sp, or an sp in the thread's guard
 * zone, with the pc left where it was (in JIT code when the caller aims at
 * Java states). */
static void fault_shape(uint64_t *st, struct case_prog *p)
{
    uint64_t r = casegen_next(st);
    if ((r >> 8) % 2) {
        /* pc at a real nmethod's stubs, sp somewhere frame construction
         * will read without checking first */
        static const uint8_t sp_regions[] = {REGION_CODE_CACHE, REGION_UNMAPPED, REGION_NONCANONICAL,
                                             REGION_NULL_PAGE, REGION_GUARD_PAGE};
        p->nmut = 2;
        p->mut[0] = (struct case_mutation){ARCH_REG_PC, MUT_REGION, REGION_NMETHOD_TAIL, (int64_t)casegen_next(st)};
        p->mut[1] = (struct case_mutation){ARCH_REG_SP, MUT_REGION, sp_regions[(r >> 16) % 5],
                                           (int64_t)casegen_next(st)};
        return;
    }
    p->nmut = 1;
    p->mut[0].reg = ARCH_REG_SP;
    p->mut[0].kind = MUT_REGION;
    p->mut[0].region = (r & 1) ? REGION_NONCANONICAL : REGION_GUARD_PAGE;
    p->mut[0].value = (int64_t)casegen_next(st);
    if ((r >> 1) % 2) {
        p->nmut = 2;
        p->mut[1].reg = ARCH_REG_FP, p->mut[1].kind = MUT_DELTA;
        p->mut[1].value = (int64_t)(casegen_next(st) % 4096) - 2048;
    }
}

static void near(uint64_t *st, struct case_prog *p)
{
    if (casegen_next(st) % 4 == 0) return fault_shape(st, p);
    static const int8_t regs[] = {ARCH_REG_PC, ARCH_REG_SP, ARCH_REG_FP};
    p->nmut = 1 + (int)(casegen_next(st) % 3);
    for (int i = 0; i < p->nmut; i++) {
        struct case_mutation *m = &p->mut[i];
        uint64_t r = casegen_next(st);
        m->reg = (uint8_t)regs[r % 3];
        m->kind = (r >> 8) % 4 == 0 ? MUT_REGION : MUT_DELTA;
        m->region = (uint8_t)((r >> 16) % REGION__COUNT);
        /* Small deltas dominate: they keep the frame plausible enough to get
         * past the walker's first sanity checks. */
        int64_t span = (r >> 24) % 4 == 0 ? 1 << 20 : 1 << 10;
        m->value = m->kind == MUT_DELTA ? (int64_t)(casegen_next(st) % (uint64_t)(2 * span)) - span
                                        : (int64_t)casegen_next(st);
    }
}

void casegen_fill(enum casegen_strategy s, uint64_t *st, int nregs, struct case_prog *p)
{
    memset(p, 0, sizeof *p);
    if (s == CASEGEN_RANDOM) {
        uint8_t raw[CASE_MAX_SIZE];
        /* headerless bytes decode as version 1: at most 16 records */
        size_t body = CASE_GLOBAL_SIZE + (casegen_next(st) % (CASE_V1_MAX_RECORDS + 1)) * CASE_RECORD_SIZE;
        for (size_t i = 0; i < body; i++) raw[i] = (uint8_t)casegen_next(st);
        case_decode(raw, body, nregs, p);
        p->mode = MODE_SIGNAL;
    } else if (s == CASEGEN_NEAR) {
        near(st, p);
    } else if (s == CASEGEN_BLIND) {
        p->nmut = 2;
        p->mut[0] = (struct case_mutation){ARCH_REG_SP, MUT_DELTA, 0, (int64_t)(casegen_next(st) % 1000000)};
        p->mut[1] = (struct case_mutation){ARCH_REG_FP, MUT_DELTA, 0, (int64_t)(casegen_next(st) % 1000000)};
    }
}

size_t casegen_make(enum casegen_strategy s, uint64_t *st, int nregs, struct case_prog *p,
                    uint8_t bytes[CASE_MAX_SIZE])
{
    casegen_fill(s, st, nregs, p);
    return case_encode(p, bytes);
}
