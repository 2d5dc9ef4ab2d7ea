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
    QOP_RESIZE, QOP_SET_HANDLERS, QOP_CLEAR_HANDLERS, QOP_ELEMENT_GET, QOP_ELEMENT_OUT_OF_RANGE, QOP_SIZE_INFO,
    QOP_FOREIGN_ENQUEUE, QOP_DEREGISTER_IN_HANDLER, QOP_REREGISTER, QOP_MARK_REGISTER, QOP_MARK_MOVE,
    QOP_MARK_MOVE_ODD, QOP_MARK_FIRED, QOP_MARK_REMOVE, QOP_MARK_REMOVE_TWICE, QOP_ITERATOR_PAST_END,
    QOP_INFO_ROUNDS, QOP_ROUNDTRIPS, QOP_WALK_FROM_FRAME, QOP__COUNT
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
