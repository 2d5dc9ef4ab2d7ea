/*
 * Record type stk (2): forged words for the copy of the walked thread's
 * stack top (src/stack_image.c applies them).
 *   head:  word count (1..16), kind, region (kind region only, else 0),
 *          type 2, then an i64 LE: bits 0-31 the offset in bytes from the
 *          anchor (signed, a multiple of 8, |offset| < CASE_IMAGE_SIZE),
 *          bits 32-39 the anchor (enum case_stk_anchor),
 *          bits 40-63 zero
 *   words: one i64 LE per stack slot, read by kind as a mut value is
 *   text:  stk ANCHOR OFFSET KIND [REGION] WORD...
 */
#include <inttypes.h>
#include <string.h>
#include "case.h"

static const char *const anchor_names[CASE_STK_ANCHORS] = {"sp", "fp", "fp2", "fp3", "ret1", "ret2", "ret3", "ret4"};

const char *case_anchor_name(int a) { return a >= 0 && a < CASE_STK_ANCHORS ? anchor_names[a] : "?"; }
int case_anchor_parse(const char *s)
{
    for (int i = 0; i < CASE_STK_ANCHORS; i++)
        if (!strcmp(s, anchor_names[i])) return i;
    return -1;
}

/* [handler-safe] */
static int decode(const uint8_t *r, int nwords, int nregs, struct case_prog *p, size_t *bad, const char **why)
{
    (void)nregs;
    if (nwords < 1) return *bad = 0, *why = "stk record without words", -1;
    if (r[1] >= MUT__COUNT) return *bad = 1, *why = "unknown mutation kind", -1;
    if (r[1] == MUT_REGION && r[2] >= REGION__COUNT) return *bad = 2, *why = "unknown region", -1;
    if (r[1] != MUT_REGION && r[2]) return *bad = 2, *why = "region byte of an abs or delta record is not 0", -1;
    uint64_t v = case_get_le64(r + 4);
    int32_t offset = (int32_t)(uint32_t)v;
    if (v >> 40) return *bad = 9, *why = "stk bits 40-63 are not 0", -1;
    if ((v >> 32 & 0xff) >= CASE_STK_ANCHORS) return *bad = 8, *why = "unknown stk anchor", -1;
    if (offset % 8) return *bad = 4, *why = "stk offset is not a multiple of 8", -1;
    if (offset <= -CASE_IMAGE_SIZE || offset >= CASE_IMAGE_SIZE)
        return *bad = 4, *why = "stk offset outside the image", -1;
    if (p->nstk == CASE_MAX_STK) return *bad = 3, *why = "more than 8 stk records", -1;
    struct case_stack_patch *s = &p->stk[p->nstk++];
    s->nwords = (uint8_t)nwords, s->kind = r[1], s->region = r[2];
    s->anchor = (uint8_t)(v >> 32), s->offset = offset;
    for (int i = 0; i < nwords; i++) s->words[i] = (int64_t)case_get_le64(r + CASE_RECORD_SIZE + i * CASE_WORD_SIZE);
    return 0;
}

static int count(const struct case_prog *p) { return p->nstk; }

/* [handler-safe] */
static size_t encode(const struct case_prog *p, int i, uint8_t *r)
{
    const struct case_stack_patch *s = &p->stk[i];
    r[0] = s->nwords, r[1] = s->kind, r[2] = s->kind == MUT_REGION ? s->region : 0, r[3] = CASE_REC_STK;
    case_put_le64(r + 4, (uint64_t)(uint32_t)s->offset | (uint64_t)s->anchor << 32);
    for (int w = 0; w < s->nwords; w++) case_put_le64(r + CASE_RECORD_SIZE + w * CASE_WORD_SIZE, (uint64_t)s->words[w]);
    return CASE_RECORD_SIZE + (size_t)s->nwords * CASE_WORD_SIZE;
}

static void print(FILE *f, const struct case_prog *p, int i)
{
    const struct case_stack_patch *s = &p->stk[i];
    fprintf(f, "stk %s %s%d %s", case_anchor_name(s->anchor), s->offset < 0 ? "" : "+", (int)s->offset,
            case_kind_name(s->kind));
    if (s->kind == MUT_REGION) fprintf(f, " %s", case_region_name(s->region));
    for (int w = 0; w < s->nwords; w++) {
        if (s->kind == MUT_DELTA && s->words[w] < 0)
            fprintf(f, " -0x%" PRIx64, -(uint64_t)s->words[w]);
        else
            fprintf(f, " 0x%" PRIx64, (uint64_t)s->words[w]);
    }
    fputc('\n', f);
}

static int parse(struct case_text *t, struct case_prog *p)
{
    char w[128];
    if (p->nstk == CASE_MAX_STK) return case_text_fail(t, NULL, "more than %d stk records", CASE_MAX_STK);
    struct case_stack_patch *s = &p->stk[p->nstk];
    memset(s, 0, sizeof *s);
    const char *at = case_text_word(t, w, sizeof w);
    int anchor = case_anchor_parse(w);
    if (anchor < 0) return case_text_fail(t, at, "unknown stk anchor '%s' (sp, fp, fp2, fp3, ret1..ret4)", w);
    at = case_text_word(t, w, sizeof w);
    int64_t off;
    if (case_text_number(t, at, w[0] == '+' ? w + 1 : w, 1, &off)) return -1;
    if (off % 8) return case_text_fail(t, at, "stk offset %s is not a multiple of 8", w);
    if (off <= -CASE_IMAGE_SIZE || off >= CASE_IMAGE_SIZE)
        return case_text_fail(t, at, "stk offset %s outside the image (|offset| < %d)", w, CASE_IMAGE_SIZE);
    at = case_text_word(t, w, sizeof w);
    int kind = case_kind_parse(w);
    if (kind < 0) return case_text_fail(t, at, "unknown mutation kind '%s' (abs, delta, region)", w);
    if (kind == MUT_REGION) {
        at = case_text_word(t, w, sizeof w);
        int region = case_region_parse(w);
        if (region < 0) return case_text_fail(t, at, "unknown region '%s'", w);
        s->region = (uint8_t)region;
    }
    for (;;) {
        at = case_text_word(t, w, sizeof w);
        if (!w[0]) break;
        if (s->nwords == CASE_STK_MAX_WORDS)
            return case_text_fail(t, at, "more than %d words in one stk record", CASE_STK_MAX_WORDS);
        if (case_text_number(t, at, w, 1, &s->words[s->nwords])) return -1;
        s->nwords++;
    }
    if (!s->nwords) return case_text_fail(t, at, "stk record without words");
    s->anchor = (uint8_t)anchor, s->kind = (uint8_t)kind, s->offset = (int32_t)off;
    p->nstk++;
    return 0;
}

const struct case_record_handler case_rec_stk = {decode, count, encode, print, parse};
