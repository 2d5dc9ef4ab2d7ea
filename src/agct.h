/*
 * AsyncGetCallTrace: exported by every HotSpot libjvm but declared in no
 * JDK header (docs/asgst-api.md, section 2).
 */
#ifndef ASGF_AGCT_H
#define ASGF_AGCT_H

#include <jni.h>

typedef struct {
    jint lineno;          /* bci, or -3 for a native method */
    jmethodID method_id;
} ASGCT_CallFrame;

typedef struct {
    JNIEnv *env_id;
    jint num_frames;      /* <= 0: one of the codes below */
    ASGCT_CallFrame *frames;
} ASGCT_CallTrace;

typedef void (*agct_fn)(ASGCT_CallTrace *trace, jint depth, void *ucontext);

#define AGCT_LINENO_NATIVE (-3)
#define AGCT_CODE_MIN (-10)

/* Resolves AsyncGetCallTrace from the running process; NULL if absent. */
agct_fn agct_resolve(void);

/* Name of an AGCT result code (num_frames <= 0), e.g. "unknown_java_state". */
const char *agct_code_name(int code);

#endif
