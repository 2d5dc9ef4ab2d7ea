/*
 * Whether a walk's caller/callee pair is a call the caller's bytecode makes
 * (agents/oracle_graph.c). Oracle thread only; not handler-safe.
 */
#ifndef ASGF_ORACLE_GRAPH_H
#define ASGF_ORACLE_GRAPH_H

#include <jvmti.h>
#include <stdio.h>

enum graph_verdict { GRAPH_OK, GRAPH_NO_EDGE, GRAPH_UNKNOWN };

/* `caller` stands at `bci` and its callee is `callee`; `why` says what the
 * caller calls there when that is not `callee`. */
enum graph_verdict graph_check_edge(jvmtiEnv *env, JNIEnv *jni, jmethodID caller, int bci, jmethodID callee,
                                    char *why, size_t whylen);

#endif
