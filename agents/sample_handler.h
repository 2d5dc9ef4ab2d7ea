/* The agent's sampling of one thread: its SIGPROF handler (modes signal and
 * queue), its queue handler and its set-up and tear-down (sample_handler.c). */
#ifndef ASGF_SAMPLE_HANDLER_H
#define ASGF_SAMPLE_HANDLER_H

#include <jvmti.h>
#include <ucontext.h>
#include "agent_config.h"
#include "exec.h"

/* Frames of a queue handler's walk kept for the verifier (queue_verify.c). */
#define VERIFY_FRAMES 16

/* Agent_OnLoad, before anything below. */
void sample_handler_init(const struct agent_config *cfg, const struct api *api, jvmtiEnv *jvmti);
int sample_handler_install(int signo);
/* Per-thread set-up and tear-down, on the thread itself. */
void sample_thread_start(JNIEnv *jni, int index);
void sample_thread_end(JNIEnv *jni);
/* Makes the case for one sample of thread `slot` ([handler-safe]). */
size_t sample_make_case(int slot, const ucontext_t *uc, struct case_prog *p, uint8_t *bytes);
/* [handler-safe] Accounts one sample of thread t (interval, outcome). */
void sample_note(const struct thread_info *t, const struct exec_outcome *o);
/* The top frames the last queue handler of thread `slot` saw, and its
 * jthread; 0 if none or it is being written. */
int sample_queue_snapshot(int slot, jthread *thread, jmethodID *frames, int max);

#endif
