/*
 * Stores a walk makes into the walked thread's live state.
 *
 * A stack walk should only read. HotSpot's does store: crossing an entry
 * frame, it makes the JavaFrameAnchor inside that frame's JavaCallWrapper
 * walkable, filling the anchor's pc word when that word is 0. The wrapper's
 * address is read off the stack and checked only for lying in the thread's
 * stack above the frame, so on a mutated context or a forged stack copy
 * the "anchor" can be any word above the forged frame: the thread's live
 * frames, the signal frame the kernel will restore its registers from, or
 * the handler's own frames in between (those are not watched).
 * The thread then runs on corrupted and dies later, outside any guarded
 * call, with nothing to say which walk did it (docs/findings.md).
 *
 * The watch covers a mutated case's walk of a thread by itself (signal
 * mode, a held batch in its own handler) stopped in Java code. Before the
 * guarded call it notes which words are 0 from the start of the live
 * ucontext up to `bytes` above sp (on x86_64 that span is the ucontext,
 * siginfo, FP state and red zone; on aarch64 the ucontext with its
 * extension records and the frame record), and the context's registers;
 * after it, a noted word that is no longer 0, and any changed register,
 * was stored by the walk (a register that was 0 lies in the ucontext, so
 * it counts as a context word). Only a store over 0 is watched: the anchor
 * store is one.
 *
 * Why only a thread in Java code, walking itself: such a thread is not at
 * a safepoint or handshake, holds no monitor-wait node or VM operation on
 * its stack, and stays in this handler for the whole call, so nothing else
 * writes its frames or context meanwhile and every store found is the
 * walk's. (Close to it, not exactly: a pc in a native wrapper's last
 * instructions before the call is in the code cache with the thread already
 * in native, where a safepoint operation could write its frames; a window
 * of a few instructions.) "In Java code" means a pc in the code cache's own
 * span (regions.c); a span that once took in libjvm let the watch arm for
 * threads blocked in the VM, and it undid the VM thread's write of a GC
 * operation's result into one of them (docs/crash-record.md).
 * A thread stopped in native or VM code, or walked from another thread
 * (mode=thread, whose hold can time out under the walk), is not watched.
 *
 * What is put back: every store into the signal context (this handler's
 * own frame, which only the walk can have written), changed registers,
 * and of the stores into the frames those in the shape of the anchor fill
 * (the word before the store holds an address S, and the value stored is
 * the word at S - 8). Putting a fill back is safe: an anchor's pc of 0
 * means "not yet walkable", which HotSpot fills again. A frame store of
 * another shape is counted, recorded and left as it is, whoever made it.
 * Nothing is put back with crash protection off (a run for the VM's own
 * hs_err, crash-triage/repro --protect 0), so the VM fails as it would
 * without us. A record is written for a store that cannot be the VM's
 * correct one into a real anchor: a frame word that is not a code address
 * (a real anchor's pc is a return pc), any word of the signal context, any
 * register.
 * Everything here is handler-safe.
 */
#ifndef ASGF_STACK_WATCH_H
#define ASGF_STACK_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include "regions.h"

/* Agent and harnesses alike: 32 KiB holds the stores seen (up to sp+9928). */
#define STACK_WATCH_DEFAULT 32768
#define STACK_WATCH_MAX 65536      /* the most bytes above sp a watch covers */
#define STACK_WATCH_CTX_MAX 16384  /* the most bytes of signal context below sp it covers */
#define STACK_WATCH_REGS 40        /* at least arch_reg_count() */

struct stack_watch {
    uintptr_t lo;   /* first word watched; 0: not armed */
    /* Set by a check: zero and regs are the live context as the check
     * left it, from kept_lo, for the next arm on the same context. */
    uintptr_t kept_lo;
    uintptr_t sp;   /* the live sp: words below it are the signal context */
    size_t n;       /* words watched from lo */
    uint64_t zero[(STACK_WATCH_MAX + STACK_WATCH_CTX_MAX) / 8 / 64]; /* bit i: word i was 0 */
    ucontext_t *uc;
    uint64_t regs[STACK_WATCH_REGS]; /* by logical number (arch.h) */
};

struct stack_watch_hit {
    int frame;         /* frame words stored into, not code addresses */
    int frame_code;    /* frame words stored into with a code address */
    int context;       /* words of the signal context stored into */
    int regs;          /* registers of the live context changed (from a non-zero value) */
    int left;          /* frame words among them not in the anchor fill's shape: left as they are */
    int put_back;      /* 1: protection on: context stores, registers and frame fills were put back */
    int first_reg;     /* the first store recorded was into this register + 1; 0: into memory */
    long first_at;     /* the first store recorded into memory: its distance from sp in bytes */
    uint64_t first_value;
};

/* [handler-safe] The stores of a hit that call for a record: all but code
 * addresses into frame words (see above). */
static inline int stack_watch_recorded(const struct stack_watch_hit *hit)
{
    return hit->frame + hit->context + hit->regs;
}

/* Not handler-safe: how many bytes above sp to watch (0: none, until this
 * is called; clipped to STACK_WATCH_MAX) and whether to put stores back. */
void stack_watch_set(long bytes, int put_back);
long stack_watch_bytes(void);
int stack_watch_puts_back(void);

/* [handler-safe] Before w's first arm; again when something other than a
 * watched walk may have written the watched words (the next arm then reads
 * them afresh instead of taking the last check's note). */
void stack_watch_init(struct stack_watch *w);

/* [handler-safe] Arms w on the live context of self, the calling thread
 * (see above); 0 and w unarmed when it does not qualify. Armed again on
 * the context its last check left (a held batch's next case), w takes
 * that check's note instead of reading the words again: the thread has
 * stayed in its handler, so only the walk, which the check saw, wrote
 * them. */
int stack_watch_arm(struct stack_watch *w, ucontext_t *live, const struct thread_info *self);

/* [handler-safe] Compares, puts back, fills hit; returns how many stores
 * call for a record (frame + context + regs). Disarms w, and keeps what
 * it now holds as the note for the next arm on the same context. */
int stack_watch_check(struct stack_watch *w, struct stack_watch_hit *hit);

/* [handler-safe] Writes the record of a hit (docs/crash-record.md, "Write
 * records") into the guard's record directory, keyed by the place stored
 * into (frame words, or else the signal context), counted and limited like
 * a fault; one line on stderr when there is no record directory. */
struct guard_call;
void stack_watch_record(const struct stack_watch_hit *hit, const struct guard_call *call,
                        const struct thread_info *self);

#endif
