/*
 * Executing one case: copy the live context, apply the mutation program,
 * make the case's API call under crash protection, walk the iterator, and
 * report the outcome. The one place every harness (agent, libFuzzer, AFL++,
 * replay, tests) runs a case through. Handler-safe.
 */
#ifndef ASGF_EXEC_H
#define ASGF_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>
#include "api.h"
#include "case.h"
#include "guard.h"
#include "regions.h"

struct exec_ctx {
    const struct api *api;
    const char *mode;           /* "signal", "thread", "queue", "direct" */
    const uint8_t *case_bytes;  /* raw input, for crash records and the in-flight file */
    size_t case_len;
    ASGST_Queue *queue;         /* for ENTRY_ENQUEUE; NULL: the entry answers UNSUPPORTED */
    ASGST_Frame *frames_out;    /* optional: the first frames walked */
    int frames_cap;
};

struct exec_outcome {
    int ret;            /* ASGST code the entry point returned */
    int raw;            /* what the VM answered (AGCT num_frames for agct) */
    int frames;         /* frames the iterator yielded */
    int walk_error;     /* last NextFrame error (< 0), 0 if none */
    int rewind_mismatch;/* CASE_FLAG_REWIND walked a different count the second time */
    uint8_t types_seen; /* bit (1 << ASGST frame type) */
    uint32_t region_hits;
    int guard_rc;       /* guard_run's answer: 0, a signal number, GUARD_NESTED/FULL */
    struct guard_fault fault;
};

/* [handler-safe] live may be NULL for entries that take no context; then a
 * zeroed context is mutated. self: the thread whose context it is. */
void exec_case(const struct exec_ctx *cx, const struct case_prog *p, const ucontext_t *live,
               const struct thread_info *self, struct exec_outcome *out);

#endif
