/*
 * Record type qop (1): one queue or frame-mark operation, done after the
 * case's entry call (src/qops.c runs them).
 *   head: op, 0, 0, type 1, value (i64 LE)
 *   text: qop OP VALUE
 */
#include <inttypes.h>
#include <string.h>
#include "case.h"

static const char *const qop_names[] = {
#define CASE_QOP(code, name, id, handshake) [code] = #name,
#include "case_codes.h"
};
static const uint8_t qop_handshake[] = {
#define CASE_QOP(code, name, id, handshake) [code] = handshake,
#include "case_codes.h"
};

const char *case_qop_name(int op) { return op >= 0 && op < QOP__COUNT ? qop_names[op] : "?"; }
int case_qop_at_handshake(int op) { return op >= 0 && op < QOP__COUNT && qop_handshake[op]; }
int case_qop_parse(const char *s)
{
    for (int i = 0; i < QOP__COUNT; i++)
        if (!strcmp(s, qop_names[i])) return i;
    return -1;
}

/* [handler-safe] */
static int decode(const uint8_t *r, int nwords, int nregs, struct case_prog *p, size_t *bad, const char **why)
{
    (void)nwords, (void)nregs;
    if (r[0] >= QOP__COUNT) return *bad = 0, *why = "unknown queue operation", -1;
    if (r[1] || r[2]) return *bad = r[1] ? 1 : 2, *why = "reserved byte of a qop record is not 0", -1;
    if (p->nqop == CASE_MAX_QOPS) return *bad = 0, *why = "more than 16 qop records", -1;
    struct case_qop *q = &p->qop[p->nqop++];
    q->op = r[0];
    q->value = (int64_t)case_get_le64(r + 4);
    return 0;
}

static int count(const struct case_prog *p) { return p->nqop; }

/* [handler-safe] */
static size_t encode(const struct case_prog *p, int i, uint8_t *r)
{
    const struct case_qop *q = &p->qop[i];
    r[0] = q->op, r[1] = r[2] = 0, r[3] = CASE_REC_QOP;
    case_put_le64(r + 4, (uint64_t)q->value);
    return CASE_RECORD_SIZE;
}

static void print(FILE *f, const struct case_prog *p, int i)
{
    const struct case_qop *q = &p->qop[i];
    fprintf(f, "qop %s %" PRId64 "\n", case_qop_name(q->op), q->value);
}

static int parse(struct case_text *t, struct case_prog *p)
{
    char w[128];
    if (p->nqop == CASE_MAX_QOPS) return case_text_fail(t, NULL, "more than %d qop records", CASE_MAX_QOPS);
    const char *at = case_text_word(t, w, sizeof w);
    int op = case_qop_parse(w);
    if (op < 0) return case_text_fail(t, at, "unknown queue operation '%s'", w);
    at = case_text_word(t, w, sizeof w);
    int64_t v;
    if (case_text_number(t, at, w, 1, &v)) return -1;
    p->qop[p->nqop].op = (uint8_t)op, p->qop[p->nqop].value = v;
    p->nqop++;
    return 0;
}

const struct case_record_handler case_rec_qop = {decode, count, encode, print, parse};
