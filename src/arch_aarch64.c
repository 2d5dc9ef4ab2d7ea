/* aarch64 register map (see arch.h): pc, sp, x29 (fp), x30 (lr), x0..x28. */
#if defined(__aarch64__)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"

#define NREGS (3 + 1 + 29)

int arch_reg_count(void) { return NREGS; }

const char *arch_reg_name(int reg)
{
    static const char *fixed[] = {"pc", "sp", "fp", "lr"};
    static const char *x[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",
                              "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
                              "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28"};
    if (reg >= 0 && reg < 4) return fixed[reg];
    if (reg >= 4 && reg < NREGS) return x[reg - 4];
    return "?";
}

int arch_reg_parse(const char *name)
{
    if (!strcmp(name, "x29")) return ARCH_REG_FP;
    if (!strcmp(name, "x30")) return 3;
    for (int i = 0; i < NREGS; i++)
        if (!strcmp(name, arch_reg_name(i))) return i;
    return -1;
}

uint64_t *arch_reg_slot(ucontext_t *uc, int reg)
{
    mcontext_t *m = &uc->uc_mcontext;
    switch (reg) {
    case ARCH_REG_PC: return (uint64_t *)&m->pc;
    case ARCH_REG_SP: return (uint64_t *)&m->sp;
    case ARCH_REG_FP: return (uint64_t *)&m->regs[29];
    case 3: return (uint64_t *)&m->regs[30];
    default:
        if (reg >= 4 && reg < NREGS) return (uint64_t *)&m->regs[reg - 4];
        return 0;
    }
}

uint64_t arch_noncanonical_base(void) { return 1ULL << 48; }

void arch_context_from_frame(ucontext_t *uc, void *sp, void *fp, void *pc)
{
    memset(uc, 0, sizeof *uc);
    uc->uc_mcontext.sp = (uint64_t)sp;
    uc->uc_mcontext.regs[29] = (uint64_t)fp;
    uc->uc_mcontext.pc = (uint64_t)pc;
}
#endif
