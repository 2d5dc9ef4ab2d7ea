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
#include "stack_image.h"
#include "stack_watch.h"

#include <limits.h>
#define EXEC_NO_VM_CODE INT_MIN
/* Frames one walk takes at most: a forged stack can loop forever. */
#define EXEC_WALK_LIMIT 65536

struct exec_ctx {
    const struct api *api;
    const char *mode;           /* "signal", "thread", "queue", "direct" */
    const uint8_t *case_bytes;  /* raw input, for crash records and the in-flight file */
    size_t case_len;
    ASGST_Queue *queue;         /* for ENTRY_ENQUEUE; NULL: outcome EXEC_NO_QUEUE */
    ASGST_Frame *frames_out;    /* optional: the first frames walked */
    int frames_cap;
};

/*
 * The framework's own verdict on a case, kept apart from every value the
 * VM can return: the prototype uses the whole int space at and below -16
 * for its walker, so no framework outcome may be encoded there.
 */
enum exec_fw {
    EXEC_REACHED = 0, /* the entry point ran and returned: ret/raw are the VM's */
    EXEC_UNBOUND,     /* the backend has no such entry point: nothing called */
    EXEC_NO_QUEUE,    /* a queue entry on a thread without a registered queue */
    EXEC_FAULT,       /* the guard caught a signal inside the call (guard_rc) */
    EXEC_NESTED,      /* not run: this thread was already inside a guarded call */
    EXEC_GUARD_FULL,  /* not run: no free guard slot */
    EXEC_FW__COUNT
};

/* "reached", "unbound", ... */
const char *exec_fw_name(int fw);

struct exec_outcome {
    int fw;             /* enum exec_fw; ret and raw mean something only if EXEC_REACHED */
    int ret;            /* ASGST code the entry point returned */
    int raw;            /* what the VM answered (AGCT num_frames for agct) */
    int last_vm;        /* last value any entry point returned in this case (EXEC_NO_VM_CODE: none);
                           after a fault: what the VM said before it */
    int frames;         /* frames the iterator yielded */
    int walk_error;     /* last NextFrame error (< 0), 0 if none */
    int rewind_mismatch;/* CASE_FLAG_REWIND walked a different count the second time */
    uint8_t types_seen; /* bit (1 << ASGST frame type) */
    int entry;          /* the entry point that ran (enum case_entry), see exec_entry_to_run */
    int substituted;    /* entry differs from the case's: the backend or thread lacked that one */
    uint32_t region_hits;
    int image;          /* enum stack_image_result: whether the walk ran on a forged stack copy */
    int image_written;  /* forged words written into it */
    int image_skipped;  /* forged words that fell outside it (or the image was not built) */
    int guard_rc;       /* guard_run's answer: 0, a signal number, GUARD_NESTED/FULL */
    struct stack_watch_hit watch; /* the walk's writes into the live thread (stack_watch.h) */
    struct guard_fault fault;
};

/*
 * [handler-safe] The entry point a case runs as: its own when the backend
 * binds it (and, for Enqueue, the thread has a queue), else the nearest
 * one that does: GetEnqueuableElement for an Enqueue without a queue,
 * RunWithIterator for the rest. Every case thus reaches the VM; the
 * substitution shows in the outcome and the crash record's entry.
 */
int exec_entry_to_run(const struct exec_ctx *cx, int entry);

/* [handler-safe] live may be NULL for entries that take no context; then a
 * zeroed context is mutated. self: the thread whose context it is. The walk
 * runs on a copy of live; live itself is written only to put back what a
 * walk stored into it (stack_watch.h). */
void exec_case(const struct exec_ctx *cx, const struct case_prog *p, ucontext_t *live,
               const struct thread_info *self, struct exec_outcome *out);

/* What the cases of one held batch share, kept by the holder in a frame
 * below live's sp for as long as live is held: one forged copy of the
 * stack (stack_image.h), and the watch's note of live's zero words, which
 * each case's check leaves as the next case's (stack_watch.h). */
struct exec_held {
    struct stack_image img;
    struct stack_watch watch;
};
/* [handler-safe] */
void exec_held_init(struct exec_held *h);
/* [handler-safe] exec_case for one case of a held batch. */
void exec_case_held(const struct exec_ctx *cx, const struct case_prog *p, ucontext_t *live,
                    const struct thread_info *self, struct exec_outcome *out, struct exec_held *h);

#endif
