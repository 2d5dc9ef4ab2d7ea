/*
 * The ASGST queue API for backend agct (shared/asgst-api.md section 1),
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

/* Fills the queue slots of the agct api table. */
void queue_agct_install(void);
/* Starts the processing thread; live phase. period_ns between passes,
 * depth frames per walk. 0 or -1 with a reason. */
int queue_agct_start(jvmtiEnv *jvmti, JNIEnv *jni, long long period_ns, int depth, const char **why);
void queue_agct_stop(void);

struct queue_agct_counters {
    unsigned long long enqueued, full, contended, batches, handled, walk_errors;
};
void queue_agct_counters(struct queue_agct_counters *out);

#endif
