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

/* Where a case's forged stack copy lies (src/stack_image.h), for region
 * image; NULL when the case has none. */
struct mutate_image {
    uintptr_t lo, hi;
};

/* Mutates uc in place. self: the registered thread whose context it is (may
 * be NULL); img: the case's forged stack image, NULL if none. Returns a bit
 * mask (1 << region_id) of the regions the mutated registers ended up in,
 * for fuzzer feedback. */
uint32_t mutate_apply(const struct case_prog *p, ucontext_t *uc, const struct thread_info *self,
                      const struct mutate_image *img);

/* Which region an address lies in, or -1. */
int mutate_classify(uintptr_t addr, const struct thread_info *self, const struct mutate_image *img);

/* The address a region record points at: off picks the place inside the
 * region; real is the value being replaced (the register, or for a forged
 * stack word the copy's sp). One case per region, no default: a region
 * added to case_codes.h without its rule here fails to compile. */
uint64_t mutate_region_value(int region, uint64_t off, uint64_t real, const struct thread_info *self,
                             const struct mutate_image *img);

#endif
