/*
 * Agent-style options: "key=value,key=value,flag". One table declares the
 * keys, their help and their setter; the parser reports the first problem
 * with the option's position and text, e.g.
 *   option 2 "intervl=10us": unknown option "intervl"
 * A key given twice is an error (naming both), not "the last one wins".
 * Not handler-safe.
 */
#ifndef ASGF_OPTIONS_H
#define ASGF_OPTIONS_H

#include <stddef.h>

/* A setter returns NULL when value is fine, else a static message. value is
 * NULL for a bare key without '='. */
typedef const char *(*opt_setter)(void *cfg, const char *value);

struct opt_def {
    const char *key;
    const char *help;
    opt_setter set;
};

/* Returns 0, or -1 with the message in err. defs ends with a {NULL} row. */
int options_parse(const char *text, const struct opt_def *defs, void *cfg, char *err, size_t errlen);
/* The option number (1-based) at which key is given in text, or 0. */
int options_given(const char *text, const char *key);
/* Writes "  key  help" lines for every option to fd. */
void options_help(const struct opt_def *defs, int fd);

/* Common value parsers; each returns NULL or a message. */
const char *opt_parse_bool(const char *v, int *out);
const char *opt_parse_long(const char *v, long min, long max, long *out);
/* Durations with ns/us/ms/s/m/h suffixes (bare numbers are `unit`). */
const char *opt_parse_duration_ns(const char *v, long long unit_ns, long long *out);

#endif
