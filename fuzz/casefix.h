/*
 * Keeping fuzzer mutations valid. libFuzzer and AFL++ mutate bytes blindly;
 * most results would fail the strict case_validate (a damaged magic, a cut
 * record, a code outside its table) and be rejected unrun. casefix_apply
 * puts magic and version back, cuts the length to whole record heads, and
 * rewrites the case as the total decoder reads it (out-of-range fields and
 * records dropped), so every mutation becomes a runnable, valid case. Used
 * by the libFuzzer custom mutator and the AFL++ post-processor
 * (fuzz/afl_post.c).
 */
#ifndef ASGF_FUZZ_CASEFIX_H
#define ASGF_FUZZ_CASEFIX_H

#include <stddef.h>
#include <stdint.h>

/* Fixes buf in place; cap is its capacity. Returns the new length (at
 * least CASE_HEADER_SIZE + CASE_GLOBAL_SIZE, at most CASE_MAX_SIZE), or len
 * unchanged when cap is too small to hold a case. Not handler-safe (stack
 * use), not needed there. */
size_t casefix_apply(uint8_t *buf, size_t len, size_t cap);

#endif
