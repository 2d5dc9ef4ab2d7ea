/*
 * oracle=1: AsyncGetCallTrace walks of held threads compared with JVMTI
 * GetStackTrace at the same point (agents/oracle.c).
 */
#ifndef ASGF_ORACLE_H
#define ASGF_ORACLE_H

#include <stdio.h>
#include <jvmti.h>

/* Agent_OnLoad, after the excuse rules (oracle_rules.h): the capability
 * to suspend threads. 0 or -1. */
int oracle_prepare(jvmtiEnv *jvmti);
/* The signal the oracle walks a thread with (a real-time signal). */
int oracle_walk_signal(void);
/* VMInit: the signal handler and the oracle thread. Mismatch records go to
 * out; call_graph: also check walks of running threads against their
 * callers' bytecode (oracle_graph.c). */
int oracle_start(jvmtiEnv *jvmti, JNIEnv *jni, const char *out, int call_graph, const char **why);
void oracle_stop(void);
/* On each sampled thread, at its start and end. */
void oracle_thread_start(JNIEnv *jni);
void oracle_thread_end(JNIEnv *jni);
/* Counts, per kind of mismatch and per rule: stderr lines and oracle.json. */
void oracle_report(FILE *f);
int oracle_write_json(const char *path);

#endif
