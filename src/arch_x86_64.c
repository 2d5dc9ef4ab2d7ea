/* x86_64 register map (see arch.h). */
#if defined(__x86_64__)
#include <string.h>
#include "arch.h"

static const struct {
    const char *name;
    int greg;
} regs[] = {
    {"rip", REG_RIP}, {"rsp", REG_RSP}, {"rbp", REG_RBP}, {"rax", REG_RAX}, {"rbx", REG_RBX},
    {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"r8", REG_R8},
    {"r9", REG_R9},   {"r10", REG_R10}, {"r11", REG_R11}, {"r12", REG_R12}, {"r13", REG_R13},
    {"r14", REG_R14}, {"r15", REG_R15},
};

int arch_reg_count(void) { return (int)(sizeof regs / sizeof regs[0]); }

const char *arch_reg_name(int reg)
{
    if (reg == ARCH_REG_PC) return "pc";
    if (reg == ARCH_REG_SP) return "sp";
    if (reg == ARCH_REG_FP) return "fp";
    return (reg >= 0 && reg < arch_reg_count()) ? regs[reg].name : "?";
}

int arch_reg_parse(const char *name)
{
    if (!strcmp(name, "pc")) return ARCH_REG_PC;
    if (!strcmp(name, "sp")) return ARCH_REG_SP;
    if (!strcmp(name, "fp")) return ARCH_REG_FP;
    for (int i = 0; i < arch_reg_count(); i++)
        if (!strcmp(name, regs[i].name)) return i;
    return -1;
}

uint64_t *arch_reg_slot(ucontext_t *uc, int reg)
{
    if (reg < 0 || reg >= arch_reg_count()) return 0;
    return (uint64_t *)&uc->uc_mcontext.gregs[regs[reg].greg];
}

uint64_t arch_noncanonical_base(void) { return 1ULL << 47; }

void arch_context_from_frame(ucontext_t *uc, void *sp, void *fp, void *pc)
{
    memset(uc, 0, sizeof *uc);
    uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    uc->uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}
#endif
