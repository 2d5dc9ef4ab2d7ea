/*
 * A stand-in ASGST provider for testing the `asgst` binding on a stock JDK:
 * exports RunWithIterator, NextFrame and a few others under the prefix
 * given at build time (ASGST_ or JFRLL_) and counts the calls that reach it.
 * Loaded with LD_PRELOAD so its symbols are global, as libjvm's would be.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef PREFIX
#define PREFIX ASGST_
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(x) CAT(PREFIX, x)

long fake_asgst_calls;

struct fake_iter {
    int left;
};

typedef struct {
    uint8_t type;
    int comp_level, bci;
    void *method, *pc, *sp, *fp;
} frame_t;

int NAME(RunWithIterator)(void *uc, int32_t options, void (*fun)(void *, void *), void *arg)
{
    (void)uc, (void)options;
    __atomic_add_fetch(&fake_asgst_calls, 1, __ATOMIC_RELAXED);
    struct fake_iter it = {1};
    fun(&it, arg); /* no NULL check in the prototype either */
    return 1;
}

int NAME(NextFrame)(void *iter, frame_t *f)
{
    struct fake_iter *it = iter;
    if (it->left-- <= 0) return 0;
    memset(f, 0, sizeof *f);
    f->type = 1, f->comp_level = -1, f->bci = -1;
    return 1;
}

void NAME(RewindIterator)(void *iter) { ((struct fake_iter *)iter)->left = 1; }
int NAME(State)(void *iter) { return ((struct fake_iter *)iter)->left > 0; }
int NAME(Capabilities)(void) { return 0; }

#ifdef OLDER_SHAPE
/* A name only an older snapshot exports (its queue API had other shapes):
 * the binding must refuse the build, not call it through the new header. */
int NAME(QueueSize)(void *queue) { return queue != NULL; }
#endif
