/* Case generators: the blind baseline does exactly what the JEP 435 prototype's tests did. */
#include <string.h>
#include <ucontext.h>
#include "arch.h"
#include "casegen.h"
#include "mutate.h"
#include "regions.h"
#include "stack_image.h"
#include "tap.h"

static void blind_moves_sp_and_fp_only(void)
{
    uint64_t st = 42;
    int bad = 0, spread = 0;
    for (int i = 0; i < 10000; i++) {
        struct case_prog p;
        casegen_fill(CASEGEN_BLIND, &st, arch_reg_count(), &p);
        if (p.nmut != 2 || p.mut[0].reg != ARCH_REG_SP || p.mut[1].reg != ARCH_REG_FP) bad++;
        for (int k = 0; k < p.nmut; k++)
            if (p.mut[k].kind != MUT_DELTA || p.mut[k].value < 0 || p.mut[k].value >= 1000000) bad++;
        if (p.mut[0].value >= 500000) spread++;
    }
    CHECK(bad == 0, "blind: every case is sp += r, fp += r with 0 <= r < 1000000 (bad %d)", bad);
    CHECK(spread > 4000 && spread < 6000, "blind: deltas cover the range (%d of 10000 above 500000)", spread);

    ucontext_t uc, before;
    memset(&uc, 0, sizeof uc);
    *arch_reg_slot(&uc, ARCH_REG_PC) = 0x1000;
    *arch_reg_slot(&uc, ARCH_REG_SP) = 0x7f0000000000;
    *arch_reg_slot(&uc, ARCH_REG_FP) = 0x7f0000001000;
    before = uc;
    struct case_prog p;
    casegen_fill(CASEGEN_BLIND, &st, arch_reg_count(), &p);
    mutate_apply(&p, &uc, NULL, NULL);
    CHECK(*arch_reg_slot(&uc, ARCH_REG_SP) == 0x7f0000000000 + (uint64_t)p.mut[0].value &&
              *arch_reg_slot(&uc, ARCH_REG_FP) == 0x7f0000001000 + (uint64_t)p.mut[1].value,
          "blind: applied to a context, sp and fp move by the case's deltas");
    int others = 0;
    for (int r = 0; r < arch_reg_count(); r++)
        if (r != ARCH_REG_SP && r != ARCH_REG_FP && *arch_reg_slot(&uc, r) != *arch_reg_slot(&before, r)) others++;
    CHECK(others == 0, "blind: no other register changes (%d changed)", others);

    uint8_t bytes[CASE_MAX_SIZE];
    size_t len = casegen_make(CASEGEN_BLIND, &st, arch_reg_count(), &p, bytes);
    size_t off;
    const char *err;
    CHECK(case_validate(bytes, len, &off, &err) == 0, "blind: its cases are well-formed case files");
}

static void forge_cases(void)
{
    uint64_t st = 7;
    int bad = 0, anchors = 0, sizes_ok = 1;
    for (int i = 0; i < 5000; i++) {
        struct case_prog p;
        uint8_t bytes[CASE_MAX_SIZE];
        size_t len = casegen_make(CASEGEN_FORGE, &st, arch_reg_count(), &p, bytes), off;
        const char *err;
        if (p.nstk < 1 || p.nstk > 3 || case_validate(bytes, len, &off, &err)) bad++;
        for (int k = 0; k < p.nstk; k++) anchors |= 1 << p.stk[k].anchor, sizes_ok &= p.stk[k].nwords >= 1;
    }
    CHECK(bad == 0 && sizes_ok, "forge: 1 to 3 stk records, every case a valid file (bad %d)", bad);
    CHECK(anchors == (1 << CASE_STK_ANCHORS) - 1, "forge: every anchor is drawn (mask 0x%x)", anchors);
}

/* Builds an image of the caller's frame: img lies in this frame, below sp. */
static __attribute__((noinline)) void image_of(const struct thread_info *self, volatile uint64_t *outer)
{
    struct stack_image img;
    stack_image_init(&img);
    struct case_prog p;
    char err[200];
    ucontext_t uc;
    memset(&uc, 0, sizeof uc);
    *arch_reg_slot(&uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)outer;
    *arch_reg_slot(&uc, ARCH_REG_FP) = (uint64_t)(uintptr_t)&outer[4];
    int rc = case_parse_text("asgf-case 1\nstk sp +8 abs 0x1234\nstk fp2 +8 abs 0x77\nstk sp +8184 abs 1\n", &p, err,
                             sizeof err);
    enum stack_image_result r = stack_image_build(&img, &p, &uc, self);
    uintptr_t base = (uintptr_t)img.words;
    CHECK(rc == 0 && r == STACK_IMAGE_BUILT && *arch_reg_slot(&uc, ARCH_REG_SP) == base &&
              *arch_reg_slot(&uc, ARCH_REG_FP) == base + 32,
          "image: sp and fp now point into the copy (rc %d, result %d)", rc, (int)r);
    CHECK(img.words[1] == 0x1234 && outer[1] == 0x5555, "image: a word forged at sp+8; the live stack keeps its own");
    CHECK(img.words[3] == base + 80, "image: a pointer into the copied range is moved with it");
    CHECK(img.words[9] == 0x77, "image: anchor fp2 follows the saved fp through the copy");
    CHECK(img.written == 2 + (img.len == CASE_IMAGE_SIZE) && img.skipped == (img.len < CASE_IMAGE_SIZE),
          "image: a word past the copy is skipped and counted (written %d, skipped %d)", img.written, img.skipped);

    /* A second case on the same held context reuses the copy: the first
     * case's words are put back, and the live stack is not read again. */
    struct case_prog q;
    rc = case_parse_text("asgf-case 1\nstk sp +16 abs 0x99\n", &q, err, sizeof err);
    outer[5] = 0xbeef;
    *arch_reg_slot(&uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)outer;
    *arch_reg_slot(&uc, ARCH_REG_FP) = (uint64_t)(uintptr_t)&outer[4];
    r = stack_image_build(&img, &q, &uc, self);
    CHECK(rc == 0 && r == STACK_IMAGE_BUILT && img.words[2] == 0x99 && img.written == 1,
          "image reused: the second case's word is forged (rc %d, result %d)", rc, (int)r);
    CHECK(img.words[1] == 0x5555 && img.words[9] == 0x1009 && img.words[3] == base + 80,
          "image reused: the first case's forged words are back to the copy's");
    CHECK(img.words[5] == 0x1005, "image reused: taken at the first case, not copied again");
    /* Two records on one word: put back last first, or the word keeps the
     * first record's value. */
    rc = case_parse_text("asgf-case 1\nstk sp +8 abs 0x10\nstk sp +8 delta 0x5\n", &q, err, sizeof err);
    *arch_reg_slot(&uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)outer;
    r = stack_image_build(&img, &q, &uc, self);
    int stacked = img.words[1] == 0x15;
    *arch_reg_slot(&uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)outer;
    rc |= case_parse_text("asgf-case 1\nstk sp +16 abs 0x99\n", &q, err, sizeof err);
    r = stack_image_build(&img, &q, &uc, self);
    CHECK(rc == 0 && stacked && img.words[1] == 0x5555,
          "image reused: a word two records wrote is put back to the copy's (0x%llx)", (unsigned long long)img.words[1]);
    stack_image_init(&img);
    *arch_reg_slot(&uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)outer;
    r = stack_image_build(&img, &q, &uc, self);
    CHECK(r == STACK_IMAGE_BUILT && img.words[5] == 0xbeef && img.words[1] == 0x5555,
          "image after init: copied afresh from the live stack");
    outer[5] = 0x1005;

    *arch_reg_slot(&uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)outer;
    r = stack_image_build(&img, &p, &uc, NULL);
    CHECK(r == STACK_IMAGE_FOREIGN && *arch_reg_slot(&uc, ARCH_REG_SP) == (uint64_t)(uintptr_t)outer &&
              img.skipped == 3,
          "image: no registered thread, no copy: the context is left as it was");
}

static void forged_image(void)
{
    volatile uint64_t outer[64];
    for (int i = 0; i < 64; i++) outer[i] = 0x1000 + (uint64_t)i;
    outer[1] = 0x5555;
    outer[3] = (uint64_t)(uintptr_t)&outer[10]; /* a stack pointer held in the frame */
    outer[4] = (uint64_t)(uintptr_t)&outer[8];  /* fp's saved fp: the next frame up */
    CHECK(threads_register_self("casegen-test", NULL) >= 0, "image: the test thread is registered");
    image_of(threads_find(threads_gettid()), outer);
}

/* The fuzzers' structure-aware edits: every result is a valid case, full
 * programs are left alone, and each kind of edit happens. */
static void structured_edits(void)
{
    uint64_t st = 11;
    int bad = 0, grew = 0, shrank = 0, moved = 0, revalued = 0, frames = 0, muts = 0, refused = 0;
    struct case_prog p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 20000; i++) {
        if (i % 50 == 0) memset(&p, 0, sizeof p);
        struct case_prog before = p;
        int done = casegen_mutate(&st, &p);
        uint8_t bytes[CASE_MAX_SIZE];
        size_t len = case_encode(&p, bytes), off;
        const char *err;
        if (case_validate(bytes, len, &off, &err) || p.nstk > CASE_MAX_STK || p.nmut > CASE_MAX_MUTATIONS) bad++;
        if (!done && memcmp(&before, &p, sizeof p)) bad++;
        refused += !done;
        grew += p.nstk > before.nstk, shrank += p.nstk < before.nstk, muts += p.nmut > before.nmut;
        for (int k = 0; p.nstk == before.nstk && k < p.nstk; k++)
            moved += p.stk[k].anchor != before.stk[k].anchor || p.stk[k].offset != before.stk[k].offset,
                revalued += p.stk[k].anchor == before.stk[k].anchor && p.stk[k].offset == before.stk[k].offset &&
                            memcmp(p.stk[k].words, before.stk[k].words, sizeof p.stk[k].words);
        for (int k = before.nstk; k < p.nstk; k++)
            frames += p.stk[k].kind == MUT_REGION &&
                      (p.stk[k].region == REGION_CALL_STUB_RET || p.stk[k].region == REGION_CONT_BARRIER);
    }
    CHECK(bad == 0, "structured edits: every result is a valid case within the bounds, a refused edit changes nothing (bad %d)", bad);
    CHECK(grew > 0 && shrank > 0 && moved > 0 && revalued > 0 && frames > 0 && muts > 0 && refused > 0,
          "structured edits: forged words added (%d), dropped (%d), moved (%d), re-valued (%d), frame boundaries "
          "forged (%d), registers mutated (%d), refused with no room (%d)",
          grew, shrank, moved, revalued, frames, muts, refused);
    memset(&p, 0, sizeof p);
    p.nstk = CASE_MAX_STK;
    int full_refused = 0;
    for (int i = 0; i < 1000; i++) {
        struct case_prog q = p;
        if (!casegen_mutate(&st, &q)) full_refused++;
        else if (q.nstk > CASE_MAX_STK) bad++;
    }
    CHECK(bad == 0 && full_refused > 0, "structured edits: a program with %d forged records gets no more (%d refused)",
          CASE_MAX_STK, full_refused);
    /* a forged word at the image's edge is never moved out of it */
    int invalid = 0;
    for (int i = 0; i < 4000; i++) {
        memset(&p, 0, sizeof p);
        p.nstk = 1;
        p.stk[0] = (struct case_stack_patch){STK_SP, MUT_ABS, 0, 1, i % 2 ? CASE_IMAGE_SIZE - 8 : -(CASE_IMAGE_SIZE - 8), {0}};
        for (int k = 0; k < 8; k++) casegen_mutate(&st, &p);
        uint8_t bytes[CASE_MAX_SIZE];
        size_t len = case_encode(&p, bytes), off;
        const char *err;
        invalid += case_validate(bytes, len, &off, &err) != 0;
    }
    CHECK(invalid == 0, "structured edits: forged words at the image's edges stay inside it (%d invalid of 4000)", invalid);
}

int main(void)
{
    blind_moves_sp_and_fp_only();
    forge_cases();
    forged_image();
    structured_edits();
    return TAP_DONE();
}
