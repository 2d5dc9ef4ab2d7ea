/* The oracle's mismatch records (oracle_records.c). Not handler-safe. */
#ifndef ASGF_ORACLE_RECORDS_H
#define ASGF_ORACLE_RECORDS_H

#include <stddef.h>
#include <stdint.h>
#include <jvmti.h>
#include "agct.h"

/* A method as Class.nameSignature, or ?ADDRESS when it is not known. */
void oracle_method_text(jmethodID m, char *out, size_t len);
/* FNV-1a of the kind and the first differing frame's method text: the same
 * in every process, as jmethodIDs are not. */
uint64_t oracle_mismatch_key(const char *kind, const char *method);

struct oracle_record {
    const char *dir;          /* the agent's out= */
    int tid;
    const char *thread;       /* its name */
    const char *kind;         /* the kind of difference */
    uint64_t key;
    int at;                   /* the first differing frame */
    const char *method;       /* its method text */
    const char *shape, *why;  /* NULL, or the consistency check's words */
    const ASGCT_CallFrame *walked;
    int nwalked;              /* AGCT's answer: frames, or its error code */
    const jvmtiFrameInfo *expected;
    int nexpected;
    const uint8_t *case_bytes; /* the case that walked (consistency check), or NULL */
    size_t case_len;
    int from_sampled_walk;    /* a call-graph kind: only oracle_graph=1 takes such walks */
};
void oracle_record_write(const struct oracle_record *r);

#endif
