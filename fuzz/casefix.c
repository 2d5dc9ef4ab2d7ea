/* Mutation fix-up (see casefix.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "case.h"
#include "casegen.h"
#include "casefix.h"

size_t casefix_apply(uint8_t *buf, size_t len, size_t cap)
{
    const size_t min = CASE_HEADER_SIZE + CASE_GLOBAL_SIZE;
    if (cap < min) return len;
    if (len < min) {
        memset(buf + len, 0, min - len);
        len = min;
    }
    memcpy(buf, CASE_MAGIC, 4);
    buf[4] = CASE_VERSION;
    if (len > CASE_MAX_SIZE) len = CASE_MAX_SIZE;
    len -= (len - min) % CASE_RECORD_SIZE; /* no zero-padded head at the end */
    /* Version 2 takes no out-of-range code: the total decoder drops those
     * fields and records, the encoder writes what is left, a valid case. */
    struct case_prog p;
    case_decode(buf, len, arch_reg_count(), &p);
    uint8_t out[CASE_MAX_SIZE];
    size_t n = case_encode(&p, out);
    if (n > cap) return len;
    memcpy(buf, out, n);
    return n;
}

int casefix_struct_share_parse(const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    return end == v || *end || n < 0 || n > 100 ? -1 : (int)n;
}

int casefix_struct_share(void)
{
    static int share = -1;
    if (share >= 0) return share;
    share = CASEFIX_STRUCT_DEFAULT;
    const char *v = getenv("ASGF_STRUCT_MUTATE");
    int n = v ? casefix_struct_share_parse(v) : -1;
    if (n >= 0)
        share = n;
    else if (v)
        fprintf(stderr, "asgf: ASGF_STRUCT_MUTATE: expected a percentage 0..100, got \"%s\"; using %d\n", v,
                CASEFIX_STRUCT_DEFAULT);
    return share;
}

size_t casefix_mutate(uint8_t *buf, size_t len, size_t cap, uint64_t seed)
{
    struct case_prog p;
    case_decode(buf, len, arch_reg_count(), &p);
    uint64_t st = seed * 0x9e3779b97f4a7c15ULL + 1;
    int edits = 1 + (int)(casegen_next(&st) % 3), done = 0;
    for (int i = 0; i < edits; i++) done += casegen_mutate(&st, &p);
    if (!done) return 0;
    uint8_t out[CASE_MAX_SIZE];
    size_t n = case_encode(&p, out);
    if (n > cap) return 0;
    memcpy(buf, out, n);
    return n;
}
