/*
 * Keeping fuzzer mutations valid. libFuzzer and AFL++ mutate bytes blindly;
 * most results would fail the strict case_validate (a damaged magic, a cut
 * record, a code outside its table) and be rejected unrun. casefix_apply
 * puts magic and version back, cuts the length to whole record heads, and
 * rewrites the case as the total decoder reads it (out-of-range fields and
 * records dropped), so every mutation becomes a runnable, valid case. Used
 * by the libFuzzer custom mutator and the AFL++ mutator library
 * (fuzz/afl_post.c: its custom stage and its post-processor).
 *
 * casefix_mutate is the other half of those mutators: edits that know the
 * format (src/casegen.h, casegen_mutate), so a forged frame an earlier
 * input got the walker to believe can be extended by one more forged word.
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

/* How many mutations casefix_mutate should make: $ASGF_STRUCT_MUTATE
 * (0..100), else CASEFIX_STRUCT_DEFAULT. libFuzzer reads it as a percentage
 * of its mutations; AFL++ as the runs of its custom stage per queue entry,
 * beside havoc's few hundred. Not handler-safe (getenv, stderr). The harness
 * refuses to start on an invalid value (casefix_struct_share_parse); the
 * AFL++ mutator library, which runs in afl-fuzz, reports it and uses the
 * default. */
#define CASEFIX_STRUCT_DEFAULT 50
int casefix_struct_share(void);
/* v as a share: 0..100, or -1 if it is not one. */
int casefix_struct_share_parse(const char *v);

/* One to three structure-aware edits of the case in buf, drawn from seed.
 * buf is read by the total decoder, so it needs no casefix_apply first.
 * Not handler-safe (stack use), not needed there.
 * Returns the new length, or 0 when no edit fits within cap (buf is then
 * unchanged and the caller mutates bytes instead). */
size_t casefix_mutate(uint8_t *buf, size_t len, size_t cap, uint64_t seed);

#endif
