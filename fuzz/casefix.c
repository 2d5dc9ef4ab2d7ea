/* Mutation fix-up (see casefix.h). */
#include <string.h>
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
    size_t body = len - min;
    if (body > (size_t)CASE_MAX_MUTATIONS * CASE_RECORD_SIZE) body = (size_t)CASE_MAX_MUTATIONS * CASE_RECORD_SIZE;
    return min + body - body % CASE_RECORD_SIZE;
}
