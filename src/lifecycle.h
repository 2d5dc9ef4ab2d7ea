/*
 * The API calls the framework makes outside a case: at start-up and
 * shutdown, at a thread's start and end, and inside the handlers the VM
 * calls back (queue elements, processing start and end, frame marks,
 * class unloading). A walker bug is as likely in these as in a case's
 * call, so each runs under the guard like one: a fault is caught,
 * recorded (entry: the call, mode: "lifecycle" or "handler") and counted,
 * and the framework goes on as if the call had failed (a queue that
 * faulted in RegisterQueue is no queue). Every harness and the agent make
 * these calls through here and nowhere else.
 */
#ifndef ASGF_LIFECYCLE_H
#define ASGF_LIFECYCLE_H

#include "api.h"

/* The VM's capabilities; 0 if the call faulted. */
int lc_capabilities(const struct api *api);
void lc_register_unload_handler(const struct api *api, ASGST_ClassUnloadHandler h, void *arg);
/* 1 if deregistered, 0 if not (or the entry is absent), -1 on a fault. */
int lc_deregister_unload_handler(const struct api *api, ASGST_ClassUnloadHandler h, void *arg);

ASGST_Queue *lc_register_queue(const struct api *api, JNIEnv *env, int size, ASGST_QueueHandler h, void *arg);
void lc_deregister_queue(const struct api *api, JNIEnv *env, ASGST_Queue *q);
/* Both processing handlers at once (NULL clears them); offer: the start
 * handler gets an iterator, the end handler the opposite. Processing and
 * frame-mark handlers get the api as their arg (qops_on_processing,
 * qops_on_mark expect it). */
void lc_set_processing_handlers(const struct api *api, ASGST_Queue *q, int offer, ASGST_QueueProcessingHandler h);
ASGST_FrameMark *lc_register_frame_mark(const struct api *api, JNIEnv *env, ASGST_FrameMarkHandler h);
void lc_remove_frame_mark(const struct api *api, ASGST_FrameMark *m);

/* [handler-safe] Walks an iterator the VM handed to one of our handlers
 * (`where`: "queue_handler", "processing_handler", "mark_handler"), at
 * most max frames; each frame goes to each(), if given, inside the same
 * guarded call (it may make API calls of its own). Returns the frames
 * walked, or -1 if a fault ended the walk. */
typedef void (*lc_frame_fn)(const struct api *api, const ASGST_Frame *f, int index, void *ctx);
int lc_walk(const struct api *api, ASGST_Iterator *it, const char *where, int max, lc_frame_fn each, void *ctx);

/* Faults caught in these calls (they are in the guard's count too). */
unsigned long long lc_faults(void);

#endif
