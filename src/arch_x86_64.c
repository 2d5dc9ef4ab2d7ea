/* x86_64 specifics (see arch.h); the register table is in case_codes.h. */
#if defined(__x86_64__)
#include <emmintrin.h>
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
/* Not instrumented: the watch reads the frames above a signal handler,
 * whose redzones an ASan build poisons though they are readable stack. */
__attribute__((no_sanitize_address)) uint64_t arch_zero_words(const uint64_t *words, size_t n)
{
    const __m128i zero = _mm_setzero_si128();
    uint64_t bits = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* Each 32-bit half compared with 0; a word is 0 when both are. */
        __m128 a = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(words + i)), zero));
        __m128 b = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(words + i + 2)), zero));
        __m128 c = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(words + i + 4)), zero));
        __m128 d = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(words + i + 6)), zero));
        __m128i ab = _mm_castps_si128(_mm_and_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                                                 _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))));
        __m128i cd = _mm_castps_si128(_mm_and_ps(_mm_shuffle_ps(c, d, _MM_SHUFFLE(2, 0, 2, 0)),
                                                 _mm_shuffle_ps(c, d, _MM_SHUFFLE(3, 1, 3, 1))));
        __m128i words16 = _mm_packs_epi32(ab, cd);
        bits |= (uint64_t)(_mm_movemask_epi8(_mm_packs_epi16(words16, words16)) & 0xff) << i;
    }
    for (; i < n; i++) bits |= (uint64_t)(words[i] == 0) << i;
    return bits;
}
#endif
