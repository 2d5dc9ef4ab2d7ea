/* Case mutation program applied to a context copy (see mutate.h). */
#include "arch.h"
#include "guard.h"
#include "jit_code.h"
#include "mutate.h"
#include "vm_structs.h"

#define GUARD_SPAN (64u << 10) /* HotSpot's reserved/yellow/red zones fit well inside this */
#define ALIGN8(x) ((x) & ~(uint64_t)7)

static uint64_t within(uint64_t lo, uint64_t hi, uint64_t off) { return hi > lo ? lo + off % (hi - lo) : lo; }

/* One case per region and no default: a region added to case_codes.h
 * without its address rule here fails to compile (-Wswitch). */
uint64_t mutate_region_value(int region_code, uint64_t off, uint64_t real, const struct thread_info *self,
                             const struct mutate_image *img)
{
    uintptr_t lo, hi, start, size;
    switch ((enum region_id)region_code) {
    case REGION_OWN_STACK: {
        uint64_t top = self && self->stack_hi > real ? self->stack_hi : real + GUARD_SPAN;
        return ALIGN8(within(real, top, off));
    }
    case REGION_OTHER_STACK: {
        const struct thread_info *t = threads_other(self ? self->tid : 0, (unsigned)(off >> 48));
        if (t && t->stack_hi > t->stack_lo) return ALIGN8(within(t->stack_lo, t->stack_hi, off & 0xffffffffffffULL));
        return mutate_region_value(REGION_OWN_STACK, off, real, self, img);
    }
    case REGION_CODE_CACHE:
    case REGION_LIBJVM_TEXT:
        return regions_bounds(region_code, &lo, &hi) ? within(lo, hi, off) : off;
    case REGION_JAVA_HEAP:
    case REGION_UNMAPPED:
        return regions_bounds(region_code, &lo, &hi) ? ALIGN8(within(lo, hi, off)) : off;
    case REGION_GUARD_PAGE: {
        /* With libjsig HotSpot sees every fault first, and one in the
         * faulting thread's own guard zones it takes for a Java stack
         * overflow: it moves the walker's pc to its throw stub and leaves
         * the thread's state broken, so a later deoptimization of that
         * thread kills the VM. Another thread's zones fault the same way
         * without that. */
        const struct thread_info *z = self;
        int walker = guard_mode() == GUARD_CHAINED ? threads_gettid() : 0;
        if (walker && (!self || self->tid == walker)) {
            z = threads_other(walker, (unsigned)(off >> 48));
            if (!z || !z->stack_lo) return mutate_region_value(REGION_UNMAPPED, off, real, self, img);
        }
        if (z && z->stack_lo) return ALIGN8(within(z->stack_lo, z->stack_lo + GUARD_SPAN, off));
        return ALIGN8(within(real - (1u << 20), real - (1u << 20) + GUARD_SPAN, off));
    }
    case REGION_NULL_PAGE: return off % 4096;
    case REGION_MISALIGNED: return real + 1 + off % 7;
    case REGION_NONCANONICAL: return arch_noncanonical_base() + off % (1ULL << 40);
    case REGION_DEOPT_HANDLER:
        /* no handler known yet: its neighbourhood */
        return jit_code_pick_deopt(off, &start) ? start : mutate_region_value(REGION_NMETHOD_TAIL, off, real, self, img);
    case REGION_NMETHOD_TAIL:
        if (jit_code_pick(off >> 8, &start, &size)) return start + size + (off & 0xff);
        return regions_bounds(REGION_CODE_CACHE, &lo, &hi) ? within(lo, hi, off) : off;
    case REGION_IMAGE:
        if (img && img->hi > img->lo) return ALIGN8(within(img->lo, img->hi, off));
        return mutate_region_value(REGION_OWN_STACK, off, real, self, img);
    case REGION_NMETHOD_ENTRY:
        /* the first instructions: stack bang, frame push, not yet a frame */
        if (jit_code_pick(off >> 8, &start, &size)) return start + (off & 0x3f) % (size ? size : 1);
        return regions_bounds(REGION_CODE_CACHE, &lo, &hi) ? within(lo, hi, off) : off;
    case REGION_CALL_STUB_RET: {
        uintptr_t pc = vm_structs_call_stub_return();
        return pc ? pc : mutate_region_value(REGION_CODE_BLOB, off, real, self, img);
    }
    case REGION_CONT_BARRIER: {
        /* no continuations (11, 17): a stub like it */
        uintptr_t pc = jit_code_cont_barrier();
        return pc ? pc : mutate_region_value(REGION_CODE_BLOB, off, real, self, img);
    }
    case REGION_CODE_BLOB:
        if (jit_code_pick_blob(off >> 16, &start, &size)) return start + (off & 0xffff) % (size ? size : 1);
        return regions_bounds(REGION_CODE_CACHE, &lo, &hi) ? within(lo, hi, off) : off;
    }
    return off;
}

int mutate_classify(uintptr_t a, const struct thread_info *self, const struct mutate_image *img)
{
    uintptr_t lo, hi;
    if (a < 4096) return REGION_NULL_PAGE;
    if (img && a >= img->lo && a < img->hi) return REGION_IMAGE;
    if (a >= arch_noncanonical_base()) return REGION_NONCANONICAL;
    if (self && a >= self->stack_lo && a < self->stack_lo + GUARD_SPAN) return REGION_GUARD_PAGE;
    if (self && a >= self->stack_lo && a < self->stack_hi) return (a & 7) ? REGION_MISALIGNED : REGION_OWN_STACK;
    static const int kinds[] = {REGION_CODE_CACHE, REGION_LIBJVM_TEXT, REGION_JAVA_HEAP, REGION_UNMAPPED};
    for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (regions_bounds(kinds[i], &lo, &hi) && a >= lo && a < hi) return kinds[i];
    return -1;
}

uint32_t mutate_apply(const struct case_prog *p, ucontext_t *uc, const struct thread_info *self,
                      const struct mutate_image *img)
{
    uint32_t hits = 0;
    for (int i = 0; i < p->nmut; i++) {
        const struct case_mutation *m = &p->mut[i];
        uint64_t *slot = arch_reg_slot(uc, m->reg);
        if (!slot) continue;
        uint64_t real = *slot, v = (uint64_t)m->value;
        switch ((enum mut_kind)m->kind) {
        case MUT_ABS: *slot = v; break;
        case MUT_DELTA: *slot = real + v; break;
        case MUT_REGION: *slot = mutate_region_value(m->region, v, real, self, img); break;
        }
        int r = mutate_classify((uintptr_t)*slot, self, img);
        if (r >= 0) hits |= 1u << r;
    }
    return hits;
}
