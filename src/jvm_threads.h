/*
 * Java threads as sampling targets: a JVMTI env of our own registers every
 * thread whose name matches a glob at ThreadStart (on that thread, so the
 * registry learns its tid and stack) and unregisters it at ThreadEnd.
 * Threads already running when this attaches are not seen: attach before
 * starting workers (Agent_OnLoad, or right after JNI_CreateJavaVM).
 */
#ifndef ASGF_JVM_THREADS_H
#define ASGF_JVM_THREADS_H

#include <jni.h>

/* Called on the new thread after it is registered / before unregistering. */
typedef void (*jvm_thread_hook)(JNIEnv *jni, const char *name, int index);

struct jvm_threads_config {
    const char *glob;       /* fnmatch patterns on the Java thread name, '|' between; NULL = all */
    jvm_thread_hook on_start, on_end;
};

/* Not handler-safe. 0 or -1 with a reason. The config is copied. */
int jvm_threads_attach(JavaVM *vm, const struct jvm_threads_config *cfg, const char **why);

/* Threads seen starting and ending, and those the glob kept. */
void jvm_threads_counts(long *started, long *ended, long *matched);



#include <jvmti.h>
/* Starts fn on a new JVMTI agent thread named `name` (a Java thread that
 * may call JVMTI and JNI). Live phase only (VMInit or later). 0 or -1. */
int jvm_agent_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, const char *name, jvmtiStartFunction fn, void *arg);
#endif
