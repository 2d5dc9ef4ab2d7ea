/* Execution outcome -> feature indexes (see feedback.h). */
#include <signal.h>
#include "arch.h"
#include "feedback.h"
#include "jit_code.h"
#include "regions.h"
#include "target.h"

/* Layout: base of each feature range and its size. */
enum {
    F_CODE = 0,                                        /* entry x mode x raw class */
    F_DEPTH = F_CODE + ENTRY__COUNT * MODE__COUNT * FEEDBACK_CLASSES, /* entry x log2(frames) */
    F_TYPES = F_DEPTH + ENTRY__COUNT * 16,             /* frame type bits 1..4 */
    F_WALKERR = F_TYPES + 16,                          /* -NextFrame error, clipped */
    F_FAULT = F_WALKERR + 16,                          /* signal x si_code class x pc in libjvm */
    F_FAULT_REGS = F_FAULT + 3 * 4 * 2,                /* fault x mutated pc/sp/fp */
    F_REGION_CODE = F_FAULT_REGS + 8,                  /* region x raw class */
    F_REGION_REGS = F_REGION_CODE + REGION__COUNT * FEEDBACK_CLASSES, /* region x pc/sp/fp mask */
    F_SHAPE = F_REGION_REGS + REGION__COUNT * 8,       /* options x flags x walked */
    F_MISC = F_SHAPE + 4 * 4 * 2,                      /* see enum misc */
    F_PC_TAIL = F_MISC + 8,                            /* pc's offset into a method's stubs x sp unreadable */
    F_END = F_PC_TAIL + 2 * 256
};

enum misc { M_REWIND_MISMATCH, M_GUARD_NESTED, M_GUARD_FULL, M_TIMEOUT, M_NO_SIGNAL, M_UNSUPPORTED };

_Static_assert(F_END <= FEEDBACK_SLOTS, "feature layout larger than FEEDBACK_SLOTS");

int feedback_class(int entry, const struct exec_outcome *o)
{
    if (o->guard_rc > 0) return FEEDBACK_CLASS_FAULT;
    if (o->fw == EXEC_UNBOUND || o->fw == EXEC_NO_QUEUE) return FEEDBACK_CLASS_OTHER; /* the VM was not asked */
    if (!case_entry_walks(entry)) /* a queue entry: an ASGST code, no walk */
        return FEEDBACK_CLASS_QUEUE + (o->ret <= 2 && o->ret >= -7 ? 2 - o->ret : 10);
    if (o->raw > 0) return 0;
    if (o->raw >= 1 - FEEDBACK_CLASS_OTHER) return 1 - o->raw;
    return FEEDBACK_CLASS_OTHER;
}

int feedback_class_code(int c)
{
    if (c >= FEEDBACK_CLASS_QUEUE) return 2 - (c - FEEDBACK_CLASS_QUEUE);
    return c == 0 ? 1 : c < FEEDBACK_CLASS_OTHER ? 1 - c : 0;
}

static int log2_bucket(int n)
{
    int b = 0;
    while (n > 0 && b < 15) n >>= 1, b++;
    return b; /* 0 for no frames, 1 for one, 2 for 2-3, ... */
}

static int sig_class(int sig) { return sig == SIGSEGV ? 0 : sig == SIGBUS ? 1 : 2; }

static int code_class(int code)
{
    switch (code) {
    case SEGV_MAPERR: return 0;
    case SEGV_ACCERR: return 1;
    case SI_KERNEL: return 2;
    default: return 3;
    }
}

/* The offset into a compiled method's stub section (exception and deopt
 * handlers) where the case puts the pc, or -1: mutate.c places region
 * nmethod_tail at the end of a known method's instructions + (value & 0xff)
 * when jit_code knows a method for value >> 8 (else it falls back to the
 * code cache, which is not counted here). The walker is not instrumented,
 * so this landing offset stands in for the stub instruction it decodes:
 * each is a feature, and the fuzzer keeps inputs that reach new ones
 * (HotSpot trusts a pc on a deopt handler and reads through sp). */
static int pc_tail_offset(const struct case_prog *p)
{
    int off = -1;
    uintptr_t start, size;
    for (int i = 0; i < p->nmut; i++) {
        const struct case_mutation *m = &p->mut[i];
        if (m->reg != ARCH_REG_PC) continue;
        off = m->kind == MUT_REGION && m->region == REGION_NMETHOD_TAIL &&
                      jit_code_pick((uint64_t)m->value >> 8, &start, &size)
                  ? (int)(m->value & 0xff) : -1;
    }
    return off;
}

/* Whether the case leaves sp where nothing can be read. */
static int sp_unreadable(const struct case_prog *p)
{
    int bad = 0; /* the last sp mutation decides; a delta keeps sp near the real one */
    for (int i = 0; i < p->nmut; i++) {
        const struct case_mutation *m = &p->mut[i];
        uint64_t v = (uint64_t)m->value;
        if (m->reg != ARCH_REG_SP) continue;
        bad = m->kind == MUT_REGION ? m->region == REGION_NULL_PAGE || m->region == REGION_GUARD_PAGE ||
                                          m->region == REGION_UNMAPPED || m->region == REGION_NONCANONICAL
              : m->kind == MUT_ABS  ? v < 4096 || v >= arch_noncanonical_base()
                                    : 0;
    }
    return bad;
}

/* Bit 0 pc, 1 sp, 2 fp: which of the frame registers the case mutates. */
static unsigned frame_regs(const struct case_prog *p)
{
    unsigned m = 0;
    for (int i = 0; i < p->nmut; i++)
        if (p->mut[i].reg <= ARCH_REG_FP) m |= 1u << p->mut[i].reg;
    return m;
}

int feedback_features(const struct case_prog *p, const struct exec_outcome *o, int target_rc, uint16_t *idx)
{
    int n = 0;
#define ADD(i) (idx[n++] = (uint16_t)(i))
    if (target_rc != TARGET_RAN) {
        ADD(F_MISC + (target_rc == TARGET_TIMEOUT ? M_TIMEOUT : M_NO_SIGNAL));
        return n;
    }
    int rc = feedback_class(p->entry, o);
    unsigned regs = frame_regs(p);
    ADD(F_CODE + (p->entry * MODE__COUNT + p->mode) * FEEDBACK_CLASSES + rc);
    ADD(F_DEPTH + p->entry * 16 + log2_bucket(o->frames));
    ADD(F_TYPES + ((o->types_seen >> 1) & 15));
    ADD(F_WALKERR + (o->walk_error < 0 && o->walk_error > -16 ? -o->walk_error : o->walk_error ? 15 : 0));
    if (o->guard_rc > 0) {
        ADD(F_FAULT + (sig_class(o->fault.sig) * 4 + code_class(o->fault.code)) * 2 +
            regions_in_libjvm(o->fault.pc));
        ADD(F_FAULT_REGS + regs);
    }
    for (int reg = 0; reg < REGION__COUNT; reg++) {
        if (!(o->region_hits & (1u << reg))) continue;
        ADD(F_REGION_CODE + reg * FEEDBACK_CLASSES + rc);
        ADD(F_REGION_REGS + reg * 8 + regs);
    }
    ADD(F_SHAPE + ((p->options & 3) * 4 + (p->flags & 3)) * 2 + (o->ret > 0));
    int tail = pc_tail_offset(p);
    if (tail >= 0) ADD(F_PC_TAIL + tail + 256 * sp_unreadable(p));
    if (o->rewind_mismatch) ADD(F_MISC + M_REWIND_MISMATCH);
    if (o->guard_rc == GUARD_NESTED) ADD(F_MISC + M_GUARD_NESTED);
    if (o->guard_rc == GUARD_FULL) ADD(F_MISC + M_GUARD_FULL);
    if (o->fw == EXEC_UNBOUND || o->fw == EXEC_NO_QUEUE) ADD(F_MISC + M_UNSUPPORTED);
#undef ADD
    return n;
}
