/* Forged copies of the stack top (see stack_image.h). */
#include <string.h>
#include "arch.h"
#include "mutate.h"
#include "stack_image.h"

/* Word index of an anchor in the copy, or -1 when the anchor is not in it:
 * fp outside the copy, a saved-fp link that leaves it or does not go up, or
 * fewer code addresses in the copy than the ret anchor counts. */
static long anchor_index(const struct stack_image *img, int anchor, uintptr_t fp_img)
{
    uintptr_t lo = (uintptr_t)img->words, hi = lo + img->len;
    if (anchor == STK_SP) return 0;
    if (anchor >= STK_RET1) {
        int want = anchor - STK_RET1 + 1;
        for (size_t i = 0; i < img->len / 8; i++)
            if (regions_in_vm_code((uintptr_t)img->words[i]) && --want == 0) return (long)i;
        return -1;
    }
    uintptr_t at = fp_img;
    for (int k = STK_FP;; k++) {
        if (at < lo || at >= hi || (at & 7)) return -1;
        if (k == anchor) return (long)((at - lo) / 8);
        uintptr_t next = (uintptr_t)img->words[(at - lo) / 8];
        if (next <= at) return -1;
        at = next;
    }
}

void stack_image_init(struct stack_image *img)
{
    img->real_sp = 0, img->kept_self = NULL;
    img->len = 0, img->written = img->skipped = 0;
}

/* The kept copy as it was taken: the last case's forged words put back. */
static void unforge(struct stack_image *img)
{
    while (img->written > 0) {
        const struct stack_image_undo *u = &img->undo[--img->written];
        img->words[u->i] = u->old;
    }
}

/* Not instrumented: the copy reads the frames above it, whose redzones an
 * ASan build poisons though they are the thread's own readable stack. */
__attribute__((no_sanitize_address)) enum stack_image_result
stack_image_build(struct stack_image *img, const struct case_prog *p, ucontext_t *uc, const struct thread_info *self)
{
    unforge(img);
    img->len = 0, img->written = img->skipped = 0;
    if (!p->nstk) return STACK_IMAGE_NONE;
    uint64_t *spp = arch_reg_slot(uc, ARCH_REG_SP), *fpp = arch_reg_slot(uc, ARCH_REG_FP);
    uintptr_t sp = (uintptr_t)*spp, fp = (uintptr_t)*fpp, here = (uintptr_t)img->words;
    /* The copy must be in the walked thread's own stack, below its sp: only
     * then is it inside the bounds the walker checks, and only then is the
     * walked stack the one the copy came from. */
    if (!self || !self->stack_hi || sp & 7 || sp < self->stack_lo || sp >= self->stack_hi ||
        here < self->stack_lo || here + CASE_IMAGE_SIZE > sp) {
        for (int i = 0; i < p->nstk; i++) img->skipped += p->stk[i].nwords;
        return STACK_IMAGE_FOREIGN;
    }
    size_t len = self->stack_hi - sp < CASE_IMAGE_SIZE ? self->stack_hi - sp : CASE_IMAGE_SIZE;
    size_t n = len / 8;
    uintptr_t delta = sp - here; /* the copy is below sp: subtract */
    if (img->real_sp != sp || img->kept_self != self) {
        /* Copy and relocate in one pass, without a branch per word: a
         * compare-and-jump over 1,024 words of unpredictable stack
         * contents was a sixth of the handler's time. */
        const uint64_t *live = (const uint64_t *)sp;
        for (size_t i = 0; i < n; i++) {
            uint64_t w = live[i];
            img->words[i] = w - (w - sp < len ? delta : 0);
        }
        img->real_sp = sp, img->kept_self = self;
    }
    img->len = len;
    uintptr_t fp_img = fp >= sp && fp < sp + len ? fp - delta : 0;

    const struct mutate_image bounds = {here, here + len};
    long at[CASE_MAX_STK];
    for (int r = 0; r < p->nstk; r++) at[r] = anchor_index(img, p->stk[r].anchor, fp_img);
    for (int r = 0; r < p->nstk; r++) {
        const struct case_stack_patch *s = &p->stk[r];
        for (int w = 0; w < s->nwords; w++) {
            long i = at[r] < 0 ? -1 : at[r] + s->offset / 8 + w;
            if (i < 0 || (size_t)i >= n) {
                img->skipped++;
                continue;
            }
            uint64_t old = img->words[i], v = (uint64_t)s->words[w];
            img->undo[img->written] = (struct stack_image_undo){(uint32_t)i, old};
            switch ((enum mut_kind)s->kind) {
            case MUT_ABS: img->words[i] = v; break;
            case MUT_DELTA: img->words[i] = old + v; break;
            case MUT_REGION:
                img->words[i] = mutate_region_value(s->region, v, s->region == REGION_MISALIGNED ? old : here, self, &bounds);
                break;
            }
            img->written++;
        }
    }
    *spp = here;
    if (fp_img) *fpp = fp_img;
    return STACK_IMAGE_BUILT;
}
