/*
 * Text form of a case, so people can read and write corpus entries. The
 * text names things instead of coding them, so it has one version for
 * binary versions 1 and 2: "asgf-case 1". Global keys are parsed here;
 * every other key is a record type's name, parsed by its handler.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "case.h"

#define TEXT_VERSION "1"

static void print_bits(FILE *f, unsigned bits, const char *(*name)(int))
{
    int any = 0;
    for (int i = 0; name(i); i++)
        if (bits & (1u << i)) fprintf(f, "%s%s", any++ ? "," : "", name(i));
    if (!any) fputs("none", f);
}

void case_print(FILE *f, const struct case_prog *p)
{
    fputs("asgf-case " TEXT_VERSION "\n", f);
    fprintf(f, "entry %s\nmode %s\noptions ", case_entry_name(p->entry), case_mode_name(p->mode));
    print_bits(f, p->options, case_option_name);
    fprintf(f, "\nworker %u\ndepth %u\nflags ", p->worker, p->depth);
    print_bits(f, p->flags, case_flag_name);
    fputc('\n', f);
    for (int t = 0; t < CASE_REC__COUNT; t++) {
        const struct case_record_handler *h = case_record_handler(t);
        for (int i = 0, n = h->count(p); i < n; i++) h->print(f, p, i);
    }
}

struct case_text {
    char *err;
    size_t errlen;
    int line;
    const char *line_start;
    const char *pos;    /* the rest of the line */
    const char *key_at; /* where the line's key starts */
};

int case_text_fail(struct case_text *t, const char *at, const char *fmt, ...)
{
    if (!at) at = t->key_at;
    int n = snprintf(t->err, t->errlen, "%d:%d: ", t->line, (int)(at - t->line_start) + 1);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < t->errlen) vsnprintf(t->err + n, t->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

const char *case_text_word(struct case_text *t, char *buf, size_t len)
{
    const char *p = t->pos;
    while (*p == ' ' || *p == '\t') p++;
    const char *start = p;
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '#') {
        if (n + 1 < len) buf[n++] = *p;
        p++;
    }
    buf[n] = 0;
    t->pos = p;
    return start;
}

int case_text_number(struct case_text *t, const char *at, const char *w, int allow_neg, int64_t *out)
{
    if (!*w) return case_text_fail(t, at, "missing number");
    int neg = w[0] == '-';
    if (neg && !allow_neg) return case_text_fail(t, at, "negative number not allowed here");
    errno = 0;
    char *end;
    uint64_t v = strtoull(w + neg, &end, 0);
    if (errno || *end || end == w + neg) return case_text_fail(t, at, "bad number '%s'", w);
    /* -(2^64-1) would wrap to +1: a negative value must fit int64_t. */
    if (neg && v > (uint64_t)INT64_MAX + 1) return case_text_fail(t, at, "number '%s' out of range", w);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int parse_bits(struct case_text *t, const char *at, char *w, const char *(*name)(int), uint8_t *out)
{
    *out = 0;
    if (!strcmp(w, "none")) return 0;
    for (char *tok = strtok(w, ",|"); tok; tok = strtok(NULL, ",|")) {
        int i;
        for (i = 0; name(i) && strcmp(tok, name(i)); i++)
            ;
        if (!name(i)) return case_text_fail(t, at, "unknown name '%s'", tok);
        *out |= (uint8_t)(1u << i);
    }
    return 0;
}

static int parse_line(struct case_text *t, struct case_prog *p, int *seen_magic)
{
    char key[64], w[128];
    const char *at = t->key_at = case_text_word(t, key, sizeof key);
    const struct case_record_handler *rec;
    if (!key[0]) return 0;
    if (!*seen_magic) {
        if (strcmp(key, "asgf-case")) return case_text_fail(t, at, "expected 'asgf-case " TEXT_VERSION "' first");
        at = case_text_word(t, w, sizeof w);
        if (strcmp(w, TEXT_VERSION))
            return case_text_fail(t, at, "unsupported version '%s' (this build reads " TEXT_VERSION ")", w);
        *seen_magic = 1;
    } else if (!strcmp(key, "entry") || !strcmp(key, "mode")) {
        at = case_text_word(t, w, sizeof w);
        int v = key[0] == 'e' ? case_entry_parse(w) : case_mode_parse(w);
        if (v < 0) return case_text_fail(t, at, "unknown %s '%s'", key, w);
        if (key[0] == 'e') p->entry = (uint8_t)v; else p->mode = (uint8_t)v;
    } else if (!strcmp(key, "options") || !strcmp(key, "flags")) {
        at = case_text_word(t, w, sizeof w);
        int opt = key[0] == 'o';
        if (parse_bits(t, at, w, opt ? case_option_name : case_flag_name, opt ? &p->options : &p->flags))
            return -1;
    } else if (!strcmp(key, "worker") || !strcmp(key, "depth")) {
        int64_t v;
        at = case_text_word(t, w, sizeof w);
        if (case_text_number(t, at, w, 0, &v)) return -1;
        int64_t max = key[0] == 'w' ? 255 : 65535;
        if (v > max) return case_text_fail(t, at, "%s %s out of range (max %d)", key, w, (int)max);
        if (key[0] == 'w') p->worker = (uint8_t)v; else p->depth = (uint16_t)v;
    } else if ((rec = case_record_by_name(key))) {
        if (rec->parse(t, p)) return -1;
    } else {
        return case_text_fail(t, at, "unknown key '%s'", key);
    }
    at = case_text_word(t, w, sizeof w);
    if (w[0]) return case_text_fail(t, at, "unexpected '%s' at end of line", w);
    return 0;
}

int case_parse_text(const char *text, struct case_prog *out, char *err, size_t errlen)
{
    struct case_text t = {err, errlen, 0, text, text, text};
    int seen_magic = 0;
    memset(out, 0, sizeof *out);
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[512];
        t.line++;
        if (n >= sizeof line) {
            t.line_start = s;
            return case_text_fail(&t, s + sizeof line - 1, "line longer than %zu bytes", sizeof line - 1);
        }
        memcpy(line, s, n);
        line[n] = 0;
        t.line_start = t.pos = t.key_at = line;
        if (parse_line(&t, out, &seen_magic)) return -1;
        /* The binary form holds 1024 bytes: a record past them would be
         * left out of every encoding, so the text that asks for it is wrong. */
        size_t size = case_encoded_size(out);
        if (size > CASE_MAX_SIZE)
            return case_text_fail(&t, line, "this record makes the case %zu bytes; a case holds at most %d", size,
                                  CASE_MAX_SIZE);
        s += n + (nl != NULL);
    }
    if (!seen_magic) {
        t.line = 1, t.line_start = text;
        return case_text_fail(&t, text, "empty case text (expected 'asgf-case " TEXT_VERSION "')");
    }
    return 0;
}

int case_is_text(const char *buf, size_t n)
{
    return (n < 4 || memcmp(buf, CASE_MAGIC, 4)) && strlen(buf) == n && strstr(buf, "asgf-case");
}
