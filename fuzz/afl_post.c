/*
 * AFL++ custom-mutator library with a post-processor only
 * (build/fuzz/libasgf-afl-post.so, loaded by fuzz/run-afl through
 * AFL_CUSTOM_MUTATOR_LIBRARY): AFL++'s own mutations stay on, and every
 * result goes through casefix_apply before it reaches the target, so it
 * passes the harness's strict validation instead of being rejected unrun.
 */
#include <stdlib.h>
#include <string.h>
#include "case.h"
#include "casefix.h"

struct post {
    uint8_t buf[CASE_MAX_SIZE];
};

void *afl_custom_init(void *afl, unsigned int seed)
{
    (void)afl, (void)seed;
    return calloc(1, sizeof(struct post));
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
