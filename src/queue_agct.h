/*
 * The ASGST queue API for backend agct (docs/asgst-api.md, section 1),
 * built from what a stock VM offers:
 *   - Enqueue (handler-safe) stores pc/fp/sp of the context and the
 *     caller's arg in a fixed per-thread ring; a full ring answers
 *     ENQUEUE_FULL_QUEUE and counts the attempt.
 *   - A processing thread (a JVMTI agent thread) visits every queue with
 *     pending elements, walks its thread with JVMTI GetStackTrace (a
 *     handshake on JDK 17), and calls the handler once per element, oldest
 *     first, each with an iterator over that walk, between the start and
 *     end handlers. Resizes take effect after processing.
 * Differences from the prototype, by necessity: the handler runs on the
 * processing thread, not on the sampled thread at its own safepoint, and
 * all elements of one batch share one walk taken when the batch is
 * processed. The ring is guarded by a try-lock the signal handler never
 * waits on (contention answers ENQUEUE_OTHER_ERROR and is counted).
 */
#ifndef ASGF_QUEUE_AGCT_H
#define ASGF_QUEUE_AGCT_H

#include <jni.h>
#include <jvmti.h>
#include "asgst.h"

/* The queue entry points, with the prototype's signatures; the agct
 * backend's api table (api_agct.c) is built with them. Without
 * queue_agct_start, RegisterQueue answers NULL. */
ASGST_Queue *queue_agct_register(JNIEnv *env, int size, int options, ASGST_QueueHandler handler, void *queue_arg);
bool queue_agct_deregister(JNIEnv *env, ASGST_Queue *queue);
int queue_agct_enqueue(ASGST_Queue *queue, void *ucontext, void *arg);                   /* [handler-safe] */
int queue_agct_get_enqueuable_element(void *ucontext, ASGST_QueueElement *element);     /* [handler-safe] */
ASGST_QueueElement *queue_agct_get_element(ASGST_Queue *queue, int n);                  /* [handler-safe] */
ASGST_QueueSizeInfo queue_agct_get_size_info(ASGST_Queue *queue);                      /* [handler-safe] */
void queue_agct_resize(ASGST_Queue *queue, int size);                                   /* [handler-safe] */
void queue_agct_set_on_start(ASGST_Queue *queue, int options, bool offer_iterator, ASGST_QueueProcessingHandler h,
                             void *arg);
void queue_agct_set_on_end(ASGST_Queue *queue, int options, bool offer_iterator, ASGST_QueueProcessingHandler h,
                           void *arg);
/* Starts the processing thread; live phase. period_ns between passes,
 * depth frames per walk. 0 or -1 with a reason. */
int queue_agct_start(jvmtiEnv *jvmti, JNIEnv *jni, long long period_ns, int depth, const char **why);
void queue_agct_stop(void);

struct queue_agct_counters {
    unsigned long long enqueued, full, contended, batches, handled, walk_errors;
};
void queue_agct_counters(struct queue_agct_counters *out);

#endif
