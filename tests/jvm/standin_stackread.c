/*
 * A stand-in walker that reads stack memory the way HotSpot's does: it
 * follows the frame-pointer chain from the context and takes each saved
 * return address on trust. A return address in its "code cache"
 * (STANDIN_CODE_LO..HI) is looked up by reading the code there, as a real
 * walker reads an nmethod header; nothing is mapped there, so a forged
 * return address in that range faults at exactly the forged value. That is
 * what tests/forged_stack.t checks: a fault address equal to the word a stk
 * record forged proves the walk read the forged copy. Only the two
 * required entry points exist (RunWithIterator, NextFrame); preloaded, so
 * api=asgst binds them.
 */
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include "asgst.h"

#define EXPORT __attribute__((visibility("default")))
#define STANDIN_CODE_LO 0xdead0000UL
#define STANDIN_CODE_HI 0xdead1000UL
#define MAX_FRAMES 16

struct _ASGST_Iterator {
    int n, pos;
    void *pc[MAX_FRAMES], *sp[MAX_FRAMES], *fp[MAX_FRAMES];
};

static int plausible_fp(uintptr_t fp, uintptr_t sp)
{
    return fp && !(fp & 7) && fp >= sp && fp - sp < (1u << 20);
}

EXPORT int ASGST_RunWithIterator(void *ucontext, int32_t options, ASGST_IteratorHandler fun, void *arg)
{
    (void)options;
    ucontext_t *uc = ucontext;
    if (!uc) return ASGST_NO_FRAME;
    struct _ASGST_Iterator it;
    memset(&it, 0, sizeof it);
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP], sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
              fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
    while (it.n < MAX_FRAMES) {
        it.pc[it.n] = (void *)pc, it.sp[it.n] = (void *)sp, it.fp[it.n] = (void *)fp, it.n++;
        if (!plausible_fp(fp, sp)) break;
        uintptr_t ret = ((const uintptr_t *)fp)[1], saved = ((const uintptr_t *)fp)[0];
        if (ret >= STANDIN_CODE_LO && ret < STANDIN_CODE_HI) (void)*(volatile const uint8_t *)ret; /* the blob's header */
        pc = ret, sp = fp + 16, fp = saved;
    }
    if (fun) fun(&it, arg);
    return ASGST_JAVA_TRACE;
}

EXPORT int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *f)
{
    if (!it || it->pos >= it->n) return 0;
    memset(f, 0, sizeof *f);
    f->type = ASGST_FRAME_NON_JAVA, f->comp_level = -1, f->bci = -1;
    f->pc = it->pc[it->pos], f->sp = it->sp[it->pos], f->fp = it->fp[it->pos];
    it->pos++;
    return 1;
}
