/* Text form of a case, so people can read and write corpus entries. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "asgst.h"
#include "case.h"

static void print_bits(FILE *f, unsigned bits, const char *const names[], int n)
{
    int any = 0;
    for (int i = 0; i < n; i++)
        if (bits & (1u << i)) fprintf(f, "%s%s", any++ ? "," : "", names[i]);
    if (!any) fputs("none", f);
}

static const char *const option_names[] = {"include_non_java_frames", "end_on_first_java_frame"};
static const char *const flag_names[] = {"rewind", "method_info"};

void case_print(FILE *f, const struct case_prog *p)
{
    fprintf(f, "asgf-case %d\n", CASE_VERSION);
    fprintf(f, "entry %s\nmode %s\noptions ", case_entry_name(p->entry), case_mode_name(p->mode));
    print_bits(f, p->options, option_names, 2);
    fprintf(f, "\nworker %u\ndepth %u\nflags ", p->worker, p->depth);
    print_bits(f, p->flags, flag_names, 2);
    fputc('\n', f);
    for (int i = 0; i < p->nmut; i++) {
        const struct case_mutation *m = &p->mut[i];
        fprintf(f, "mut %s %s ", arch_reg_name(m->reg), case_kind_name(m->kind));
        if (m->kind == MUT_REGION) fprintf(f, "%s ", case_region_name(m->region));
        if (m->kind == MUT_DELTA && m->value < 0)
            fprintf(f, "-0x%" PRIx64 "\n", -(uint64_t)m->value);
        else
            fprintf(f, "0x%" PRIx64 "\n", (uint64_t)m->value);
    }
}

struct parser {
    char *err;
    size_t errlen;
    int line;
    const char *line_start;
};

static int fail(struct parser *ps, const char *at, const char *fmt, ...)
{
    int n = snprintf(ps->err, ps->errlen, "%d:%d: ", ps->line, (int)(at - ps->line_start) + 1);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < ps->errlen) vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Splits the next blank-separated word of *s into buf; returns its start. */
static const char *word(const char **s, char *buf, size_t len)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    const char *start = p;
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '#') {
        if (n + 1 < len) buf[n++] = *p;
        p++;
    }
    buf[n] = 0;
    *s = p;
    return start;
}

static int parse_u64(struct parser *ps, const char *at, const char *w, int allow_neg, int64_t *out)
{
    if (!*w) return fail(ps, at, "missing number");
    int neg = w[0] == '-';
    if (neg && !allow_neg) return fail(ps, at, "negative number not allowed here");
    errno = 0;
    char *end;
    uint64_t v = strtoull(w + neg, &end, 0);
    if (errno || *end || end == w + neg) return fail(ps, at, "bad number '%s'", w);
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int parse_bits(struct parser *ps, const char *at, char *w, const char *const names[], int n,
                      uint8_t *out)
{
    *out = 0;
    if (!strcmp(w, "none")) return 0;
    for (char *tok = strtok(w, ",|"); tok; tok = strtok(NULL, ",|")) {
        int i;
        for (i = 0; i < n && strcmp(tok, names[i]); i++)
            ;
        if (i == n) return fail(ps, at, "unknown name '%s'", tok);
        *out |= (uint8_t)(1u << i);
    }
    return 0;
}

static int parse_line(struct parser *ps, const char *s, struct case_prog *p, int *seen_magic)
{
    char key[64], w[128];
    const char *at = word(&s, key, sizeof key);
    if (!key[0]) return 0;
    if (!*seen_magic) {
        if (strcmp(key, "asgf-case")) return fail(ps, at, "expected 'asgf-case %d' first", CASE_VERSION);
        at = word(&s, w, sizeof w);
        if (strcmp(w, "1")) return fail(ps, at, "unsupported version '%s' (this build reads 1)", w);
        *seen_magic = 1;
    } else if (!strcmp(key, "entry") || !strcmp(key, "mode")) {
        at = word(&s, w, sizeof w);
        int v = key[0] == 'e' ? case_entry_parse(w) : case_mode_parse(w);
        if (v < 0) return fail(ps, at, "unknown %s '%s'", key, w);
        if (key[0] == 'e') p->entry = (uint8_t)v; else p->mode = (uint8_t)v;
    } else if (!strcmp(key, "options") || !strcmp(key, "flags")) {
        at = word(&s, w, sizeof w);
        int opt = key[0] == 'o';
        if (parse_bits(ps, at, w, opt ? option_names : flag_names, 2, opt ? &p->options : &p->flags))
            return -1;
    } else if (!strcmp(key, "worker") || !strcmp(key, "depth")) {
        int64_t v;
        at = word(&s, w, sizeof w);
        if (parse_u64(ps, at, w, 0, &v)) return -1;
        int64_t max = key[0] == 'w' ? 255 : 65535;
        if (v > max) return fail(ps, at, "%s %s out of range (max %d)", key, w, (int)max);
        if (key[0] == 'w') p->worker = (uint8_t)v; else p->depth = (uint16_t)v;
    } else if (!strcmp(key, "mut")) {
        if (p->nmut == CASE_MAX_MUTATIONS) return fail(ps, at, "more than %d mutations", CASE_MAX_MUTATIONS);
        struct case_mutation *m = &p->mut[p->nmut];
        at = word(&s, w, sizeof w);
        int reg = arch_reg_parse(w);
        if (reg < 0) return fail(ps, at, "unknown register '%s'", w);
        at = word(&s, w, sizeof w);
        int kind = case_kind_parse(w);
        if (kind < 0) return fail(ps, at, "unknown mutation kind '%s' (abs, delta, region)", w);
        int region = 0;
        if (kind == MUT_REGION) {
            at = word(&s, w, sizeof w);
            region = case_region_parse(w);
            if (region < 0) return fail(ps, at, "unknown region '%s'", w);
        }
        at = word(&s, w, sizeof w);
        if (parse_u64(ps, at, w, kind == MUT_DELTA, &m->value)) return -1;
        m->reg = (uint8_t)reg, m->kind = (uint8_t)kind, m->region = (uint8_t)region;
        p->nmut++;
    } else {
        return fail(ps, at, "unknown key '%s'", key);
    }
    at = word(&s, w, sizeof w);
    if (w[0]) return fail(ps, at, "unexpected '%s' at end of line", w);
    return 0;
}

int case_parse_text(const char *text, struct case_prog *out, char *err, size_t errlen)
{
    struct parser ps = {err, errlen, 0, text};
    int seen_magic = 0;
    memset(out, 0, sizeof *out);
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[512];
        ps.line++;
        if (n >= sizeof line) {
            ps.line_start = s;
            return fail(&ps, s + sizeof line - 1, "line longer than %zu bytes", sizeof line - 1);
        }
        memcpy(line, s, n);
        line[n] = 0;
        ps.line_start = line;
        if (parse_line(&ps, line, out, &seen_magic)) return -1;
        s += n + (nl != NULL);
    }
    if (!seen_magic) {
        ps.line = 1, ps.line_start = text;
        return fail(&ps, text, "empty case text (expected 'asgf-case 1')");
    }
    return 0;
}
