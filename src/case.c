/* Case format: strict validation, total decoding, canonical encoding. */
#include <string.h>
#include "case.h"

static const char *const entry_names[ENTRY__COUNT] = {
    "run_with_iterator", "run_with_iterator_from_frame", "enqueue", "get_enqueuable_element"};
static const char *const mode_names[MODE__COUNT] = {"signal", "thread", "queue"};
static const char *const kind_names[MUT__COUNT] = {"abs", "delta", "region"};
static const char *const region_names[REGION__COUNT] = {
    "own_stack", "other_stack", "code_cache", "libjvm_text", "java_heap",
    "guard_page", "null_page", "unmapped", "misaligned", "noncanonical", "nmethod_tail"};

#define NAME_OF(table, count, i) (((i) >= 0 && (i) < (count)) ? (table)[i] : "?")

const char *case_entry_name(int i) { return NAME_OF(entry_names, ENTRY__COUNT, i); }
const char *case_mode_name(int i) { return NAME_OF(mode_names, MODE__COUNT, i); }
const char *case_kind_name(int i) { return NAME_OF(kind_names, MUT__COUNT, i); }
const char *case_region_name(int i) { return NAME_OF(region_names, REGION__COUNT, i); }

static int lookup(const char *const *table, int count, const char *s)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(table[i], s)) return i;
    return -1;
}

int case_entry_parse(const char *s) { return lookup(entry_names, ENTRY__COUNT, s); }
int case_mode_parse(const char *s) { return lookup(mode_names, MODE__COUNT, s); }
int case_kind_parse(const char *s) { return lookup(kind_names, MUT__COUNT, s); }
int case_region_parse(const char *s) { return lookup(region_names, REGION__COUNT, s); }

int case_validate(const uint8_t *buf, size_t len, size_t *off, const char **err)
{
    if (len == 0) {
        *off = 0, *err = "empty case (no header)";
        return -1;
    }
    if (len < CASE_HEADER_SIZE) {
        *off = len, *err = "truncated header (need 8 bytes)";
        return -1;
    }
    for (size_t i = 0; i < 4; i++)
        if (buf[i] != (uint8_t)CASE_MAGIC[i]) {
            *off = i, *err = "bad magic (expected \"ASGF\")";
            return -1;
        }
    if (buf[4] != CASE_VERSION) {
        *off = 4, *err = "unsupported version (this build reads version 1)";
        return -1;
    }
    if (len < CASE_HEADER_SIZE + CASE_GLOBAL_SIZE) {
        *off = len, *err = "truncated global section (need 8 bytes after the header)";
        return -1;
    }
    size_t body = len - CASE_HEADER_SIZE - CASE_GLOBAL_SIZE;
    if (body > (size_t)CASE_MAX_MUTATIONS * CASE_RECORD_SIZE) {
        *off = CASE_MAX_SIZE, *err = "too many mutation records (at most 16)";
        return -1;
    }
    if (body % CASE_RECORD_SIZE) {
        *off = len - body % CASE_RECORD_SIZE, *err = "truncated mutation record (records are 12 bytes)";
        return -1;
    }
    return 0;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

void case_decode(const uint8_t *buf, size_t len, int nregs, struct case_prog *out)
{
    memset(out, 0, sizeof *out);
    if (len >= CASE_HEADER_SIZE && !memcmp(buf, CASE_MAGIC, 4)) buf += CASE_HEADER_SIZE, len -= CASE_HEADER_SIZE;

    uint8_t g[CASE_GLOBAL_SIZE] = {0};
    size_t n = len < CASE_GLOBAL_SIZE ? len : CASE_GLOBAL_SIZE;
    memcpy(g, buf, n);
    buf += n, len -= n;
    out->entry = g[0] % ENTRY__COUNT;
    out->mode = g[1] % MODE__COUNT;
    out->options = g[2] & 3;
    out->worker = g[3];
    out->depth = (uint16_t)(g[4] | g[5] << 8);
    out->flags = g[6] & CASE_FLAG__MASK;

    while (len > 0 && out->nmut < CASE_MAX_MUTATIONS) {
        uint8_t r[CASE_RECORD_SIZE] = {0};
        n = len < CASE_RECORD_SIZE ? len : CASE_RECORD_SIZE;
        memcpy(r, buf, n);
        buf += n, len -= n;
        struct case_mutation *m = &out->mut[out->nmut++];
        m->reg = (uint8_t)(r[0] % (nregs > 0 ? nregs : 3));
        m->kind = r[1] % MUT__COUNT;
        m->region = r[2] % REGION__COUNT;
        m->value = (int64_t)le64(r + 4);
    }
}

size_t case_encode(const struct case_prog *p, uint8_t out[CASE_MAX_SIZE])
{
    memset(out, 0, CASE_MAX_SIZE);
    memcpy(out, CASE_MAGIC, 4);
    out[4] = CASE_VERSION;
    uint8_t *g = out + CASE_HEADER_SIZE;
    g[0] = p->entry, g[1] = p->mode, g[2] = p->options, g[3] = p->worker;
    g[4] = (uint8_t)(p->depth & 0xff), g[5] = (uint8_t)(p->depth >> 8), g[6] = p->flags;
    int nmut = p->nmut < CASE_MAX_MUTATIONS ? p->nmut : CASE_MAX_MUTATIONS;
    for (int i = 0; i < nmut; i++) {
        uint8_t *r = g + CASE_GLOBAL_SIZE + i * CASE_RECORD_SIZE;
        const struct case_mutation *m = &p->mut[i];
        r[0] = m->reg, r[1] = m->kind, r[2] = m->region;
        uint64_t v = (uint64_t)m->value;
        for (int b = 0; b < 8; b++) r[4 + b] = (uint8_t)(v >> (8 * b));
    }
    return CASE_HEADER_SIZE + CASE_GLOBAL_SIZE + (size_t)nmut * CASE_RECORD_SIZE;
}
