/* Logical register table of the running architecture (see arch.h), from case_codes.h. */
#include <string.h>
#include "arch.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "no register table for this architecture in case_codes.h"
#endif

static const struct {
    const char *name, *alias;
} regs[] = {
#define REG_NAMES(code, name, alias, slot) [code] = {#name, #alias},
#if defined(__x86_64__)
#define CASE_REG_X86_64 REG_NAMES
#else
#define CASE_REG_AARCH64 REG_NAMES
#endif
#include "case_codes.h"
};
#define NREGS ((int)(sizeof regs / sizeof regs[0]))

/* Version 1 case files take register codes modulo this count: a register
 * added to the table would change what they mean. */
#if defined(__x86_64__)
_Static_assert(NREGS == 17, "x86_64 register table size is fixed by case format version 1");
#else
_Static_assert(NREGS == 33, "aarch64 register table size is fixed by case format version 1");
#endif

int arch_reg_count(void) { return NREGS; }

const char *arch_reg_name(int reg) { return reg >= 0 && reg < NREGS && regs[reg].name ? regs[reg].name : "?"; }

int arch_reg_parse(const char *name)
{
    for (int i = 0; i < NREGS; i++)
        if (regs[i].name && (!strcmp(name, regs[i].name) || (strcmp(regs[i].alias, "-") && !strcmp(name, regs[i].alias))))
            return i;
    return -1;
}

uint64_t *arch_reg_slot(ucontext_t *uc, int reg)
{
    switch (reg) {
#define REG_SLOT(code, name, alias, slot) case code: return (uint64_t *)&uc->uc_mcontext.slot;
#if defined(__x86_64__)
#define CASE_REG_X86_64 REG_SLOT
#else
#define CASE_REG_AARCH64 REG_SLOT
#endif
#include "case_codes.h"
    default: return 0;
    }
}
