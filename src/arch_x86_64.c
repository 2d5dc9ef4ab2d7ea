/* x86_64 specifics (see arch.h); the register table is in case_codes.h. */
#if defined(__x86_64__)
#include <string.h>
#include "arch.h"

uint64_t arch_noncanonical_base(void) { return 1ULL << 47; }

void arch_context_from_frame(ucontext_t *uc, void *sp, void *fp, void *pc)
{
    memset(uc, 0, sizeof *uc);
    uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    uc->uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}
#endif
