/* verify=1 in mode=queue: queue handler stacks compared with JVMTI
 * GetStackTrace (queue_verify.c). */
#ifndef ASGF_QUEUE_VERIFY_H
#define ASGF_QUEUE_VERIFY_H

#include <stdio.h>
#include <jvmti.h>

int queue_verify_start(jvmtiEnv *jvmti, JNIEnv *jni);
void queue_verify_stop(void);
void queue_verify_report(FILE *f);

#endif
