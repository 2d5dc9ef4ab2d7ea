/*
 * Running a case's qop records (case.h, corpus/FORMAT.md): queue and
 * frame-mark operations on the target thread after the entry call.
 *
 * Every harness keeps each sampled thread's queue and frame mark here, by
 * registry slot (threads_slot), so that an operation that replaces the
 * queue (reregister) or the mark is seen by the next case on that thread,
 * whoever runs it. Signal-safe operations run in the case's own guarded
 * call (exec.c); the others are handed to the thread's next queue handler,
 * which calls qops_run_handshake.
 */
#ifndef ASGF_QOPS_H
#define ASGF_QOPS_H

#include "api.h"
#include "case.h"

/* On the thread, after RegisterQueue: what reregister needs to make another. */
void qops_thread_start(int slot, ASGST_Queue *queue, ASGST_QueueHandler handler, void *arg, int capacity);
/* On the thread, before it ends: its current queue and mark, now forgotten
 * here (the caller deregisters/removes them). */
void qops_thread_end(int slot, ASGST_Queue **queue, ASGST_FrameMark **mark);

/* [handler-safe] 1 if the thread has no handshake ops waiting: a case's
 * handshake ops given now will run, not be dropped. */
int qops_handshake_free(int slot);
/* [handler-safe] How many lots of handshake ops the thread's queue handlers
 * have run to their end, a fault ending one included. */
unsigned long long qops_lots_done(int slot);
/* [handler-safe] The thread's current queue and mark (NULL: none). */
ASGST_Queue *qops_queue(int slot);
ASGST_FrameMark *qops_mark(int slot);
void qops_set_mark(int slot, ASGST_FrameMark *mark);
void qops_set_queue(int slot, ASGST_Queue *queue);

/* [handler-safe] From exec_case's guarded call: the signal-time ops of p,
 * in order, on the thread in `slot`; the handshake ones are queued for its
 * next queue handler (dropped, and counted, if the last lot is still
 * waiting), with a copy of the case's bytes for their crash record.
 * uc: the (mutated) context of the case. */
void qops_run_signal(const struct api *api, int slot, const struct case_prog *p, void *uc, const uint8_t *bytes,
                     size_t len);

/* From a queue handler on behalf of the thread in `slot`, outside any
 * guarded call (not handler-safe): the waiting handshake ops, with the
 * handler's iterator, in one guarded call whose crash record carries the
 * case that asked for them. Returns how many ran. */
int qops_run_handshake(const struct api *api, int slot, ASGST_Iterator *it);

/* The handlers queues and marks get here (arg: the struct api): each
 * walks the iterator the VM hands it, behind the callback gate. */
void qops_on_mark(ASGST_FrameMark *mark, ASGST_Iterator *it, void *arg);
void qops_on_processing(ASGST_Queue *q, ASGST_Iterator *it, void *arg);

struct qops_counters {
    unsigned long long signal_ops, handshake_ops, handshake_dropped, marks_fired;
    unsigned long long by_op[QOP__COUNT]; /* done, by qop code */
};
void qops_counters(struct qops_counters *out);

#endif
