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
#include <stddef.h>
#include <stdint.h>
#include <jni.h>

typedef struct _ASGST_Method *ASGST_Method;
typedef struct _ASGST_Class *ASGST_Class;
typedef struct _ASGST_Iterator ASGST_Iterator;
typedef struct _ASGST_Queue ASGST_Queue;
typedef struct _ASGST_FrameMark ASGST_FrameMark;

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
    /*
     * -16 and below belong to the implementation. The prototype's walker
     * uses these; the framework never returns any value of this space as
     * its own verdict (see struct exec_outcome's `fw`).
     */
    ASGST_WALKER_ERROR = -16,           /* generic walker failure */
    ASGST_WALKER_BAD_JAVA_FRAME = -17,  /* a Java frame it could not decipher */
    ASGST_WALKER_BAD_NATIVE_FRAME = -18,/* a native frame it could not decipher */
    ASGST_WALKER_ERROR_19 = -19,        /* reported, meaning not documented */
    ASGST_WALKER_NOT_WALKABLE = -22,    /* thread not walkable */
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
    jint idnum;         /* 32 bits: the prototype pads 4 bytes before class_idnum */
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

typedef struct {
    jint start_bci;
    jint line_number;
} ASGST_MethodLineNumberEntry;

typedef void (*ASGST_IteratorHandler)(ASGST_Iterator *iterator, void *arg);
typedef void (*ASGST_QueueHandler)(ASGST_Iterator *iterator, void *queue_arg, void *enqueue_arg);
typedef void (*ASGST_QueueProcessingHandler)(ASGST_Queue *queue, ASGST_Iterator *iterator, void *arg);
typedef void (*ASGST_ClassUnloadHandler)(ASGST_Class klass, ASGST_Method *methods, int count, bool redefined,
                                         void *arg);
typedef void (*ASGST_FrameMarkHandler)(ASGST_FrameMark *mark, ASGST_Iterator *iterator, void *arg);

/*
 * Every function of the prototype header, in header order, as
 * X(name without prefix, optional). `optional`: the newest snapshot declares
 * it but does not export it, so a binding without it is complete. The
 * `asgst` backend resolves each name under the ASGST_ or JFRLL_ prefix.
 */
#define ASGST_ENTRY_POINTS(X)                                                                               \
    X(Capabilities, 0) X(RunWithIterator, 0) X(RunWithIteratorFromFrame, 0) X(RewindIterator, 0)            \
    X(NextFrame, 0) X(State, 0) X(ThreadState, 0) X(MethodToJMethodID, 0) X(JMethodIDToMethod, 0)           \
    X(GetMethodInfo, 0) X(GetMethodIdNum, 0) X(GetMethodLineNumberTable, 0) X(GetMethodLineNumber, 1)       \
    X(GetClassInfo, 0) X(GetClassIdNum, 0) X(GetClass, 0) X(JClassToClass, 0) X(ClassToJClass, 0)          \
    X(RegisterClassUnloadHandler, 0) X(DeregisterClassUnloadHandler, 1) X(RegisterQueue, 0)                \
    X(DeregisterQueue, 0) X(SetOnQueueProcessingStart, 0) X(SetOnQueueProcessingEnd, 0) X(Enqueue, 0)      \
    X(GetEnqueuableElement, 0) X(GetQueueElement, 0) X(GetQueueSizeInfo, 0) X(ResizeQueue, 0)              \
    X(RegisterFrameMark, 0) X(MoveFrameMark, 0) X(GetFrameMarkStackPointer, 0) X(RemoveFrameMark, 0)

#define ASGST_EP_ENUM(name, optional) ASGST_EP_##name,
enum asgst_entry_point { ASGST_ENTRY_POINTS(ASGST_EP_ENUM) ASGST_EP__COUNT };
#undef ASGST_EP_ENUM

/* The layout table checked at compile time (asgst_abi.c) and by a test:
 * one row per struct (field NULL: the struct's size) and per field. */
struct asgst_layout_row {
    const char *type, *field;
    size_t offset, size;
};
extern const struct asgst_layout_row asgst_layout[];
extern const int asgst_layout_rows;

#endif
