/*
 * Writes a walk makes into the walked thread's live state.
 *
 * A stack walk should only read. HotSpot's does write: crossing an entry
 * frame, it makes the JavaFrameAnchor inside that frame's JavaCallWrapper
 * walkable, storing a return pc into the anchor's pc word when that word
 * is 0. The wrapper's address is read off the stack and checked only for
 * lying in the thread's stack above the frame, so on a mutated context or
 * a forged stack copy the "anchor" can be any slot of the thread's live
 * frames above the copy, and the store goes there. The thread then runs on
 * with a corrupted frame and dies later, outside any guarded call, with
 * nothing to say which walk did it (docs/findings.md).
 *
 * The watch closes that gap for mutated cases: before the guarded call it
 * notes which words of the live frames above the interrupted sp hold 0,
 * and the live context's registers; after it, a noted word that is no
 * longer 0 was written, and so was any register. Only a store over 0 is
 * watched: the anchor store is one, and the other writers of a stopped
 * thread's frames (a collector updating oops, a deoptimization patching a
 * return pc) never turn 0 into something else.
 *
 * What a store left is put back when it cannot be the VM's own, correct
 * anchor store: a value that is not a code address (a real anchor's pc is
 * the return pc below its sp), or any register. A code address is left in
 * place, as HotSpot's own walkers would leave it, and only counted.
 * Everything here is handler-safe.
 */
#ifndef ASGF_STACK_WATCH_H
#define ASGF_STACK_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include "regions.h"

#define STACK_WATCH_MAX (64 * 1024) /* bytes above sp a watch can cover */
#define STACK_WATCH_REGS 40         /* at least arch_reg_count() */

struct stack_watch {
    uintptr_t lo;   /* the live sp; 0: not armed */
    size_t n;       /* words watched from lo */
    uint64_t zero[STACK_WATCH_MAX / 8 / 64]; /* bit i: word i was 0 */
    ucontext_t *uc;
    uint64_t regs[STACK_WATCH_REGS]; /* by logical number (arch.h) */
};

struct stack_watch_hit {
    int put_back;      /* words put back: written, and not a code address */
    int left;          /* words written with a code address, left in place */
    int regs;          /* registers of the live context written (all put back) */
    long first_at;     /* the first put-back word: its distance from sp in bytes */
    uint64_t first_value;
};

/* Not handler-safe: how many bytes above sp to watch, 0 for none (the
 * default), clipped to STACK_WATCH_MAX. */
void stack_watch_set_bytes(long bytes);
long stack_watch_bytes(void);

/* [handler-safe] Notes the zero words of [sp, sp + bytes) of the live
 * context's thread (clipped at its frames_hi) and its registers. Returns 0
 * and leaves w unarmed when watching is off or the context's sp is not in
 * the thread's stack. */
int stack_watch_arm(struct stack_watch *w, ucontext_t *live, const struct thread_info *self);

/* [handler-safe] Compares, puts back (see above), fills hit; returns
 * put_back + regs: what the caller records. Disarms w. */
int stack_watch_check(struct stack_watch *w, struct stack_watch_hit *hit);

/* [handler-safe] Writes the record of a hit (docs/crash-record.md, "Write
 * records") into the guard's record directory, keyed by what was written
 * (frame words or registers), counted and limited like a fault. */
struct guard_call;
void stack_watch_record(const struct stack_watch_hit *hit, const struct guard_call *call,
                        const struct thread_info *self);

#endif
