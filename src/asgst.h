/*
 * Our own C declarations of the JEP 435 prototype's ASGST interface
 * (docs/asgst-api.md, section 1). The prototype header is C++-only; these
 * declarations follow its names, values and shapes so that the `asgst`
 * backend can call the real symbols and the `agct` backend can stand in
 * for them. Nothing in this project exports these names: if it did,
 * api=auto would find our own copy instead of the VM's.
 */
#ifndef ASGF_ASGST_H
#define ASGF_ASGST_H

#include <stdbool.h>
#include <stdint.h>
#include <jni.h>

typedef struct _ASGST_Method *ASGST_Method;
typedef struct _ASGST_Class *ASGST_Class;
typedef struct _ASGST_Iterator ASGST_Iterator;
typedef struct _ASGST_Queue ASGST_Queue;

enum ASGST_Capabilities {
    ASGST_REGISTER_QUEUE = 1,
    ASGST_MARK_FRAME = 2,
};

enum ASGST_FrameTypeId {
    ASGST_FRAME_JAVA = 1,
    ASGST_FRAME_JAVA_INLINED = 2,
    ASGST_FRAME_JAVA_NATIVE = 3,
    ASGST_FRAME_NON_JAVA = 4,
};

enum ASGST_Options {
    ASGST_INCLUDE_NON_JAVA_FRAMES = 1,
    ASGST_END_ON_FIRST_JAVA_FRAME = 2,
};

enum ASGST_TraceKind {
    ASGST_JAVA_TRACE = 1,
    ASGST_NON_JAVA_TRACE = 2,
};

enum ASGST_Error {
    ASGST_NO_FRAME = 0,
    ASGST_NO_THREAD = -1,
    ASGST_THREAD_EXIT = -2,
    ASGST_UNSAFE_STATE = -3,
    ASGST_NO_TOP_JAVA_FRAME = -4,
    ASGST_ENQUEUE_NO_QUEUE = -5,
    ASGST_ENQUEUE_FULL_QUEUE = -6,
    ASGST_ENQUEUE_OTHER_ERROR = -7,
    /* Values below -16 are implementation specific; ours: */
    ASGST_AGCT_NO_CLASS_LOAD = -17, /* AGCT -1: ClassLoad events not enabled */
    ASGST_AGCT_UNSUPPORTED = -18,   /* entry point not available in this backend */
};

typedef struct {
    uint8_t type;       /* ASGST_FrameTypeId, 0 on error */
    int comp_level;     /* 0 interpreted, -1 unknown, >1 JIT tier */
    int bci;            /* -1 if none */
    ASGST_Method method;
    void *pc;
    void *sp;           /* may be NULL */
    void *fp;           /* may be NULL */
} ASGST_Frame;

typedef struct {
    ASGST_Class klass;
    char *method_name;
    jint method_name_length;
    char *signature;
    jint signature_length;
    char *generic_signature;
    jint generic_signature_length;
    jint modifiers;
    jlong idnum;
    jlong class_idnum;
} ASGST_MethodInfo;

typedef struct {
    char *class_name;
    jint class_name_length;
    char *generic_class_name;
    jint generic_class_name_length;
    jint modifiers;
    jlong idnum;
} ASGST_ClassInfo;

typedef struct {
    void *pc;
    void *fp;
    void *sp;
    void *arg;
} ASGST_QueueElement;

typedef struct {
    jint size;
    jint capacity;
    jint attempts;
} ASGST_QueueSizeInfo;

typedef void (*ASGST_IteratorHandler)(ASGST_Iterator *iterator, void *arg);
typedef void (*ASGST_QueueHandler)(ASGST_Iterator *iterator, void *queue_arg, void *enqueue_arg);
typedef void (*ASGST_QueueProcessingHandler)(ASGST_Queue *queue, ASGST_Iterator *iterator, void *arg);

#endif
