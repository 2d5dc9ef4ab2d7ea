/* A sampled thread's queue and frame mark over its life (see queue_ops.c). */
#ifndef ASGF_QUEUE_OPS_H
#define ASGF_QUEUE_OPS_H

#include <stdio.h>
#include "agent_config.h"

/* Agent_OnLoad, before the first thread starts. */
void queue_ops_init(const struct agent_config *cfg, const struct api *api);
/* On the thread, at its start: its queue (returned; NULL if none), its
 * processing handlers and frame mark, as the queue_ops= groups ask. */
ASGST_Queue *queue_ops_thread_start(JNIEnv *jni, int slot, ASGST_QueueHandler handler, void *arg);
/* On the thread, at its end: the mark removed (now and then twice) and the
 * queue deregistered, whichever the thread's cases left it with. */
void queue_ops_thread_end(JNIEnv *jni, int slot);

/* What the thread's cases did to queues and marks, by qop name. */
void queue_ops_report(FILE *f);
void queue_ops_json(FILE *f);

#endif
