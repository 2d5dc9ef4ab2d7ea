/*
 * A stand-in walker that stores into the walked thread's frames the way
 * HotSpot's does when it crosses an entry frame: it takes a slot of the
 * stack above the context's sp for a JavaFrameAnchor's pc word and, the
 * word being 0, fills it (JavaFrameAnchor::make_walkable). Here the slot is
 * simply the first zero word from sp + 256 up, and the stored value is not
 * a code address, as when the anchor's address came from a forged stack.
 * It stores only when the context's pc is STANDIN_ENTRY_PC, so a case
 * chooses the store (tests/cases/live-store.txt). tests/live_store.t checks
 * that the live-frame watch (src/stack_watch.h) puts the word back and
 * writes a record. Preloaded, so api=asgst binds its two entry points.
 */
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include "asgst.h"

#define EXPORT __attribute__((visibility("default")))
#if defined(__x86_64__)
#define UC_PC(u) ((uintptr_t)(u)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(u) ((uintptr_t)(u)->uc_mcontext.gregs[REG_RSP])
#elif defined(__aarch64__)
#define UC_PC(u) ((uintptr_t)(u)->uc_mcontext.pc)
#define UC_SP(u) ((uintptr_t)(u)->uc_mcontext.sp)
#endif
#define STANDIN_ENTRY_PC 0xdead2000UL
#define STANDIN_STORED 0x5eed00000000a7UL

struct _ASGST_Iterator {
    int pos;
};

EXPORT int ASGST_RunWithIterator(void *ucontext, int32_t options, ASGST_IteratorHandler fun, void *arg)
{
    (void)options;
    ucontext_t *uc = ucontext;
    if (!uc) return ASGST_NO_FRAME;
    uintptr_t pc = UC_PC(uc), sp = UC_SP(uc);
    if (pc == STANDIN_ENTRY_PC && sp && !(sp & 7)) {
        volatile uint64_t *w = (volatile uint64_t *)(sp + 256);
        for (int i = 0; i < 256; i++)
            if (!w[i]) {
                w[i] = STANDIN_STORED;
                break;
            }
    }
    struct _ASGST_Iterator it = {0};
    if (fun) fun(&it, arg);
    return ASGST_JAVA_TRACE;
}

EXPORT int ASGST_NextFrame(ASGST_Iterator *it, ASGST_Frame *f)
{
    if (!it || it->pos++) return 0;
    memset(f, 0, sizeof *f);
    f->type = ASGST_FRAME_NON_JAVA, f->comp_level = -1, f->bci = -1;
    return 1;
}
