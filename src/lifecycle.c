/* Guarded calls outside a case (see lifecycle.h). */
#include <stdatomic.h>
#include "guard.h"
#include "lifecycle.h"

enum lc_op {
    LC_CAPABILITIES, LC_REGISTER_UNLOAD, LC_DEREGISTER_UNLOAD, LC_REGISTER_QUEUE, LC_DEREGISTER_QUEUE,
    LC_SET_PROCESSING, LC_REGISTER_MARK, LC_REMOVE_MARK, LC_WALK
};

/* One call: the operation, its arguments and its answer. */
struct lc_call {
    enum lc_op op;
    const struct api *api;
    JNIEnv *env;
    void *ptr;      /* queue, mark, or iterator */
    void *fn;       /* handler to register */
    void *arg;
    int size;       /* queue size, processing offer flag, walk limit */
    lc_frame_fn each;
    void *ctx;
    const char *state_op; /* the entry's name when it changes VM state (guard_state_op) */
    union {
        int i;
        void *p;
    } result;
};

static _Atomic unsigned long long n_faults;

/* [handler-safe] for LC_WALK */
static int walk(struct lc_call *c)
{
    ASGST_Frame f;
    int n = 0;
    while (n < c->size && c->api->next_frame(c->ptr, &f) == 1) {
        if (c->each) c->each(c->api, &f, n, c->ctx);
        n++;
    }
    return n;
}

static void run(void *arg)
{
    struct lc_call *c = arg;
    const struct api *a = c->api;
    /* A walk nested in a marked call (a handler the VM ran from inside it)
     * keeps the mark: a fault there jumps out of that half-done call. */
    const char *outer = guard_state_op(NULL);
    guard_state_op(c->state_op ? c->state_op : outer);
    switch (c->op) {
    case LC_CAPABILITIES: c->result.i = a->capabilities(); break;
    case LC_REGISTER_UNLOAD: a->register_class_unload_handler((ASGST_ClassUnloadHandler)c->fn, c->arg); break;
    case LC_DEREGISTER_UNLOAD: c->result.i = a->deregister_class_unload_handler((ASGST_ClassUnloadHandler)c->fn, c->arg); break;
    case LC_REGISTER_QUEUE:
        c->result.p = a->register_queue(c->env, c->size, 0, (ASGST_QueueHandler)c->fn, c->arg);
        break;
    case LC_DEREGISTER_QUEUE: (void)a->deregister_queue(c->env, c->ptr); break;
    case LC_SET_PROCESSING:
        a->set_on_queue_processing_start(c->ptr, 0, c->size, (ASGST_QueueProcessingHandler)c->fn, (void *)a);
        a->set_on_queue_processing_end(c->ptr, 0, !c->size, (ASGST_QueueProcessingHandler)c->fn, (void *)a);
        break;
    case LC_REGISTER_MARK: c->result.p = a->register_frame_mark(c->env, (ASGST_FrameMarkHandler)c->fn, 0, (void *)a); break;
    case LC_REMOVE_MARK: a->remove_frame_mark(c->ptr); break;
    case LC_WALK: c->result.i = walk(c); break;
    }
    guard_state_op(outer);
}

/* [handler-safe] Runs c guarded; 0, or -1 if it faulted (result untouched).
 * Inside a guarded call already (a handler the VM ran synchronously from
 * one of ours), that call's guard covers it. */
static int guarded(struct lc_call *c, const char *entry, const char *mode)
{
    struct guard_call gc = {c->api->name, entry, mode, NULL, 0, NULL, NULL, 0, 0};
    c->state_op = c->op == LC_CAPABILITIES || c->op == LC_WALK ? NULL : entry;
    int rc = guard_run(run, c, &gc, NULL);
    if (rc == GUARD_NESTED) run(c), rc = 0;
    if (rc > 0) atomic_fetch_add(&n_faults, 1);
    return rc > 0 ? -1 : 0;
}

int lc_capabilities(const struct api *api)
{
    struct lc_call c = {.op = LC_CAPABILITIES, .api = api};
    return guarded(&c, "capabilities", "lifecycle") ? 0 : c.result.i;
}

void lc_register_unload_handler(const struct api *api, ASGST_ClassUnloadHandler h, void *arg)
{
    if (!api->register_class_unload_handler) return;
    struct lc_call c = {.op = LC_REGISTER_UNLOAD, .api = api, .fn = (void *)h, .arg = arg};
    guarded(&c, "register_class_unload_handler", "lifecycle");
}

int lc_deregister_unload_handler(const struct api *api, ASGST_ClassUnloadHandler h, void *arg)
{
    if (!api->deregister_class_unload_handler) return 0;
    struct lc_call c = {.op = LC_DEREGISTER_UNLOAD, .api = api, .fn = (void *)h, .arg = arg};
    return guarded(&c, "deregister_class_unload_handler", "lifecycle") ? -1 : c.result.i != 0;
}

ASGST_Queue *lc_register_queue(const struct api *api, JNIEnv *env, int size, ASGST_QueueHandler h, void *arg)
{
    if (!api->register_queue) return NULL;
    struct lc_call c = {.op = LC_REGISTER_QUEUE, .api = api, .env = env, .fn = (void *)h, .arg = arg, .size = size};
    return guarded(&c, "register_queue", "lifecycle") ? NULL : c.result.p;
}

void lc_deregister_queue(const struct api *api, JNIEnv *env, ASGST_Queue *q)
{
    if (!q || !api->deregister_queue) return;
    struct lc_call c = {.op = LC_DEREGISTER_QUEUE, .api = api, .env = env, .ptr = q};
    guarded(&c, "deregister_queue", "lifecycle");
}

void lc_set_processing_handlers(const struct api *api, ASGST_Queue *q, int offer, ASGST_QueueProcessingHandler h)
{
    if (!q || !api->set_on_queue_processing_start || !api->set_on_queue_processing_end) return;
    struct lc_call c = {.op = LC_SET_PROCESSING, .api = api, .ptr = q, .fn = (void *)h, .size = offer};
    guarded(&c, "set_on_queue_processing", "lifecycle");
}

ASGST_FrameMark *lc_register_frame_mark(const struct api *api, JNIEnv *env, ASGST_FrameMarkHandler h)
{
    if (!api->register_frame_mark) return NULL;
    struct lc_call c = {.op = LC_REGISTER_MARK, .api = api, .env = env, .fn = (void *)h};
    return guarded(&c, "register_frame_mark", "lifecycle") ? NULL : c.result.p;
}

void lc_remove_frame_mark(const struct api *api, ASGST_FrameMark *m)
{
    if (!m || !api->remove_frame_mark) return;
    struct lc_call c = {.op = LC_REMOVE_MARK, .api = api, .ptr = m};
    guarded(&c, "remove_frame_mark", "lifecycle");
}

int lc_walk(const struct api *api, ASGST_Iterator *it, const char *where, int max, lc_frame_fn each, void *ctx)
{
    if (!it) return 0;
    struct lc_call c = {.op = LC_WALK, .api = api, .ptr = it, .size = max, .each = each, .ctx = ctx};
    return guarded(&c, where, "handler") ? -1 : c.result.i;
}

unsigned long long lc_faults(void) { return n_faults; }
