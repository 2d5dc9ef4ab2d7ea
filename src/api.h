/*
 * One harness interface over two backends (docs/asgst-api.md):
 *   asgst - the JEP 435 prototype's own entry points, resolved from libjvm;
 *   agct  - our implementation of the same entry points over
 *           AsyncGetCallTrace and JVMTI, so harnesses run on any HotSpot.
 * Harnesses hold a `const struct api *` and never know which one it is.
 *
 * Every call that walks reports two codes: the ASGST-shaped return value and
 * `raw`, what the VM itself answered (the AGCT num_frames code for agct, the
 * same value for asgst). Statistics and triage use `raw`.
 *
 * Signal safety: entries marked [handler-safe] may be called from a signal
 * handler; the others allocate or call JVMTI.
 */
#ifndef ASGF_API_H
#define ASGF_API_H

#include <stdatomic.h>
#include "asgst.h"

enum api_kind { API_AUTO = 0, API_ASGST, API_AGCT };

struct api {
    const char *name;
    enum api_kind kind;

    /* [handler-safe] */
    int (*capabilities)(void);
    int (*run_with_iterator)(void *ucontext, int32_t options, ASGST_IteratorHandler fun, void *arg,
                             int *raw);
    int (*run_with_iterator_from_frame)(void *sp, void *fp, void *pc, int32_t options,
                                        ASGST_IteratorHandler fun, void *arg, int *raw);
    int (*next_frame)(ASGST_Iterator *it, ASGST_Frame *frame);
    void (*rewind_iterator)(ASGST_Iterator *it);
    int (*state)(ASGST_Iterator *it);
    int (*thread_state)(void);
    void (*get_method_info)(ASGST_Method method, ASGST_MethodInfo *info);
    void (*get_class_info)(ASGST_Class klass, ASGST_ClassInfo *info);
    ASGST_Class (*get_class)(ASGST_Method method);
    jmethodID (*method_to_jmethodid)(ASGST_Method method);

    /* not handler-safe */
    ASGST_Method (*jmethodid_to_method)(jmethodID id);

    /* Queue API (docs/asgst-api.md, section 1). NULL where the backend
     * lacks an entry point (asgst: a VM without it). */
    ASGST_Queue *(*register_queue)(JNIEnv *env, int size, int options, ASGST_QueueHandler handler,
                                   void *queue_arg);
    bool (*deregister_queue)(JNIEnv *env, ASGST_Queue *queue);
    int (*enqueue)(ASGST_Queue *queue, void *ucontext, void *arg);                 /* [handler-safe] */
    int (*get_enqueuable_element)(void *ucontext, ASGST_QueueElement *element);   /* [handler-safe] */
    ASGST_QueueElement *(*get_queue_element)(ASGST_Queue *queue, int n);          /* [handler-safe] */
    ASGST_QueueSizeInfo (*get_queue_size_info)(ASGST_Queue *queue);              /* [handler-safe] */
    void (*resize_queue)(ASGST_Queue *queue, int size);                            /* [handler-safe] */
    void (*set_on_queue_processing_start)(ASGST_Queue *queue, int options, bool offer_iterator,
                                          ASGST_QueueProcessingHandler h, void *arg);
    void (*set_on_queue_processing_end)(ASGST_Queue *queue, int options, bool offer_iterator,
                                        ASGST_QueueProcessingHandler h, void *arg);

    /* Method and class identity (the prototype marks all but the jclass
     * conversions signal safe). NULL where the backend has none. */
    jint (*get_method_id_num)(ASGST_Method method);                               /* [handler-safe] */
    int (*get_method_line_number_table)(ASGST_Method method, ASGST_MethodLineNumberEntry *entries,
                                        int length);                              /* [handler-safe] */
    jint (*get_method_line_number)(ASGST_Method method, jint bci);                /* [handler-safe], optional */
    jlong (*get_class_id_num)(ASGST_Class klass);                                 /* [handler-safe] */
    ASGST_Class (*jclass_to_class)(jclass klass);                                 /* [handler-safe] */
    jclass (*class_to_jclass)(ASGST_Class klass); /* makes a JNI local reference */
    void (*register_class_unload_handler)(ASGST_ClassUnloadHandler h, void *arg);
    bool (*deregister_class_unload_handler)(ASGST_ClassUnloadHandler h, void *arg); /* optional */

    /* Frame marks (capability ASGST_MARK_FRAME). */
    ASGST_FrameMark *(*register_frame_mark)(JNIEnv *env, ASGST_FrameMarkHandler h, int options, void *arg);
    void (*move_frame_mark)(ASGST_FrameMark *mark, void *new_sp);
    void *(*get_frame_mark_stack_pointer)(ASGST_FrameMark *mark);                 /* [handler-safe] */
    void (*remove_frame_mark)(ASGST_FrameMark *mark);

    /* Calls made through this table per entry point (enum
     * asgst_entry_point), or NULL when the backend does not count. */
    const _Atomic unsigned long long *calls;
};

/* Parses "auto", "asgst", "agct"; returns -1 for anything else. */
int api_kind_parse(const char *s, enum api_kind *out);

/*
 * Picks the backend. API_AUTO picks asgst when the running libjvm exports
 * RunWithIterator and NextFrame under either prefix, and no name only an
 * older snapshot has (whose shapes differ), else agct, saying so on stderr
 * when a prototype build was refused. Returns NULL and sets
 * *why when the requested backend cannot run here (asgst without symbols,
 * agct without AsyncGetCallTrace). Not handler-safe (dlsym).
 */
const struct api *api_select(enum api_kind kind, const char **why);

/* Writes a human-readable report of what the binding found (which symbols
 * under which prefix, capabilities) to fd. */
void api_report(const struct api *api, int fd);

/* Backends; each returns NULL and sets *why when it cannot run here. */
const struct api *api_asgst_bind(const char **why);
const struct api *api_agct_bind(const char **why);
/* Whether the running libjvm exports RunWithIterator under either prefix:
 * a prototype build, bound or not. Not handler-safe (dlsym). */
int api_asgst_exported(void);

/* asgst binding detail for api_report and tests: entry point i (enum
 * asgst_entry_point) by name, whether it was found, whether the header
 * lets it be absent. */
int api_asgst_symbol_count(int *found, const char **prefix);
const char *api_asgst_symbol_name(int i, int *present);
int api_asgst_symbol_optional(int i);
/* Name of entry point i, e.g. "GetMethodIdNum"; NULL out of range. */
const char *api_entry_point_name(int i);

/* Writes "api calls: Name=n ..." for every entry point called at least
 * once, and the bound ones never called, to fd. Not handler-safe. */
void api_report_calls(const struct api *api, int fd);

/* agct tuning: frames collected per walk, 1..AGCT_MAX_DEPTH (default 2048). */
#define AGCT_MAX_DEPTH 2048
void api_agct_set_depth(int depth);
/* [handler-safe] Per-thread override for the next walks; 0 = the default. */
void api_agct_set_thread_depth(int depth);

/* Test hook: agct walks write their frames to p instead of a stack buffer
 * (an invalid p plants a fault inside libjvm's frame filling); NULL stops. */
void api_agct_plant_bad_frames(void *p);

/* Hands fun an agct iterator over frames someone else collected (the
 * queue module's JVMTI walks). */
#include "agct.h"
void api_agct_run_over_frames(const ASGCT_CallFrame *frames, int n, int options, ASGST_IteratorHandler fun,
                              void *arg);


/* Human names of ASGST codes, e.g. "UNSAFE_STATE". */
const char *asgst_code_name(int code);
/* Name of a raw code as this backend's VM answers it: the AGCT code names
 * for agct ("unknown_java", and "unsupported" for an entry it lacks), the
 * ASGST names for asgst. */
const char *api_raw_code_name(const struct api *api, int raw);

#endif
