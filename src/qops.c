/* Queue and frame-mark operations of a case (see qops.h). */
#include <stdatomic.h>
#include <string.h>
#include "guard.h"
#include "qops.h"
#include "regions.h"

struct qthread {
    ASGST_Queue *_Atomic queue;
    ASGST_FrameMark *_Atomic mark;
    _Atomic int mark_removed; /* removed by a qop: kept for a second remove, not removed again at the end */
    ASGST_QueueHandler handler;
    void *arg;
    int capacity;
    /* Handshake ops waiting: written by the signal handler when `waiting`
     * is 0, then waiting = n; taken by the queue handler, which sets it
     * back to 0 when done. */
    _Atomic int waiting;
    struct case_qop pending[CASE_MAX_QOPS];
    uint8_t pending_case[CASE_MAX_SIZE]; /* the case that asked for them, for the crash record */
    size_t pending_len;
};

static struct qthread qt[THREADS_MAX];
static _Atomic unsigned long long n_signal, n_handshake, n_dropped;

static int ok_slot(int slot) { return slot >= 0 && slot < THREADS_MAX; }

void qops_thread_start(int slot, ASGST_Queue *queue, ASGST_QueueHandler handler, void *arg, int capacity)
{
    if (!ok_slot(slot)) return;
    struct qthread *t = &qt[slot];
    t->handler = handler, t->arg = arg, t->capacity = capacity;
    atomic_store(&t->waiting, 0);
    atomic_store(&t->mark, NULL);
    atomic_store(&t->mark_removed, 0);
    atomic_store(&t->queue, queue);
}

void qops_thread_end(int slot, ASGST_Queue **queue, ASGST_FrameMark **mark)
{
    *queue = NULL, *mark = NULL;
    if (!ok_slot(slot)) return;
    *queue = atomic_exchange(&qt[slot].queue, NULL);
    *mark = atomic_exchange(&qt[slot].mark, NULL);
    if (atomic_exchange(&qt[slot].mark_removed, 0)) *mark = NULL;
}

ASGST_Queue *qops_queue(int slot) { return ok_slot(slot) ? atomic_load_explicit(&qt[slot].queue, memory_order_relaxed) : NULL; }
ASGST_FrameMark *qops_mark(int slot) { return ok_slot(slot) ? atomic_load(&qt[slot].mark) : NULL; }
void qops_set_queue(int slot, ASGST_Queue *queue)
{
    if (ok_slot(slot)) atomic_store(&qt[slot].queue, queue);
}

void qops_set_mark(int slot, ASGST_FrameMark *mark)
{
    if (!ok_slot(slot)) return;
    atomic_store(&qt[slot].mark_removed, 0);
    atomic_store(&qt[slot].mark, mark);
}

/* [handler-safe] */
static void signal_op(const struct api *api, int slot, const struct case_qop *o, void *uc)
{
    ASGST_Queue *q = qops_queue(slot);
    switch (o->op) {
    case QOP_ENQUEUE:
        if (api->enqueue && q) (void)api->enqueue(q, uc, NULL);
        break;
    case QOP_ENQUEUE_FOREIGN: {
        const struct thread_info *other = threads_other(threads_gettid(), (unsigned)o->value);
        ASGST_Queue *oq = other ? qops_queue(threads_slot(other)) : NULL;
        if (api->enqueue && oq) (void)api->enqueue(oq, uc, NULL);
        break;
    }
    case QOP_GET_ELEMENT:
        if (api->get_queue_element && q) {
            ASGST_QueueElement *e = api->get_queue_element(q, (int)o->value);
            if (e) e->arg = (void *)(uintptr_t)o->value;
        }
        break;
    case QOP_SIZE_INFO:
        if (api->get_queue_size_info && q) (void)api->get_queue_size_info(q);
        break;
    case QOP_RESIZE:
        if (api->resize_queue && q) api->resize_queue(q, (int)o->value);
        break;
    case QOP_MARK_GET_SP: {
        ASGST_FrameMark *m = qops_mark(slot);
        if (api->get_frame_mark_stack_pointer && m) (void)api->get_frame_mark_stack_pointer(m);
        break;
    }
    default:
        return;
    }
    atomic_fetch_add_explicit(&n_signal, 1, memory_order_relaxed);
}

void qops_run_signal(const struct api *api, int slot, const struct case_prog *p, void *uc, const uint8_t *bytes,
                     size_t len)
{
    if (!p->nqop || !ok_slot(slot)) return;
    struct qthread *t = &qt[slot];
    /* The handshake half first: a signal op that faults must not lose it. */
    int later = 0;
    for (int i = 0; i < p->nqop; i++) later += case_qop_at_handshake(p->qop[i].op);
    if (later && atomic_load(&t->waiting)) {
        atomic_fetch_add_explicit(&n_dropped, 1, memory_order_relaxed);
    } else if (later) {
        int n = 0;
        for (int i = 0; i < p->nqop; i++)
            if (case_qop_at_handshake(p->qop[i].op)) t->pending[n++] = p->qop[i];
        t->pending_len = bytes && len <= CASE_MAX_SIZE ? len : 0;
        if (t->pending_len) memcpy(t->pending_case, bytes, len);
        atomic_store(&t->waiting, n);
    }
    for (int i = 0; i < p->nqop; i++)
        if (!case_qop_at_handshake(p->qop[i].op)) signal_op(api, slot, &p->qop[i], uc);
}

static void on_mark(ASGST_FrameMark *mark, ASGST_Iterator *it, void *arg)
{
    (void)mark, (void)it, (void)arg;
}

static void on_processing(ASGST_Queue *q, ASGST_Iterator *it, void *arg) { (void)q, (void)it, (void)arg; }

/* The sp the mark moves to (see FORMAT.md, mark_move). */
static void *mark_target(const struct api *api, ASGST_Iterator *it, int64_t v)
{
    ASGST_Frame f;
    void *sp = NULL;
    if (v == -1) return NULL;
    if (v == -3) {
        const struct thread_info *other = threads_other(threads_gettid(), 0);
        return other ? (void *)(other->stack_hi - 256) : NULL;
    }
    if (api->rewind_iterator) api->rewind_iterator(it);
    for (int64_t k = 0; k <= (v < 0 ? 0 : v) && api->next_frame(it, &f) == 1; k++) sp = f.sp;
    return v == -2 && sp ? (char *)sp + 8 : sp;
}

static void handshake_op(const struct api *api, int slot, const struct case_qop *o, ASGST_Iterator *it)
{
    struct qthread *t = &qt[slot];
    ASGST_Queue *q = qops_queue(slot);
    ASGST_FrameMark *m = qops_mark(slot);
    ASGST_Frame f;
    switch (o->op) {
    case QOP_SET_START:
    case QOP_CLEAR_START:
        if (api->set_on_queue_processing_start && q)
            api->set_on_queue_processing_start(q, 0, o->value & 1, o->op == QOP_SET_START ? on_processing : NULL, NULL);
        break;
    case QOP_SET_END:
    case QOP_CLEAR_END:
        if (api->set_on_queue_processing_end && q)
            api->set_on_queue_processing_end(q, 0, o->value & 1, o->op == QOP_SET_END ? on_processing : NULL, NULL);
        break;
    case QOP_DEREGISTER:
        if (api->deregister_queue && q) api->deregister_queue(NULL, q); /* the queue stays ours: enqueues go on */
        break;
    case QOP_REREGISTER:
        if (api->register_queue && api->kind == API_ASGST && t->handler) {
            ASGST_Queue *nq = api->register_queue(NULL, t->capacity, 0, t->handler, t->arg);
            if (nq) {
                atomic_store(&t->queue, nq);
                if (q && api->deregister_queue) api->deregister_queue(NULL, q);
            }
        }
        break;
    case QOP_MARK_REGISTER:
        if (api->register_frame_mark && (!m || atomic_load(&t->mark_removed)))
            qops_set_mark(slot, api->register_frame_mark(NULL, on_mark, 0, NULL));
        break;
    case QOP_MARK_MOVE:
        if (api->move_frame_mark && m && it) api->move_frame_mark(m, mark_target(api, it, o->value));
        break;
    case QOP_MARK_REMOVE:
        /* The mark stays known here: a second remove is the prototype's
         * use after free, on purpose. */
        if (api->remove_frame_mark && m) {
            atomic_store(&t->mark_removed, 1);
            api->remove_frame_mark(m);
        }
        break;
    case QOP_PAST_END:
        if (!it) break;
        while (api->next_frame(it, &f) == 1)
            ;
        (void)api->next_frame(it, &f);
        if (api->state) (void)api->state(it);
        if (api->rewind_iterator) api->rewind_iterator(it);
        break;
    default:
        return;
    }
    atomic_fetch_add_explicit(&n_handshake, 1, memory_order_relaxed);
}

struct handshake {
    const struct api *api;
    int slot, n;
    struct case_qop ops[CASE_MAX_QOPS];
    ASGST_Iterator *it;
};

static void run_ops(void *arg)
{
    struct handshake *h = arg;
    for (int i = 0; i < h->n; i++) handshake_op(h->api, h->slot, &h->ops[i], h->it);
}

int qops_run_handshake(const struct api *api, int slot, ASGST_Iterator *it)
{
    if (!ok_slot(slot) || !atomic_load(&qt[slot].waiting)) return 0;
    struct qthread *t = &qt[slot];
    static _Thread_local uint8_t bytes[CASE_MAX_SIZE];
    struct handshake h = {api, slot, atomic_load(&t->waiting), {{0, 0}}, it};
    memcpy(h.ops, t->pending, (size_t)h.n * sizeof h.ops[0]);
    size_t len = t->pending_len;
    memcpy(bytes, t->pending_case, len);
    atomic_store(&t->waiting, 0); /* before running: a caught fault must not leave them waiting */
    struct guard_call gc = {api->name, "qop_handshake", "queue", bytes, len, NULL, NULL, 0, 0};
    guard_run(run_ops, &h, &gc, NULL);
    return h.n;
}

void qops_counters(struct qops_counters *o)
{
    o->signal_ops = n_signal, o->handshake_ops = n_handshake, o->handshake_dropped = n_dropped;
}
