/*
 * Applies a case's mutation program to a copy of a live context. Every
 * function here is handler-safe: it runs inside the sampling signal handler.
 */
#ifndef ASGF_MUTATE_H
#define ASGF_MUTATE_H

#include <stdint.h>
#include <ucontext.h>
#include "case.h"
#include "regions.h"

/* Mutates uc in place. self: the registered thread whose context it is (may
 * be NULL). Returns a bit mask (1 << region_id) of the regions the mutated
 * registers ended up in, for fuzzer feedback. */
uint32_t mutate_apply(const struct case_prog *p, ucontext_t *uc, const struct thread_info *self);

/* Which region an address lies in, or -1. */
int mutate_classify(uintptr_t addr, const struct thread_info *self);

#endif
