/* Case generators: the blind baseline does exactly what the JEP 435 prototype's tests did. */
#include <string.h>
#include <ucontext.h>
#include "arch.h"
#include "casegen.h"
#include "mutate.h"
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

int main(void)
{
    blind_moves_sp_and_fp_only();
    return TAP_DONE();
}
