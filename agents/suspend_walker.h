/* JVMTI suspended-thread walks beside the sampler (mode=thread suspend=1,
 * or jvmti_walk=1; suspend_walker.c). */
#ifndef ASGF_SUSPEND_WALKER_H
#define ASGF_SUSPEND_WALKER_H

#include <jvmti.h>

int suspend_walker_prepare(jvmtiEnv *jvmti); /* Agent_OnLoad: capabilities */
/* VMInit: one walk of every sampled thread each interval_ns. */
int suspend_walker_start(jvmtiEnv *jvmti, JNIEnv *jni, long long interval_ns);
void suspend_walker_stop(void);

#endif
