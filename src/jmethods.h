/*
 * jmethodIDs for AsyncGetCallTrace and names for GetMethodInfo.
 *
 * AGCT answers -1 unless some JVMTI env has ClassLoad events enabled, and
 * it can only report methods whose jmethodIDs exist; profilers therefore
 * call GetClassMethods on every class at ClassPrepare and, once, on the
 * classes loaded before they started. jmethods_attach does both on a JVMTI
 * env of its own, so it coexists with any agent's env.
 *
 * Names are resolved through JVMTI outside signal handlers and cached; the
 * lookup is lock-free and handler-safe.
 */
#ifndef ASGF_JMETHODS_H
#define ASGF_JMETHODS_H

#include <jni.h>
#include <jvmti.h>

struct jclass_entry {
    char *name;    /* JVM signature, e.g. "Ljava/lang/Thread;" */
    char *generic; /* may be NULL */
    jint modifiers;
    jlong idnum;
};

struct jmethod_entry {
    jmethodID id;
    char *name, *signature, *generic; /* generic may be NULL */
    jint modifiers;
    jlong idnum;
    const struct jclass_entry *klass;
};

/* Creates our JVMTI env on vm, enables ClassLoad/ClassPrepare, primes the
 * classes already loaded (now, or at VMInit when called in Agent_OnLoad).
 * Not handler-safe. Returns 0 or -1 with a reason. */
int jmethods_attach(JavaVM *vm, const char **why);
jvmtiEnv *jmethods_jvmti(void);

/* [handler-safe] Cached entry or NULL. */
const struct jmethod_entry *jmethods_lookup(jmethodID id);
/* Cached entry, resolving it through JVMTI on a miss. Not handler-safe.
 * NULL if JVMTI does not know the method (e.g. its class was unloaded). */
const struct jmethod_entry *jmethods_resolve(jmethodID id);

#endif
