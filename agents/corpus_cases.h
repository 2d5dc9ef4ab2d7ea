/* mutate=corpus:<dir>: saved cases (fuzzer finds, reproducers) replayed
 * by the agent (corpus_cases.c). */
#ifndef ASGF_CORPUS_CASES_H
#define ASGF_CORPUS_CASES_H

#include <stddef.h>
#include <stdint.h>
#include "case.h"

int corpus_load(const char *dir, char *err, size_t errlen);
int corpus_count(void);
/* [handler-safe] */
void corpus_pick(uint64_t r, struct case_prog *p);

#endif
