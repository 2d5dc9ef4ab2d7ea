/* mode=queue lifecycle operations (see queue_ops.c). */
#ifndef ASGF_QUEUE_OPS_H
#define ASGF_QUEUE_OPS_H

#include <stdio.h>
#include "api.h"

/* queue_ops= bits */
enum {
    QOPS_RESIZE = 1, QOPS_HANDLERS = 2, QOPS_ELEMENTS = 4, QOPS_FOREIGN = 8,
    QOPS_REREGISTER = 16, QOPS_MARKS = 32, QOPS_INFO = 64, QOPS_ALL = 127
};

/* Counted operations, in the order the report prints them. */
enum {
    QCOUNT_RESIZE, QCOUNT_SET_HANDLERS, QCOUNT_CLEAR_HANDLERS, QCOUNT_ELEMENT_GET, QCOUNT_ELEMENT_OUT_OF_RANGE, QCOUNT_SIZE_INFO,
    QCOUNT_FOREIGN_ENQUEUE, QCOUNT_DEREGISTER_IN_HANDLER, QCOUNT_REREGISTER, QCOUNT_MARK_REGISTER, QCOUNT_MARK_MOVE,
    QCOUNT_MARK_MOVE_ODD, QCOUNT_MARK_FIRED, QCOUNT_MARK_REMOVE, QCOUNT_MARK_REMOVE_TWICE, QCOUNT_ITERATOR_PAST_END,
    QCOUNT_INFO_ROUNDS, QCOUNT_ROUNDTRIPS, QCOUNT_WALK_FROM_FRAME, QCOUNT__COUNT
};

/* "all", "none" or names joined by '+'; NULL or an error prefix. */
const char *queue_ops_parse(const char *v, unsigned *out);

/* On the thread, at its start/end: its queue, processing handlers and
 * frame mark. Returns the queue (NULL if none). */
ASGST_Queue *queue_ops_thread_start(JNIEnv *jni, int slot, ASGST_QueueHandler handler, void *arg);
void queue_ops_thread_end(JNIEnv *jni, int slot);
/* [handler-safe] The thread's current queue (a handler may replace it). */
ASGST_Queue *queue_ops_queue(int slot);
/* [handler-safe] After each sample, in the SIGPROF handler. */
void queue_ops_after_sample(int slot, void *uc);
/* In the queue handler, with its iterator. */
void queue_ops_in_handler(int slot, ASGST_Iterator *it);

void queue_ops_report(FILE *f);
void queue_ops_json(FILE *f);

#endif
