/* Agent option parsing (see options.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

int options_given(const char *text, const char *key)
{
    int index = 0;
    size_t kn = strlen(key);
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        index++;
        if (n >= kn && !strncmp(p, key, kn) && (n == kn || p[kn] == '=')) return index;
        p += n + (end != NULL);
    }
    return 0;
}

int options_parse(const char *text, const struct opt_def *defs, void *cfg, char *err, size_t errlen)
{
    if (!text || !*text) return 0;
    int index = 0;
    /* Where each key was given (1-based option number), for duplicates. */
    int given_at[128] = {0};
    char given_text[128][64];
    for (const char *p = text; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char item[512];
        index++;
        if (n >= sizeof item) {
            snprintf(err, errlen, "option %d: longer than %zu characters", index, sizeof item - 1);
            return -1;
        }
        memcpy(item, p, n);
        item[n] = 0;
        char *eq = strchr(item, '=');
        if (eq) *eq = 0;
        const char *value = eq ? eq + 1 : NULL;
        if (!item[0]) {
            snprintf(err, errlen, "option %d \"%s%s%s\": empty option name", index, item, eq ? "=" : "", value ? value : "");
            return -1;
        }
        const struct opt_def *d = defs;
        while (d->key && strcmp(d->key, item)) d++;
        size_t k = (size_t)(d - defs);
        if (d->key && k < sizeof given_at / sizeof *given_at) {
            if (given_at[k]) {
                /* The last one winning silently hides a typo in a long option line. */
                snprintf(err, errlen, "option %d \"%s%s%s\": duplicates option %d \"%s\"", index, item,
                         eq ? "=" : "", value ? value : "", given_at[k], given_text[k]);
                return -1;
            }
            given_at[k] = index;
            snprintf(given_text[k], sizeof given_text[k], "%.30s%s%.30s", item, eq ? "=" : "", value ? value : "");
        }
        const char *why = d->key ? d->set(cfg, value) : "unknown option";
        if (why) {
            snprintf(err, errlen, "option %d \"%s%s%s\": %s \"%s\"", index, item, eq ? "=" : "", value ? value : "",
                     why, d->key ? (value ? value : "") : item);
            return -1;
        }
        p += n + (end != NULL);
    }
    return 0;
}

void options_help(const struct opt_def *defs, int fd)
{
    for (const struct opt_def *d = defs; d->key; d++) dprintf(fd, "  %-12s %s\n", d->key, d->help);
}

const char *opt_parse_bool(const char *v, int *out)
{
    if (!v || !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "yes")) *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "no")) *out = 0;
    else return "expected 0/1/true/false/on/off, got";
    return NULL;
}

const char *opt_parse_long(const char *v, long min, long max, long *out)
{
    if (!v || !*v) return "missing number";
    errno = 0;
    char *end;
    long x = strtol(v, &end, 0);
    if (errno || *end) return "not a number:";
    if (x < min || x > max) return "out of range:";
    *out = x;
    return NULL;
}

const char *opt_parse_duration_ns(const char *v, long long unit_ns, long long *out)
{
    if (!v || !*v) return "missing duration";
    errno = 0;
    char *end;
    double x = strtod(v, &end);
    if (errno || end == v || x < 0 || x != x) return "not a duration:";
    static const struct {
        const char *suffix;
        long long ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000LL}, {"m", 60000000000LL},
                 {"h", 3600000000000LL}, {"", 0}};
    long long scale = 0;
    for (int i = 0; units[i].ns; i++)
        if (!strcmp(end, units[i].suffix)) scale = units[i].ns;
    if (!*end) scale = unit_ns;
    if (!scale) return "unknown unit in duration (ns, us, ms, s, m, h):";
    /* Past about 292 years in ns the conversion would overflow (undefined,
     * in practice a negative or zero duration): refuse, do not wrap. */
    if (!(x * (double)scale < 9.2e18)) return "duration too long (at most 292 years):";
    *out = (long long)(x * (double)scale);
    return NULL;
}
