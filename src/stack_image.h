/*
 * Forged stack memory. HotSpot's walkers check the top frame's registers
 * and then trust what they read from the stack: return addresses, saved
 * frame pointers, interpreter frame slots. A case with stk records (see
 * case.h) walks a copy of the thread's stack top instead of the stack
 * itself: the copy lies in the caller's frame, so it is inside the walked
 * thread's stack bounds (which the walkers check), the thread's live frames
 * are never written, and the forged words are what the walker reads.
 *
 * Building an image, in order:
 *   1. copy [sp, sp + len) of the live stack (len up to CASE_IMAGE_SIZE,
 *      clipped at the stack's top);
 *   2. relocate: every copied word that points into [sp, sp + len) is moved
 *      by the same distance, so saved-fp chains and interpreter slots lead
 *      through the copy rather than back into the live stack;
 *   3. resolve every record's anchor on that untouched copy: sp, fp, a
 *      saved fp up the chain while it stays inside the copy, or the k-th
 *      word holding a code address (a return-address slot, see case.h);
 *   4. write the records' words in file order (a word outside the copy, or
 *      an anchor the chain never reaches, is skipped and counted);
 *   5. point the context's sp (and fp, when it was inside the copy) at it.
 * Steps 1 and 2 are most of a stk case's cost on the worker, and on a held
 * worker every case of a batch copies the same frozen frames. So an image
 * that outlives its case keeps its relocated copy: the next build on the
 * same sp and thread first puts back the words the last one forged, from
 * an undo list, and skips the copy. This relies on the walkers only
 * reading the stack they walk, and on the live frames above a held
 * context's sp not changing while it is held. A thread held while outside
 * Java code is the exception: a GC may update oop slots in its frames (the
 * walkers do not read them) and a deoptimization may patch a return
 * address, so a later case of that batch walks the frames as they were at
 * its first case: still a stack the thread had, bounded by the hold.
 * Everything here is handler-safe.
 */
#ifndef ASGF_STACK_IMAGE_H
#define ASGF_STACK_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include "case.h"
#include "regions.h"

struct stack_image {
    uint64_t words[CASE_IMAGE_SIZE / 8];
    uintptr_t real_sp; /* the live sp the copy starts at; 0: no copy kept */
    size_t len;        /* bytes copied; 0: no image was built */
    int written;       /* forged words written: the first `written` undo entries */
    int skipped;       /* forged words outside the copy or at an anchor not reached */
    /* The copy kept for the next case (see above): whose stack it is, and
     * each forged word's index and the copy's own value, in write order. */
    const struct thread_info *kept_self;
    struct stack_image_undo {
        uint32_t i;
        uint64_t old;
    } undo[CASE_MAX_STK * CASE_STK_MAX_WORDS];
};

enum stack_image_result {
    STACK_IMAGE_NONE,    /* the case has no stk record */
    STACK_IMAGE_BUILT,   /* uc now walks the copy */
    STACK_IMAGE_FOREIGN, /* not built: the context is not the calling thread's
                            own (thread mode), or its sp is not on its stack */
};

/* [handler-safe] Makes img empty: its first build copies the live stack.
 * Once for each context an image serves (a held signal, or one case). */
void stack_image_init(struct stack_image *img);

/* [handler-safe] Builds img for p from uc (see above) and points uc at it,
 * reusing the copy img kept when uc's sp and self are the ones it was
 * taken at. self: the registered thread whose context uc is; NULL: not
 * built. */
enum stack_image_result stack_image_build(struct stack_image *img, const struct case_prog *p, ucontext_t *uc,
                                          const struct thread_info *self);

#endif
