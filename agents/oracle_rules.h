/* The oracle's excuse rules (oracle_rules.c). Load before the oracle starts;
 * the look-ups are [handler-safe] (read-only data, atomic counters). */
#ifndef ASGF_ORACLE_RULES_H
#define ASGF_ORACLE_RULES_H

#include <stdio.h>
#include <jvmti.h>

#define ORACLE_RULES_MAX 32

/* NULL or "": the built-in rules. 0, or -1 with err naming file and line. */
int oracle_load_rules(const char *path, char *err, size_t errlen);
/* The lineno rule that makes these two frame positions equal (-1: none); not
 * counted here: a walk counts each rule it used once (oracle_rules_count). */
int oracle_rules_lineno(int agct_lineno, jlocation jvmti_location);
void oracle_rules_count(int rule);
/* 1 if a rule excuses it (and counts it): an AGCT error code, a walk that
 * ends at `method`, a call edge into `callee`, a top-frame bci of a
 * consistency-check kind. */
int oracle_rules_code(int agct_code);
int oracle_rules_end(const char *method);
int oracle_rules_edge(const char *callee);
int oracle_rules_top_bci(int kind, int at, int bci);
/* Per-rule counts: stderr lines, and the JSON members rules_source and excused. */
void oracle_rules_report(FILE *f);
void oracle_rules_json(FILE *f);

#endif
