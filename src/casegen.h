/*
 * Case generators for harnesses that make their own inputs (the stress
 * agent's mutate=random/near/blind/forge, the JVM tests), and the
 * structure-aware edits of the fuzzers' mutators (casegen_mutate).
 * Handler-safe: a xorshift generator, no allocation.
 */
#ifndef ASGF_CASEGEN_H
#define ASGF_CASEGEN_H

#include <stdint.h>
#include "case.h"

enum casegen_strategy {
    CASEGEN_NONE,   /* unmutated run_with_iterator */
    CASEGEN_RANDOM, /* uniform random bytes, decoded */
    CASEGEN_NEAR,   /* pc/sp/fp nudged or pointed into named regions */
    CASEGEN_BLIND,  /* sp and fp each += a random 0..999999, nothing else: the
                       JEP 435 prototype's own test style, a baseline to beat */
    CASEGEN_FORGE,  /* forged stack words (stk records) where walkers read
                       them, now and then with a near register mutation */
};

uint64_t casegen_next(uint64_t *state);
/* Fills p only, for callers that adjust it before encoding once. */
void casegen_fill(enum casegen_strategy s, uint64_t *state, int nregs, struct case_prog *p);
/* Fills p and its canonical bytes; returns the byte length. */
size_t casegen_make(enum casegen_strategy s, uint64_t *state, int nregs, struct case_prog *p,
                    uint8_t bytes[CASE_MAX_SIZE]);

/* One structure-aware edit of p (casegen.c), for the fuzzers' mutators:
 * adds a forged word or frame, moves or re-values a forged word, drops one,
 * or adds a register mutation; an edit of a forged word on a program with
 * none forges one instead. Returns 0 when p has no room for the edit drawn
 * (p unchanged), else 1. Handler-safe, though no handler calls it. */
int casegen_mutate(uint64_t *state, struct case_prog *p);

/* Groups of queue and frame-mark operations (the agent's queue_ops=). */
enum {
    CASEGEN_QOPS_RESIZE = 1, CASEGEN_QOPS_HANDLERS = 2, CASEGEN_QOPS_ELEMENTS = 4, CASEGEN_QOPS_FOREIGN = 8,
    CASEGEN_QOPS_REREGISTER = 16, CASEGEN_QOPS_MARKS = 32, CASEGEN_QOPS_INFO = 64, CASEGEN_QOPS_ALL = 127
};
/* [handler-safe] Appends qop records of the given groups to p (up to
 * CASE_MAX_QOPS; casegen_qops.c): signal-time ones always, handshake ones
 * only if handshake_free (the thread has no earlier lot waiting, which
 * would make these be dropped). capacity: the thread's queue size. */
void casegen_queue_ops(uint64_t *state, unsigned groups, int capacity, int handshake_free, struct case_prog *p);
/* "all", "none" or group names joined by '+' -> *out; NULL, or an error
 * prefix naming what was expected. */
const char *casegen_qop_groups_parse(const char *v, unsigned *out);

#endif
