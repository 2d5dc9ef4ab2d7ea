/* aarch64 specifics (see arch.h); the register table (pc, sp, fp = x29,
 * lr = x30, x0..x28) is in case_codes.h. */
#if defined(__aarch64__)
#include <string.h>
#include "arch.h"

uint64_t arch_noncanonical_base(void) { return 1ULL << 48; }

void arch_context_from_frame(ucontext_t *uc, void *sp, void *fp, void *pc)
{
    memset(uc, 0, sizeof *uc);
    uc->uc_mcontext.sp = (uint64_t)sp;
    uc->uc_mcontext.regs[29] = (uint64_t)fp;
    uc->uc_mcontext.pc = (uint64_t)pc;
}
__attribute__((no_sanitize_address)) uint64_t arch_zero_words(const uint64_t *words, size_t n)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++) bits |= (uint64_t)(words[i] == 0) << i;
    return bits;
}
#endif
