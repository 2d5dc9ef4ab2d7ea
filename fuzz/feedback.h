/*
 * Outcome-guided feedback: what one execution did, as a set of feature
 * indexes in [0, FEEDBACK_SLOTS). The fuzzer entry points turn each index
 * into coverage: libFuzzer bumps a byte of its extra-counters section,
 * AFL++ calls one of FEEDBACK_SLOTS distinct instrumented functions.
 *
 * The stack walker under test (libjvm) is not instrumented, so its code
 * coverage is invisible; what it answered is not. Features, each a fixed
 * range of indexes (feedback.c lists the layout):
 *   - entry x mode x raw code class (frames / each AGCT or ASGST code)
 *   - entry x log2 bucket of the frames walked
 *   - frame types seen, last NextFrame error
 *   - caught fault: signal x si_code class x faulting pc in libjvm or not
 *   - each region a mutated register landed in, x raw code class and x
 *     which of pc/sp/fp the case mutates
 *   - options x flags x walked-or-not, rewind mismatch, target timeouts
 *   - where in a compiled method's stubs the case puts the pc (region
 *     nmethod_tail): an input-side stand-in for the walker's uninstrumented
 *     code, since its answer there is the same "unknown Java state" for
 *     every offset but one faults
 */
#ifndef ASGF_FUZZ_FEEDBACK_H
#define ASGF_FUZZ_FEEDBACK_H

#include <stdint.h>
#include "case.h"
#include "exec.h"

#define FEEDBACK_SLOTS 2000
/* Counters for walker blocks first reached (src/walker_cov.h). libFuzzer
 * clears and scans every extra counter on every input: 16 KB of them cost
 * 40 % of the execs/s of a job alone here (docs/figures.md), so the blocks
 * share 1 KB. libFuzzer tells eight ranges of a counter's value apart (1,
 * 2, 3, 4-7, 8-15, 16-31, 32-127, 128+), so a block is a slot and one of
 * eight values: 8,192 distinct features, more than the 10-11k blocks armed
 * on 17 and 25 reach. */
#define WALKER_SLOTS 1024
#define FEEDBACK_MAX_FEATURES 64

/* Outcome class of a run:
 *   0                       a trace (raw > 0) from a walking entry
 *   1 .. 21                 raw code 0 .. -20 from a walking entry (1 - raw)
 *   FEEDBACK_CLASS_OTHER    a walking entry's raw code below -20
 *   FEEDBACK_CLASS_FAULT    the guard caught a fault (raw is meaningless then)
 *   FEEDBACK_CLASS_QUEUE+k  a queue entry (Enqueue, GetEnqueuableElement)
 *                           answered ASGST code 2 - k (k = 0..9: kinds 2, 1,
 *                           then 0 .. -7), k = 10 for anything else */
#define FEEDBACK_CLASS_OTHER 22
#define FEEDBACK_CLASS_FAULT 23
#define FEEDBACK_CLASS_QUEUE 24
#define FEEDBACK_CLASSES (FEEDBACK_CLASS_QUEUE + 11)
int feedback_class(int entry, const struct exec_outcome *o);
/* The code class c stands for, for naming it (0 for OTHER and FAULT). */
int feedback_class_code(int c);

/* Writes the features of one run into idx (at most FEEDBACK_MAX_FEATURES,
 * no duplicates); returns how many. p and o: the program and its outcome;
 * target_rc: whether the worker ran it (TARGET_RAN, ..., target.h). */
int feedback_features(const struct case_prog *p, const struct exec_outcome *o, int target_rc, uint16_t *idx);

#endif
