/* Case format: strict validation, total decoding, canonical encoding (see case.h). */
#include <stddef.h>
#include <string.h>
#include "arch.h"
#include "case.h"

static const char *const entry_names[] = {
#define CASE_ENTRY(code, name, id, walks) [code] = #name,
#include "case_codes.h"
};
static const uint8_t entry_walks[] = {
#define CASE_ENTRY(code, name, id, walks) [code] = walks,
#include "case_codes.h"
};
static const char *const mode_names[] = {
#define CASE_MODE(code, name, id) [code] = #name,
#include "case_codes.h"
};
static const char *const kind_names[] = {
#define CASE_KIND(code, name, id) [code] = #name,
#include "case_codes.h"
};
static const char *const region_names[] = {
#define CASE_REGION(code, name, id) [code] = #name,
#include "case_codes.h"
};
/* Option and flag names by bit number (bits 1, 2, 4, ... in order, see below). */
static const char *const option_names[] = {
#define CASE_OPTION(bit, name, id) #name,
#include "case_codes.h"
};
static const char *const flag_names[] = {
#define CASE_FLAG(bit, name, id) #name,
#include "case_codes.h"
};
#define N_OPTIONS ((int)(sizeof option_names / sizeof *option_names))
#define N_FLAGS ((int)(sizeof flag_names / sizeof *flag_names))
_Static_assert(CASE_OPTION__MASK == (1 << N_OPTIONS) - 1, "option bits are not 1, 2, 4, ...");
_Static_assert(CASE_FLAG__MASK == (1 << N_FLAGS) - 1, "flag bits are not 1, 2, 4, ...");

/* Record types: name, where the payload count is, and the handler. */
static const struct record_type {
    const char *name;
    int count_byte; /* head byte holding the number of payload words; -1: none */
    int max_words;
    const struct case_record_handler *h;
} record_types[] = {
#define CASE_RECORD(type, name, id, count_byte, max_words) [type] = {#name, count_byte, max_words, &case_rec_##name},
#include "case_codes.h"
};

/* A gap in a table would leave a NULL name: these sizes are the highest
 * code + 1, the counts are the number of lines. */
_Static_assert(sizeof entry_names / sizeof *entry_names == ENTRY__COUNT, "entry codes not dense");
_Static_assert(sizeof mode_names / sizeof *mode_names == MODE__COUNT, "mode codes not dense");
_Static_assert(sizeof kind_names / sizeof *kind_names == MUT__COUNT, "kind codes not dense");
_Static_assert(sizeof region_names / sizeof *region_names == REGION__COUNT, "region codes not dense");
_Static_assert(sizeof record_types / sizeof *record_types == CASE_REC__COUNT, "record types not dense");

#define NAME_OF(table, count, i) (((i) >= 0 && (i) < (count)) ? (table)[i] : "?")

const char *case_entry_name(int i) { return NAME_OF(entry_names, ENTRY__COUNT, i); }
const char *case_mode_name(int i) { return NAME_OF(mode_names, MODE__COUNT, i); }
const char *case_kind_name(int i) { return NAME_OF(kind_names, MUT__COUNT, i); }
const char *case_region_name(int i) { return NAME_OF(region_names, REGION__COUNT, i); }
const char *case_option_name(int i) { return i >= 0 && i < N_OPTIONS ? option_names[i] : NULL; }
const char *case_flag_name(int i) { return i >= 0 && i < N_FLAGS ? flag_names[i] : NULL; }
const char *case_record_name(int i) { return i >= 0 && i < CASE_REC__COUNT ? record_types[i].name : "?"; }
int case_entry_walks(int i) { return i >= 0 && i < ENTRY__COUNT && entry_walks[i]; }

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

static int fail(size_t *off, const char **err, size_t at, const char *why)
{
    *off = at, *err = why;
    return -1;
}

/* Version 1: the structure only; any byte value is a valid code. */
static int validate_v1(size_t len, size_t *off, const char **err)
{
    size_t body = len - CASE_HEADER_SIZE - CASE_GLOBAL_SIZE;
    if (body > (size_t)CASE_V1_MAX_RECORDS * CASE_RECORD_SIZE)
        return fail(off, err, CASE_V1_MAX_SIZE, "too many mutation records (at most 16)");
    if (body % CASE_RECORD_SIZE)
        return fail(off, err, len - body % CASE_RECORD_SIZE, "truncated mutation record (records are 12 bytes)");
    return 0;
}

/* Reads the records of a version 2 body. strict: stop at the first problem
 * (-1, *off from the start of the file); else skip it and count. */
static int records_v2(const uint8_t *buf, size_t len, size_t start, int nregs, struct case_prog *p, int strict,
                      size_t *off, const char **err)
{
    size_t at = start;
    while (at < len) {
        uint8_t rec[CASE_RECORD_SIZE] = {0};
        size_t n = len - at < CASE_RECORD_SIZE ? len - at : CASE_RECORD_SIZE;
        if (n < CASE_RECORD_SIZE && strict)
            return fail(off, err, at, "truncated record (a record head is 12 bytes)");
        memcpy(rec, buf + at, n);
        uint8_t type = rec[3];
        if (type >= CASE_REC__COUNT) {
            if (strict) return fail(off, err, at + 3, "unknown record type");
            p->dropped++, at += CASE_RECORD_SIZE;
            continue;
        }
        const struct record_type *t = &record_types[type];
        int nwords = t->count_byte >= 0 ? rec[t->count_byte] : 0;
        if (nwords > t->max_words) {
            if (strict) return fail(off, err, at + (size_t)t->count_byte, "payload word count over the type's limit");
            p->dropped++, at += CASE_RECORD_SIZE;
            continue;
        }
        size_t size = CASE_RECORD_SIZE + (size_t)nwords * CASE_WORD_SIZE;
        if (at + size > len && strict) return fail(off, err, len, "truncated record payload");
        /* Read in place; a record the file ends inside is zero-padded. The
         * pad is built only then: every fuzzer run decodes each record
         * twice, and zeroing a whole case's worth each time was a visible
         * share of a libFuzzer job's time (docs/figures.md, 2026-11-28). */
        const uint8_t *rp = buf + at;
        uint8_t whole[CASE_MAX_SIZE];
        if (at + size > len) {
            memset(whole, 0, size);
            memcpy(whole, buf + at, len - at);
            rp = whole;
        }
        size_t bad = 0;
        const char *why = NULL;
        if (t->h->decode(rp, nwords, nregs, p, &bad, &why)) {
            if (strict) return fail(off, err, at + bad, why);
            p->dropped++;
        }
        at += size;
    }
    return 0;
}

/* The global section of version 2: out-of-range values are errors (strict)
 * or neutralized and counted. */
static int global_v2(const uint8_t *g, size_t base, struct case_prog *p, int strict, size_t *off, const char **err)
{
    p->entry = g[0], p->mode = g[1], p->options = g[2], p->worker = g[3];
    p->depth = (uint16_t)(g[4] | g[5] << 8), p->flags = g[6];
    if (p->entry >= ENTRY__COUNT) {
        if (strict) return fail(off, err, base + 0, "unknown entry");
        p->entry = 0, p->dropped++;
    }
    if (p->mode >= MODE__COUNT) {
        if (strict) return fail(off, err, base + 1, "unknown mode");
        p->mode = 0, p->dropped++;
    }
    if (p->options & ~CASE_OPTION__MASK) {
        if (strict) return fail(off, err, base + 2, "unknown option bits");
        p->options &= CASE_OPTION__MASK, p->dropped++;
    }
    if (p->flags & ~CASE_FLAG__MASK) {
        if (strict) return fail(off, err, base + 6, "unknown flag bits");
        p->flags &= CASE_FLAG__MASK, p->dropped++;
    }
    if (strict && g[7]) return fail(off, err, base + 7, "reserved byte is not 0");
    return 0;
}

/* Empties a program: its scalars and counts. The record arrays are left as
 * they are: every reader stops at its count, and zeroing 1.9 KB for each
 * decode was, with the harness's own clearing, most of a libFuzzer job's
 * memset (docs/figures.md, 2026-11-28). */
static void prog_clear(struct case_prog *p)
{
    memset(p, 0, offsetof(struct case_prog, mut)); /* the header and the three counts */
}

static int check_header(const uint8_t *buf, size_t len, size_t *off, const char **err)
{
    if (len == 0) return fail(off, err, 0, "empty case (no header)");
    if (len < CASE_HEADER_SIZE) return fail(off, err, len, "truncated header (need 8 bytes)");
    for (size_t i = 0; i < 4; i++)
        if (buf[i] != (uint8_t)CASE_MAGIC[i]) return fail(off, err, i, "bad magic (expected \"ASGF\")");
    if (buf[4] != CASE_VERSION_1 && buf[4] != CASE_VERSION)
        return fail(off, err, 4, "unsupported version (this build reads versions 1 and 2)");
    if (len < CASE_HEADER_SIZE + CASE_GLOBAL_SIZE)
        return fail(off, err, len, "truncated global section (need 8 bytes after the header)");
    if (buf[4] == CASE_VERSION_1) return validate_v1(len, off, err);
    for (size_t i = 5; i < CASE_HEADER_SIZE; i++)
        if (buf[i]) return fail(off, err, i, "reserved byte is not 0");
    if (len > CASE_MAX_SIZE) return fail(off, err, CASE_MAX_SIZE, "case larger than 1024 bytes");
    return 0;
}

static void decode_v1(const uint8_t *buf, size_t len, int nregs, struct case_prog *out);

int case_validate_decode(const uint8_t *buf, size_t len, struct case_prog *out, size_t *off, const char **err)
{
    if (check_header(buf, len, off, err)) return -1;
    prog_clear(out);
    if (buf[4] == CASE_VERSION_1) {
        decode_v1(buf + CASE_HEADER_SIZE, len - CASE_HEADER_SIZE, arch_reg_count(), out);
        return 0;
    }
    /* Strict, these see every byte case_decode would and keep what it
     * would: nothing is dropped, so out is its program. */
    if (global_v2(buf + CASE_HEADER_SIZE, CASE_HEADER_SIZE, out, 1, off, err)) return -1;
    return records_v2(buf, len, CASE_HEADER_SIZE + CASE_GLOBAL_SIZE, arch_reg_count(), out, 1, off, err);
}

int case_validate(const uint8_t *buf, size_t len, size_t *off, const char **err)
{
    struct case_prog scratch;
    return case_validate_decode(buf, len, &scratch, off, err);
}

/* Version 1 and headerless bytes, as they were always read: every field
 * modulo the size its table had then (4 entries, 3 modes, 3 kinds, 11
 * regions; registers modulo the architecture's count, see arch.c), at most
 * 16 records, every record a register mutation. The sizes are frozen, so
 * additions to the tables never change what a version 1 file means. */
enum { V1_ENTRIES = 4, V1_MODES = 3, V1_KINDS = 3, V1_REGIONS = 11 };

static void decode_v1(const uint8_t *buf, size_t len, int nregs, struct case_prog *out)
{
    uint8_t g[CASE_GLOBAL_SIZE] = {0};
    size_t n = len < CASE_GLOBAL_SIZE ? len : CASE_GLOBAL_SIZE;
    memcpy(g, buf, n);
    buf += n, len -= n;
    out->entry = g[0] % V1_ENTRIES;
    out->mode = g[1] % V1_MODES;
    out->options = g[2] & 3;
    out->worker = g[3];
    out->depth = (uint16_t)(g[4] | g[5] << 8);
    out->flags = g[6] & 3;
    while (len > 0 && out->nmut < CASE_V1_MAX_RECORDS) {
        uint8_t r[CASE_RECORD_SIZE] = {0};
        n = len < CASE_RECORD_SIZE ? len : CASE_RECORD_SIZE;
        memcpy(r, buf, n);
        buf += n, len -= n;
        struct case_mutation *m = &out->mut[out->nmut++];
        m->reg = (uint8_t)(r[0] % (nregs > 0 ? nregs : 3));
        m->kind = r[1] % V1_KINDS;
        m->region = r[2] % V1_REGIONS;
        m->value = (int64_t)case_get_le64(r + 4);
    }
}

void case_decode(const uint8_t *buf, size_t len, int nregs, struct case_prog *out)
{
    prog_clear(out);
    if (len < CASE_HEADER_SIZE || memcmp(buf, CASE_MAGIC, 4) || buf[4] != CASE_VERSION) {
        if (len >= CASE_HEADER_SIZE && !memcmp(buf, CASE_MAGIC, 4)) buf += CASE_HEADER_SIZE, len -= CASE_HEADER_SIZE;
        decode_v1(buf, len, nregs, out);
        return;
    }
    if (len > CASE_MAX_SIZE) len = CASE_MAX_SIZE, out->dropped++;
    uint8_t g[CASE_GLOBAL_SIZE] = {0};
    size_t n = len - CASE_HEADER_SIZE < CASE_GLOBAL_SIZE ? len - CASE_HEADER_SIZE : CASE_GLOBAL_SIZE;
    memcpy(g, buf + CASE_HEADER_SIZE, n);
    size_t off;
    const char *err;
    global_v2(g, CASE_HEADER_SIZE, out, 0, &off, &err);
    records_v2(buf, len, CASE_HEADER_SIZE + CASE_GLOBAL_SIZE, nregs, out, 0, &off, &err);
}

/* Writes p's records after the global section of out (NULL: nowhere) until
 * one does not fit, and none after it; *kept: the bytes written. Returns
 * the size every record would take. */
static size_t put_records(const struct case_prog *p, uint8_t *out, size_t *kept)
{
    size_t need = CASE_HEADER_SIZE + CASE_GLOBAL_SIZE;
    *kept = need;
    for (int t = 0; t < CASE_REC__COUNT; t++) {
        const struct case_record_handler *h = record_types[t].h;
        for (int i = 0, n = h->count(p); i < n; i++) {
            uint8_t rec[CASE_MAX_SIZE];
            size_t size = h->encode(p, i, rec);
            if (need == *kept && need + size <= CASE_MAX_SIZE) {
                if (out) memcpy(out + need, rec, size);
                *kept += size;
            }
            need += size;
        }
    }
    return need;
}

size_t case_encoded_size(const struct case_prog *p)
{
    size_t kept;
    return put_records(p, NULL, &kept);
}

static size_t encode(const struct case_prog *p, uint8_t out[CASE_MAX_SIZE], size_t *need)
{
    memset(out, 0, CASE_MAX_SIZE);
    memcpy(out, CASE_MAGIC, 4);
    out[4] = CASE_VERSION;
    uint8_t *g = out + CASE_HEADER_SIZE;
    g[0] = p->entry, g[1] = p->mode, g[2] = p->options, g[3] = p->worker;
    g[4] = (uint8_t)(p->depth & 0xff), g[5] = (uint8_t)(p->depth >> 8), g[6] = p->flags;
    size_t len;
    *need = put_records(p, out, &len);
    return len;
}

size_t case_encode(const struct case_prog *p, uint8_t out[CASE_MAX_SIZE])
{
    size_t need;
    return encode(p, out, &need);
}

size_t case_encode_kept(struct case_prog *p, uint8_t out[CASE_MAX_SIZE])
{
    size_t need, len = encode(p, out, &need);
    if (need > len) case_decode(out, len, arch_reg_count(), p);
    return len;
}

const struct case_record_handler *case_record_by_name(const char *name)
{
    for (int t = 0; t < CASE_REC__COUNT; t++)
        if (!strcmp(record_types[t].name, name)) return record_types[t].h;
    return NULL;
}
const struct case_record_handler *case_record_handler(int type)
{
    return type >= 0 && type < CASE_REC__COUNT ? record_types[type].h : NULL;
}
