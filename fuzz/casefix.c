/* Mutation fix-up (see casefix.h). */
#include <string.h>
#include "arch.h"
#include "case.h"
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
