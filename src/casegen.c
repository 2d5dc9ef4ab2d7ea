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
 * (docs/figures.md, "Design-time measurements"): a non-canonical sp, or an sp in the thread's guard
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
        p->mut[0] = (struct case_mutation){ARCH_REG_PC, MUT_REGION, (r >> 24) % 2 ? REGION_DEOPT_HANDLER : REGION_NMETHOD_TAIL,
                                           (int64_t)casegen_next(st)};
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

/* Where a forged word goes: the slots HotSpot's walkers take on trust. */
static void forge_slot(uint64_t r, struct case_stack_patch *s)
{
    switch (r % 8) {
    case 0: case 1: /* a return address found by its value: compiled frames keep no fp */
        s->anchor = (uint8_t)(STK_RET1 + (r >> 3) % 4), s->offset = (r >> 5) % 4 ? 0 : -8;
        break;
    case 2: /* the return address above a saved fp */
        s->anchor = (uint8_t)(STK_FP + (r >> 3) % 3), s->offset = 8;
        break;
    case 3: /* the saved fp itself */
        s->anchor = (uint8_t)(STK_FP + (r >> 3) % 3), s->offset = 0;
        break;
    case 4: /* an interpreter frame's slots below fp: sender sp, last sp,
               Method*, mirror, mdp, cache, locals, bcp, monitors */
        s->anchor = (uint8_t)(STK_FP + (r >> 3) % 2), s->offset = -8 * (int32_t)(1 + (r >> 5) % 12);
        break;
    default: /* the top frame's own words */
        s->anchor = STK_SP, s->offset = 8 * (int32_t)((r >> 3) % ((r >> 12) % 4 ? 64 : 512));
        break;
    }
}

/* What a forged word holds: plausible values, each a different lie. */
static void forge_value(uint64_t r, uint64_t *st, struct case_stack_patch *s)
{
    static const uint8_t regions[] = {
        REGION_CODE_BLOB, REGION_CODE_BLOB, REGION_NMETHOD_ENTRY, REGION_NMETHOD_TAIL, REGION_CODE_CACHE,
        REGION_LIBJVM_TEXT, REGION_OTHER_STACK, REGION_IMAGE, REGION_IMAGE, REGION_GUARD_PAGE,
        REGION_JAVA_HEAP, REGION_UNMAPPED, REGION_NULL_PAGE, REGION_MISALIGNED, REGION_DEOPT_HANDLER,
        REGION_CALL_STUB_RET, REGION_CONT_BARRIER,
    };
    unsigned pick = (unsigned)(r % 22);
    for (int w = 0; w < s->nwords; w++) {
        uint64_t v = casegen_next(st);
        if (pick < sizeof regions) {
            s->kind = MUT_REGION, s->region = regions[pick], s->words[w] = (int64_t)v;
        } else if (pick < 20) {
            /* valid-looking but wrong: a Method*, bcp or sender sp a little off */
            s->kind = MUT_DELTA, s->region = 0;
            int64_t d = (int64_t)(v % 64) * ((v >> 8) % 4 ? 8 : 1);
            s->words[w] = (v >> 16) % 2 ? d : -d;
        } else {
            s->kind = MUT_ABS, s->region = 0, s->words[w] = (int64_t)(v % 64);
        }
    }
}

/* A return-address slot for a forged frame boundary, from r: a third of the
 * time the word above a saved fp (offset 8 from that anchor, *by_fp set),
 * else a word found by its code-address value (offset 0). */
static uint8_t return_anchor(uint64_t r, int *by_fp)
{
    *by_fp = r % 3 == 0;
    return *by_fp ? (uint8_t)(STK_FP + (r >> 2) % 3) : (uint8_t)(STK_RET1 + (r >> 2) % 4);
}

/* A forged entry frame, two records: a return address (found by value, or
 * above a saved fp) becomes the call stub's, and the saved fp below it
 * points into the copy. The walker takes the sender for an entry frame and
 * reads the word below that fp as its JavaCallWrapper*; some paths check
 * only that the slot, not the pointer in it, lies on the stack. */
static void forge_entry_frame(uint64_t *st, struct case_stack_patch *ret, struct case_stack_patch *fp)
{
    int by_fp;
    uint8_t anchor = return_anchor(casegen_next(st), &by_fp);
    *ret = (struct case_stack_patch){anchor, MUT_REGION, REGION_CALL_STUB_RET, 1, by_fp ? 8 : 0, {0}};
    *fp = (struct case_stack_patch){anchor, MUT_REGION, REGION_IMAGE, 1, by_fp ? 0 : -8, {(int64_t)casegen_next(st)}};
}

/* A forged continuation bottom: a return address becomes the return
 * barrier, as if the caller's frames had been frozen into a heap chunk. The
 * walker then asks the thread for the continuation entry that holds this
 * frame's sp, and a platform thread has none. */
static void forge_cont_bottom(uint64_t *st, struct case_stack_patch *ret)
{
    int by_fp;
    uint8_t anchor = return_anchor(casegen_next(st), &by_fp);
    *ret = (struct case_stack_patch){anchor, MUT_REGION, REGION_CONT_BARRIER, 1, by_fp ? 8 : 0, {0}};
}

/* One forged record: a slot, one to four words, their lie. */
static void forge_word(uint64_t *st, struct case_stack_patch *s)
{
    uint64_t r = casegen_next(st);
    forge_slot(r, s);
    s->nwords = (uint8_t)((r >> 20) % 4 ? 1 : 2 + (r >> 22) % 3);
    forge_value(r >> 24, st, s);
}

static void forge(uint64_t *st, struct case_prog *p)
{
    if (casegen_next(st) % 4 == 0) near(st, p);
    p->nstk = 1 + (int)(casegen_next(st) % 3);
    int first = 0;
    uint64_t shape = casegen_next(st) % 8;
    if (shape < 2) {
        forge_entry_frame(st, &p->stk[0], &p->stk[1]);
        first = 2;
        if (p->nstk < 2) p->nstk = 2;
    } else if (shape == 2) {
        forge_cont_bottom(st, &p->stk[0]);
        first = 1;
    }
    for (int i = first; i < p->nstk; i++) forge_word(st, &p->stk[i]);
}

/* Structure-aware edits of an existing program, for the fuzzers' custom
 * mutators: byte mutations rarely turn a case into a forged frame the
 * walker believes one step further, while these edits keep the parts an
 * earlier input found worth keeping and change one forged word, frame or
 * register at a time. The mode is left to byte mutations: an edit that
 * changed it filled the corpus with queue- and thread-mode cases, and a
 * libFuzzer job alone fell from 143k to 27k execs/s. */
int casegen_mutate(uint64_t *st, struct case_prog *p)
{
    uint64_t r = casegen_next(st);
    unsigned pick = (unsigned)((r >> 8) % 9);
    if (pick >= 4 && pick <= 7 && !p->nstk) pick = 0; /* nothing forged to edit yet: forge something */
    struct case_stack_patch *s = p->nstk ? &p->stk[r % (uint64_t)p->nstk] : NULL;
    switch (pick) {
    case 0: case 1: case 2:
        if (p->nstk >= CASE_MAX_STK) return 0;
        forge_word(st, &p->stk[p->nstk++]);
        return 1;
    case 3:
        if ((r >> 16) % 2) {
            if (p->nstk + 2 > CASE_MAX_STK) return 0;
            forge_entry_frame(st, &p->stk[p->nstk], &p->stk[p->nstk + 1]);
            p->nstk += 2;
        } else {
            if (p->nstk >= CASE_MAX_STK) return 0;
            forge_cont_bottom(st, &p->stk[p->nstk++]);
        }
        return 1;
    case 4: /* the same lie in another slot */
        forge_slot(casegen_next(st), s);
        return 1;
    case 5: /* another lie in the same slot */
        forge_value(casegen_next(st), st, s);
        return 1;
    case 6: { /* the next word along, while it stays in the image */
        int32_t off = s->offset + ((r >> 16) % 2 ? 8 : -8);
        if (off <= -CASE_IMAGE_SIZE || off >= CASE_IMAGE_SIZE) return 0;
        s->offset = off;
        return 1;
    }
    case 7:
        *s = p->stk[--p->nstk];
        return 1;
    default: {
        /* near() fills a program's mut records from the first; give it a
         * scratch one and keep what fits. */
        if (p->nmut >= CASE_MAX_MUTATIONS) return 0;
        struct case_prog q;
        memset(&q, 0, sizeof q);
        near(st, &q);
        for (int i = 0; i < q.nmut && p->nmut < CASE_MAX_MUTATIONS; i++) p->mut[p->nmut++] = q.mut[i];
        return 1;
    }
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
    } else if (s == CASEGEN_FORGE) {
        forge(st, p);
    }
}

size_t casegen_make(enum casegen_strategy s, uint64_t *st, int nregs, struct case_prog *p,
                    uint8_t bytes[CASE_MAX_SIZE])
{
    casegen_fill(s, st, nregs, p);
    return case_encode(p, bytes);
}
