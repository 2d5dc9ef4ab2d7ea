/*
 * Backend asgst: the JEP 435 prototype's own entry points, resolved from
 * the running process with dlsym(RTLD_DEFAULT). The newest prototype
 * renamed ASGST_* to JFRLL_* with the same shapes; whichever prefix has
 * RunWithIterator wins, and all names are then taken with that prefix.
 * RunWithIterator and NextFrame are required (a prefix without NextFrame
 * gives way to the other), and a build that exports a name only older
 * snapshots have is refused; any other missing entry
 * point leaves its slot NULL and is reported (as "absent, optional" when
 * the header lets it be missing), not fatal.
 *
 * Every slot goes through a small wrapper that counts the call before
 * making it, so a campaign can show which entry points it reached.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "api.h"

#define EP(name) ASGST_EP_##name

#define NAME_OF(name, optional) #name,
static const char *const names[ASGST_EP__COUNT] = {ASGST_ENTRY_POINTS(NAME_OF)};
#undef NAME_OF
#define OPTIONAL_OF(name, optional) optional,
static const unsigned char optional_ep[ASGST_EP__COUNT] = {ASGST_ENTRY_POINTS(OPTIONAL_OF)};
#undef OPTIONAL_OF

static void *sym[ASGST_EP__COUNT];
static _Atomic unsigned long long calls[ASGST_EP__COUNT];
static const char *prefix;
static struct api asgst_api;

static const char *const prefixes[] = {"ASGST_", "JFRLL_"};

static void *lookup_name(const char *pfx, const char *name)
{
    char full[96];
    snprintf(full, sizeof full, "%s%s", pfx, name);
    return dlsym(RTLD_DEFAULT, full);
}

static void *lookup(const char *pfx, int i) { return lookup_name(pfx, names[i]); }

/* [handler-safe] */
static inline void count(int ep) { atomic_fetch_add_explicit(&calls[ep], 1, memory_order_relaxed); }

/* Wrappers: count, then call the resolved symbol with the slot's type.
 * All [handler-safe] as far as the wrapper goes; the callee decides. */
#define WRAP(field, ep, ret, params, args)                                                                   \
    static ret w_##field params                                                                              \
    {                                                                                                        \
        count(EP(ep));                                                                                       \
        return ((__typeof__(asgst_api.field))sym[EP(ep)]) args;                                              \
    }
#define WRAP_VOID(field, ep, params, args)                                                                   \
    static void w_##field params                                                                             \
    {                                                                                                        \
        count(EP(ep));                                                                                       \
        ((__typeof__(asgst_api.field))sym[EP(ep)]) args;                                                     \
    }

typedef int (*run_fn)(void *, int32_t, ASGST_IteratorHandler, void *);
typedef int (*run_frame_fn)(void *, void *, void *, int32_t, ASGST_IteratorHandler, void *);

/* [handler-safe] */
static int w_run(void *uc, int32_t options, ASGST_IteratorHandler fun, void *arg, int *raw)
{
    count(EP(RunWithIterator));
    int r = ((run_fn)sym[EP(RunWithIterator)])(uc, options, fun, arg);
    if (raw) *raw = r;
    return r;
}

/* [handler-safe] */
static int w_run_from_frame(void *sp, void *fp, void *pc, int32_t options, ASGST_IteratorHandler fun, void *arg,
                            int *raw)
{
    count(EP(RunWithIteratorFromFrame));
    int r = ((run_frame_fn)sym[EP(RunWithIteratorFromFrame)])(sp, fp, pc, options, fun, arg);
    if (raw) *raw = r;
    return r;
}

WRAP(capabilities, Capabilities, int, (void), ())
WRAP(next_frame, NextFrame, int, (ASGST_Iterator * it, ASGST_Frame *f), (it, f))
WRAP_VOID(rewind_iterator, RewindIterator, (ASGST_Iterator * it), (it))
WRAP(state, State, int, (ASGST_Iterator * it), (it))
WRAP(thread_state, ThreadState, int, (void), ())
WRAP_VOID(get_method_info, GetMethodInfo, (ASGST_Method m, ASGST_MethodInfo *i), (m, i))
WRAP_VOID(get_class_info, GetClassInfo, (ASGST_Class k, ASGST_ClassInfo *i), (k, i))
WRAP(get_class, GetClass, ASGST_Class, (ASGST_Method m), (m))
WRAP(method_to_jmethodid, MethodToJMethodID, jmethodID, (ASGST_Method m), (m))
WRAP(jmethodid_to_method, JMethodIDToMethod, ASGST_Method, (jmethodID id), (id))
WRAP(register_queue, RegisterQueue, ASGST_Queue *,
     (JNIEnv * env, int size, int options, ASGST_QueueHandler h, void *arg), (env, size, options, h, arg))
WRAP(deregister_queue, DeregisterQueue, bool, (JNIEnv * env, ASGST_Queue *q), (env, q))
WRAP(enqueue, Enqueue, int, (ASGST_Queue * q, void *uc, void *arg), (q, uc, arg))
WRAP(get_enqueuable_element, GetEnqueuableElement, int, (void *uc, ASGST_QueueElement *e), (uc, e))
WRAP(get_queue_element, GetQueueElement, ASGST_QueueElement *, (ASGST_Queue * q, int n), (q, n))
WRAP(get_queue_size_info, GetQueueSizeInfo, ASGST_QueueSizeInfo, (ASGST_Queue * q), (q))
WRAP_VOID(resize_queue, ResizeQueue, (ASGST_Queue * q, int size), (q, size))
WRAP_VOID(set_on_queue_processing_start, SetOnQueueProcessingStart,
          (ASGST_Queue * q, int o, bool it, ASGST_QueueProcessingHandler h, void *a), (q, o, it, h, a))
WRAP_VOID(set_on_queue_processing_end, SetOnQueueProcessingEnd,
          (ASGST_Queue * q, int o, bool it, ASGST_QueueProcessingHandler h, void *a), (q, o, it, h, a))
WRAP(get_method_id_num, GetMethodIdNum, jint, (ASGST_Method m), (m))
WRAP(get_method_line_number_table, GetMethodLineNumberTable, int,
     (ASGST_Method m, ASGST_MethodLineNumberEntry *e, int n), (m, e, n))
WRAP(get_method_line_number, GetMethodLineNumber, jint, (ASGST_Method m, jint bci), (m, bci))
WRAP(get_class_id_num, GetClassIdNum, jlong, (ASGST_Class k), (k))
WRAP(jclass_to_class, JClassToClass, ASGST_Class, (jclass k), (k))
WRAP(class_to_jclass, ClassToJClass, jclass, (ASGST_Class k), (k))
WRAP_VOID(register_class_unload_handler, RegisterClassUnloadHandler, (ASGST_ClassUnloadHandler h, void *a), (h, a))
WRAP(deregister_class_unload_handler, DeregisterClassUnloadHandler, bool, (ASGST_ClassUnloadHandler h, void *a),
     (h, a))
WRAP(register_frame_mark, RegisterFrameMark, ASGST_FrameMark *,
     (JNIEnv * env, ASGST_FrameMarkHandler h, int o, void *a), (env, h, o, a))
WRAP_VOID(move_frame_mark, MoveFrameMark, (ASGST_FrameMark * m, void *sp), (m, sp))
WRAP(get_frame_mark_stack_pointer, GetFrameMarkStackPointer, void *, (ASGST_FrameMark * m), (m))
WRAP_VOID(remove_frame_mark, RemoveFrameMark, (ASGST_FrameMark * m), (m))

static int zero_capabilities(void) { return 0; }

int api_asgst_exported(void)
{
    for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++)
        if (lookup(prefixes[p], EP(RunWithIterator))) return 1;
    return 0;
}

/* Names only an older snapshot exports. Such a build's neighbouring entry
 * points have other shapes than src/asgst.h (SetOnQueueProcessingStart
 * without offerIterator, GetQueueElement returning the element by value, a
 * one-argument RegisterClassUnloadHandler), so binding it by name would
 * make calls whose crashes triage would blame on the VM. */
static const char *const older_only[] = {"QueueSize", "EnqueueElement", "GetEnqueuablePC"};

const struct api *api_asgst_bind(const char **why)
{
    if (prefix) return &asgst_api;
    static char reason[320];
    int run_only = 0;
    for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes && !prefix; p++) {
        if (!lookup(prefixes[p], EP(RunWithIterator))) continue;
        if (lookup(prefixes[p], EP(NextFrame))) prefix = prefixes[p];
        else run_only = 1;
    }
    if (!prefix) {
        *why = run_only ? "RunWithIterator found but NextFrame missing (under both ASGST_ and JFRLL_)"
                        : "the running libjvm exports neither ASGST_RunWithIterator nor JFRLL_RunWithIterator "
                          "(not a JEP 435 prototype build)";
        return NULL;
    }
    for (size_t i = 0; i < sizeof older_only / sizeof *older_only; i++) {
        if (lookup_name(prefix, older_only[i])) {
            snprintf(reason, sizeof reason,
                     "the running libjvm exports %s%s: an older prototype snapshot whose entry points have other "
                     "shapes than the header this framework binds (docs/asgst-prototype.md)", prefix, older_only[i]);
            *why = reason;
            prefix = NULL;
            return NULL;
        }
    }
    for (int i = 0; i < ASGST_EP__COUNT; i++) sym[i] = lookup(prefix, i);
    struct api *a = &asgst_api;
    a->name = "asgst";
    a->kind = API_ASGST;
    a->calls = calls;
    a->run_with_iterator = w_run;
    a->run_with_iterator_from_frame = sym[EP(RunWithIteratorFromFrame)] ? w_run_from_frame : NULL;
    a->capabilities = sym[EP(Capabilities)] ? w_capabilities : zero_capabilities;
#define SLOT(field, ep) a->field = sym[EP(ep)] ? w_##field : NULL
    SLOT(next_frame, NextFrame);
    SLOT(rewind_iterator, RewindIterator);
    SLOT(state, State);
    SLOT(thread_state, ThreadState);
    SLOT(get_method_info, GetMethodInfo);
    SLOT(get_class_info, GetClassInfo);
    SLOT(get_class, GetClass);
    SLOT(method_to_jmethodid, MethodToJMethodID);
    SLOT(jmethodid_to_method, JMethodIDToMethod);
    SLOT(register_queue, RegisterQueue);
    SLOT(deregister_queue, DeregisterQueue);
    SLOT(enqueue, Enqueue);
    SLOT(get_enqueuable_element, GetEnqueuableElement);
    SLOT(get_queue_element, GetQueueElement);
    SLOT(get_queue_size_info, GetQueueSizeInfo);
    SLOT(resize_queue, ResizeQueue);
    SLOT(set_on_queue_processing_start, SetOnQueueProcessingStart);
    SLOT(set_on_queue_processing_end, SetOnQueueProcessingEnd);
    SLOT(get_method_id_num, GetMethodIdNum);
    SLOT(get_method_line_number_table, GetMethodLineNumberTable);
    SLOT(get_method_line_number, GetMethodLineNumber);
    SLOT(get_class_id_num, GetClassIdNum);
    SLOT(jclass_to_class, JClassToClass);
    SLOT(class_to_jclass, ClassToJClass);
    SLOT(register_class_unload_handler, RegisterClassUnloadHandler);
    SLOT(deregister_class_unload_handler, DeregisterClassUnloadHandler);
    SLOT(register_frame_mark, RegisterFrameMark);
    SLOT(move_frame_mark, MoveFrameMark);
    SLOT(get_frame_mark_stack_pointer, GetFrameMarkStackPointer);
    SLOT(remove_frame_mark, RemoveFrameMark);
#undef SLOT
    return a;
}

int api_asgst_symbol_count(int *found, const char **pfx)
{
    int n = 0;
    for (int i = 0; i < ASGST_EP__COUNT; i++) n += sym[i] != NULL;
    *found = n;
    *pfx = prefix;
    return ASGST_EP__COUNT;
}

const char *api_asgst_symbol_name(int i, int *present)
{
    if (i < 0 || i >= ASGST_EP__COUNT) return NULL;
    *present = sym[i] != NULL;
    return names[i];
}

int api_asgst_symbol_optional(int i) { return i >= 0 && i < ASGST_EP__COUNT && optional_ep[i]; }

const char *api_entry_point_name(int i) { return i >= 0 && i < ASGST_EP__COUNT ? names[i] : NULL; }
