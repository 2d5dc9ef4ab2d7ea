/*
 * AFL++ custom-mutator library (build/fuzz/libasgf-afl-post.so, loaded by
 * fuzz/run-afl through AFL_CUSTOM_MUTATOR_LIBRARY). AFL++'s own mutations
 * stay on; a custom stage before them makes $ASGF_STRUCT_MUTATE (0..100)
 * runs of structure-aware edits (casefix_mutate) of each queue entry it
 * picks, beside havoc's few hundred; and every result goes through
 * casefix_apply before it reaches the target, so it passes the harness's
 * strict validation instead of being rejected unrun.
 */
#include <stdlib.h>
#include <string.h>
#include "case.h"
#include "casefix.h"
#include "casegen.h"

struct post {
    uint8_t buf[CASE_MAX_SIZE];
    uint8_t mutated[CASE_MAX_SIZE];
    uint64_t rng;
};

void *afl_custom_init(void *afl, unsigned int seed)
{
    (void)afl;
    struct post *p = calloc(1, sizeof(struct post));
    if (p) p->rng = seed;
    return p;
}

size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size, unsigned char **out_buf,
                       unsigned char *add_buf, size_t add_buf_size, size_t max_size)
{
    (void)add_buf, (void)add_buf_size;
    struct post *p = data;
    size_t cap = max_size < sizeof p->mutated ? max_size : sizeof p->mutated;
    size_t n = buf_size < cap ? buf_size : cap;
    memcpy(p->mutated, buf, n);
    *out_buf = p->mutated;
    /* 0 (no edit had room): AFL++ skips the run rather than repeat the entry */
    return casefix_mutate(p->mutated, n, cap, casegen_next(&p->rng));
}

unsigned int afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size)
{
    (void)data, (void)buf, (void)buf_size;
    return (unsigned)casefix_struct_share();
}

size_t afl_custom_post_process(void *data, unsigned char *in, size_t len, unsigned char **out)
{
    struct post *p = data;
    size_t n = len < sizeof p->buf ? len : sizeof p->buf;
    memcpy(p->buf, in, n);
    *out = p->buf;
    return casefix_apply(p->buf, n, sizeof p->buf);
}

void afl_custom_deinit(void *data) { free(data); }
