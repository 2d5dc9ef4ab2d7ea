/*
 * The oracle's excuse rules (agents/oracle-rules.txt, built in; or the file
 * oracle_rules= names): differences between an AGCT walk and JVMTI's that are
 * known to be legitimate, each with its reason. Loaded once at start-up,
 * read-only after; each rule counts what it excused.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "oracle_check.h"
#include "oracle_rules.h"

enum rule_kind { RULE_LINENO, RULE_CODE, RULE_EDGE, RULE_END, RULE_TOP_BCI };

struct rule {
    char name[48];
    enum rule_kind kind;
    long agct, jvmti; /* RULE_CODE, RULE_TOP_BCI: agct only */
    char glob[200];   /* RULE_EDGE, RULE_END: fnmatch pattern on a method text */
    char why[400];
    _Atomic unsigned long long excused;
};

static const char builtin_rules[] =
#include "oracle_rules.inc"
    ;

static struct rule rules[ORACLE_RULES_MAX];
static int nrules;
static char rules_source[300];

static int parse_rules(const char *text, const char *source, char *err, size_t errlen)
{
    snprintf(rules_source, sizeof rules_source, "%s", source);
    nrules = 0;
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[1024];
        lineno++;
        if (len >= sizeof line) return snprintf(err, errlen, "%s line %d: line too long", source, lineno), -1;
        memcpy(line, p, len);
        line[len] = 0;
        p += len + (end ? 1 : 0);
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        if (nrules == ORACLE_RULES_MAX) return snprintf(err, errlen, "%s line %d: more than %d rules", source, lineno, ORACLE_RULES_MAX), -1;
        struct rule *r = &rules[nrules];
        char *why = strstr(s, " why:");
        if (!why || !why[5] || !why[6]) return snprintf(err, errlen, "%s line %d: rule without 'why: TEXT'", source, lineno), -1;
        *why = 0;
        snprintf(r->why, sizeof r->why, "%s", why + 6);
        char name[64], kind[16], extra[8], glob[200];
        long a = 0, j = 0;
        int got = sscanf(s, "%63s %15s %ld %ld %7s", name, kind, &a, &j, extra);
        if (got >= 2 && (!strcmp(kind, "edge") || !strcmp(kind, "end")) &&
            sscanf(s, "%63s %15s %199s %7s", name, kind, glob, extra) == 3) {
            r->kind = strcmp(kind, "edge") ? RULE_END : RULE_EDGE;
            strcpy(r->glob, glob);
        } else if (got == 3 && !strcmp(kind, "code")) r->kind = RULE_CODE;
        else if (got == 3 && !strcmp(kind, "topbci")) r->kind = RULE_TOP_BCI;
        else if (got == 4 && !strcmp(kind, "lineno")) r->kind = RULE_LINENO;
        else return snprintf(err, errlen, "%s line %d: expected 'NAME lineno AGCT JVMTI why: ...', "
                             "'NAME code AGCT_CODE why: ...', 'NAME topbci BCI why: ...', 'NAME edge CALLEE_GLOB why: ...' "
                             "or 'NAME end METHOD_GLOB why: ...'",
                             source, lineno), -1;
        if (strlen(name) >= sizeof r->name) return snprintf(err, errlen, "%s line %d: name too long", source, lineno), -1;
        strcpy(r->name, name);
        r->agct = a, r->jvmti = j;
        atomic_store(&r->excused, 0);
        nrules++;
    }
    return 0;
}

int oracle_load_rules(const char *path, char *err, size_t errlen)
{
    if (!path || !*path) return parse_rules(builtin_rules, "built-in oracle rules", err, errlen);
    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode))
        return snprintf(err, errlen, "oracle_rules=%s: not a regular file", path), -1;
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "oracle_rules=%s: %s", path, strerror(errno)), -1;
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    int big = !feof(f);
    fclose(f);
    if (big) return snprintf(err, errlen, "oracle_rules=%s: larger than %zu bytes", path, sizeof text - 1), -1;
    text[n] = 0;
    return parse_rules(text, path, err, errlen);
}

int oracle_rules_lineno(int agct_lineno, jlocation jvmti_location)
{
    for (int r = 0; r < nrules; r++)
        if (rules[r].kind == RULE_LINENO && rules[r].agct == agct_lineno && rules[r].jvmti == jvmti_location) return r;
    return -1;
}

void oracle_rules_count(int r)
{
    if (r >= 0 && r < nrules) atomic_fetch_add(&rules[r].excused, 1);
}

/* The first rule of `kind` that matches, counted; 0 if none. */
static int excuse(enum rule_kind kind, long agct, const char *method)
{
    for (int r = 0; r < nrules; r++)
        if (rules[r].kind == kind && (method ? !fnmatch(rules[r].glob, method, 0) : rules[r].agct == agct)) {
            atomic_fetch_add(&rules[r].excused, 1);
            return 1;
        }
    return 0;
}

int oracle_rules_code(int agct_code) { return excuse(RULE_CODE, agct_code, NULL); }
int oracle_rules_end(const char *method) { return excuse(RULE_END, 0, method); }
int oracle_rules_edge(const char *callee) { return excuse(RULE_EDGE, 0, callee); }

int oracle_rules_top_bci(int kind, int at, int bci)
{
    return kind == CHECK_BAD_BCI && at == 0 && excuse(RULE_TOP_BCI, bci, NULL);
}

void oracle_rules_report(FILE *f)
{
    for (int r = 0; r < nrules; r++)
        fprintf(f, "asgf: oracle rule %s excused %llu comparisons: %s\n", rules[r].name,
                (unsigned long long)rules[r].excused, rules[r].why);
}

void oracle_rules_json(FILE *f)
{
    fprintf(f, "\"rules_source\": \"%s\", \"excused\": {", rules_source);
    for (int r = 0; r < nrules; r++)
        fprintf(f, "%s\"%s\": %llu", r ? ", " : "", rules[r].name, (unsigned long long)rules[r].excused);
    fprintf(f, "}");
}
