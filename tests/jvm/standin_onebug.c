/*
 * A stand-in "VM build" with one walker bug, for the triage and pre-merge
 * tests: it exports the three ASGST entry points that walk a stack
 * (RunWithIterator, RunWithIteratorFromFrame, Enqueue) plus NextFrame, and
 * each of them reaches the same faulty step, standin_read_frame, which
 * reads through a bad frame pointer. One bug, three ways in: triage must
 * make one bucket of it, "reached via" the three entries.
 * Built with -DBUG_IN_ENTRY the fault is in RunWithIterator's own body (no
 * VM frame above the entry): the bucket is titled with the entry.
 * Loaded with LD_PRELOAD (its symbols are global, as a libjvm's would be)
 * or dlopen'ed by tests/c/standin_driver.c.
 */
#include <stdint.h>
#include <string.h>

#define BAD_FP ((const volatile uintptr_t *)0x18)

/* The bug: a frame's saved pc read through a frame pointer nobody checked. */
__attribute__((noinline)) uintptr_t standin_read_frame(const volatile uintptr_t *fp)
{
#ifdef BUG_IN_MEMCPY
    uintptr_t link[2];
    memcpy(link, (const void *)(uintptr_t)fp, sizeof link);
    return link[1];
#else
    return fp[1];
#endif
}

__attribute__((noinline)) static uintptr_t walk(const volatile uintptr_t *fp)
{
    uintptr_t pc = standin_read_frame(fp);
    __asm__ volatile("" ::: "memory"); /* keep the call a call, not a tail jump */
    return pc;
}

int ASGST_RunWithIterator(void *uc, int32_t options, void (*fun)(void *, void *), void *arg)
{
    (void)uc, (void)options, (void)fun, (void)arg;
#ifdef BUG_IN_ENTRY
    return (int)BAD_FP[1];
#else
    int r = (int)walk(BAD_FP);
    __asm__ volatile("" ::: "memory");
    return r;
#endif
}

int ASGST_RunWithIteratorFromFrame(void *sp, void *fp, void *pc, int32_t options, void (*fun)(void *, void *),
                                   void *arg)
{
    (void)sp, (void)fp, (void)pc, (void)options, (void)fun, (void)arg;
    int r = (int)walk(BAD_FP);
    __asm__ volatile("" ::: "memory");
    return r;
}

int ASGST_Enqueue(void *queue, void *uc, void *arg)
{
    (void)queue, (void)uc, (void)arg;
    int r = (int)walk(BAD_FP);
    __asm__ volatile("" ::: "memory");
    return r;
}

int ASGST_NextFrame(void *iter, void *frame)
{
    (void)iter, (void)frame;
    return 0;
}
