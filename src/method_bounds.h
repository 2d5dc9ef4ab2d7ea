/*
 * The bytecode extent of every method the VM has prepared, by jmethodID:
 * what a walk's frame must fit (a bci inside the method's code, a native
 * frame only at a native method). The oracle's consistency check of
 * sampled walks reads it from the signal handler; JVMTI fills it at
 * ClassPrepare (jmethods.c), so no JVMTI call is ever made in a handler.
 */
#ifndef ASGF_METHOD_BOUNDS_H
#define ASGF_METHOD_BOUNDS_H

#include <jni.h>
#include <jvmti.h>

enum {
    METHOD_NATIVE = -1,  /* a native method: no bytecode */
    METHOD_NO_CODE = -2, /* abstract, or JVMTI gave no location range */
    METHOD_UNKNOWN = -3, /* not learned (yet) */
    METHOD_INVALID = -4, /* JVMTI knows no such method */
};

/* Not handler-safe. Turns learning on: from then on jmethods.c hands every
 * prepared class's methods to method_bounds_learn. */
void method_bounds_enable(void);
int method_bounds_enabled(void);

/* Not handler-safe. Asks JVMTI for each method's extent and stores it. */
void method_bounds_learn(jvmtiEnv *env, const jmethodID *methods, int count);

/* [handler-safe] Whether the table stopped learning (786,432 methods,
 * three-quarters of its slots: a workload that loads classes for long
 * gets there),
 * and how many methods it holds. A method unknown while the table is full
 * says nothing. */
int method_bounds_full(void);
long method_bounds_count(void);

/* [handler-safe] The stored extent: a code length >= 0, or one of the
 * negative values above (never METHOD_INVALID). */
int method_bounds_get(jmethodID id);

/* Not handler-safe. Asks JVMTI now (the method may have been redefined
 * since, or never learned), stores and returns the answer. id must be a
 * jmethodID slot the VM handed out (JVMTI dereferences it). */
int method_bounds_fresh(jvmtiEnv *env, jmethodID id);

#endif
