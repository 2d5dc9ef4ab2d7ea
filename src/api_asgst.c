/*
 * Backend asgst: the JEP 435 prototype's own entry points, resolved from
 * the running process with dlsym(RTLD_DEFAULT). The newest prototype
 * renamed ASGST_* to JFRLL_* with the same shapes; whichever prefix has
 * RunWithIterator wins, and all names are then taken with that prefix.
 * RunWithIterator and NextFrame are required; a missing optional entry
 * point leaves its slot NULL and is reported, not fatal.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "api.h"

typedef int (*run_fn)(void *, int32_t, ASGST_IteratorHandler, void *);
typedef int (*run_frame_fn)(void *, void *, void *, int32_t, ASGST_IteratorHandler, void *);

enum {
    S_CAPABILITIES, S_RUN, S_RUN_FROM_FRAME, S_NEXT_FRAME, S_REWIND, S_STATE, S_THREAD_STATE,
    S_METHOD_INFO, S_CLASS_INFO, S_GET_CLASS, S_M2J, S_J2M, S_REGISTER_QUEUE, S_DEREGISTER_QUEUE,
    S_ENQUEUE, S_ENQUEUABLE, S_QUEUE_ELEMENT, S_QUEUE_SIZE, S_RESIZE, S_ON_START, S_ON_END, S__COUNT
};

static const char *const names[S__COUNT] = {
    "Capabilities", "RunWithIterator", "RunWithIteratorFromFrame", "NextFrame", "RewindIterator",
    "State", "ThreadState", "GetMethodInfo", "GetClassInfo", "GetClass", "MethodToJMethodID",
    "JMethodIDToMethod", "RegisterQueue", "DeregisterQueue", "Enqueue", "GetEnqueuableElement",
    "GetQueueElement", "GetQueueSizeInfo", "ResizeQueue", "SetOnQueueProcessingStart",
    "SetOnQueueProcessingEnd",
};

static void *sym[S__COUNT];
static const char *prefix;
static struct api asgst_api;

static void *lookup(const char *pfx, int i)
{
    char name[96];
    snprintf(name, sizeof name, "%s%s", pfx, names[i]);
    return dlsym(RTLD_DEFAULT, name);
}

/* [handler-safe] */
static int run(void *uc, int32_t options, ASGST_IteratorHandler fun, void *arg, int *raw)
{
    int r = ((run_fn)sym[S_RUN])(uc, options, fun, arg);
    if (raw) *raw = r;
    return r;
}

/* [handler-safe] */
static int run_from_frame(void *sp, void *fp, void *pc, int32_t options, ASGST_IteratorHandler fun, void *arg,
                          int *raw)
{
    int r = ((run_frame_fn)sym[S_RUN_FROM_FRAME])(sp, fp, pc, options, fun, arg);
    if (raw) *raw = r;
    return r;
}

static int zero_capabilities(void) { return 0; }

const struct api *api_asgst_bind(const char **why)
{
    if (prefix) return &asgst_api;
    static const char *const prefixes[] = {"ASGST_", "JFRLL_"};
    for (size_t p = 0; p < 2 && !prefix; p++)
        if (lookup(prefixes[p], S_RUN)) prefix = prefixes[p];
    if (!prefix) {
        *why = "the running libjvm exports neither ASGST_RunWithIterator nor JFRLL_RunWithIterator "
               "(not a JEP 435 prototype build)";
        return NULL;
    }
    for (int i = 0; i < S__COUNT; i++) sym[i] = lookup(prefix, i);
    if (!sym[S_NEXT_FRAME]) {
        *why = "RunWithIterator found but NextFrame missing";
        prefix = NULL;
        return NULL;
    }
    struct api *a = &asgst_api;
    a->name = "asgst";
    a->kind = API_ASGST;
    a->capabilities = sym[S_CAPABILITIES] ? (int (*)(void))sym[S_CAPABILITIES] : zero_capabilities;
    a->run_with_iterator = run;
    a->run_with_iterator_from_frame = sym[S_RUN_FROM_FRAME] ? run_from_frame : NULL;
#define SLOT(field, idx) a->field = (__typeof__(a->field))sym[idx]
    SLOT(next_frame, S_NEXT_FRAME);
    SLOT(rewind_iterator, S_REWIND);
    SLOT(state, S_STATE);
    SLOT(thread_state, S_THREAD_STATE);
    SLOT(get_method_info, S_METHOD_INFO);
    SLOT(get_class_info, S_CLASS_INFO);
    SLOT(get_class, S_GET_CLASS);
    SLOT(method_to_jmethodid, S_M2J);
    SLOT(jmethodid_to_method, S_J2M);
    SLOT(register_queue, S_REGISTER_QUEUE);
    SLOT(deregister_queue, S_DEREGISTER_QUEUE);
    SLOT(enqueue, S_ENQUEUE);
    SLOT(get_enqueuable_element, S_ENQUEUABLE);
    SLOT(get_queue_element, S_QUEUE_ELEMENT);
    SLOT(get_queue_size_info, S_QUEUE_SIZE);
    SLOT(resize_queue, S_RESIZE);
    SLOT(set_on_queue_processing_start, S_ON_START);
    SLOT(set_on_queue_processing_end, S_ON_END);
#undef SLOT
    return a;
}

int api_asgst_symbol_count(int *found, const char **pfx)
{
    int n = 0;
    for (int i = 0; i < S__COUNT; i++) n += sym[i] != NULL;
    *found = n;
    *pfx = prefix;
    return S__COUNT;
}

const char *api_asgst_symbol_name(int i, int *present)
{
    if (i < 0 || i >= S__COUNT) return NULL;
    *present = sym[i] != NULL;
    return names[i];
}
