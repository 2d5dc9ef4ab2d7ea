/* Queue and frame-mark operations of a case (see qops.h). */
#include <stdatomic.h>
#include <string.h>
#include "callback_gate.h"
#include "guard.h"
#include "info_calls.h"
#include "lifecycle.h"
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
    _Atomic unsigned long long lots_done; /* handshake lots run to their end (faulted or not) */
};

static struct qthread qt[THREADS_MAX];
static _Atomic unsigned long long n_signal, n_handshake, n_dropped, n_marks_fired;
static _Atomic unsigned long long n_op[QOP__COUNT];

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

unsigned long long qops_lots_done(int slot) { return ok_slot(slot) ? atomic_load(&qt[slot].lots_done) : 0; }

int qops_handshake_free(int slot) { return ok_slot(slot) && !atomic_load(&qt[slot].waiting); }

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

/* [handler-safe] Runs `call`, a VM call that changes queue, handler or
 * frame-mark state, under guard_state_op's mark named for the operation: a
 * fault inside it may leave that state half-changed. Only the call: what an
 * operation walks first (mark_move's target) changes nothing. Enqueue is not
 * marked: every queue-mode case calls it, so it would taint each process at
 * its first fault, and whether a fault there can leave a push half-done is
 * not known from here. */
#define STATE_CALL(op, call)                                       \
    do {                                                           \
        const char *outer_ = guard_state_op(case_qop_name(op));    \
        call;                                                      \
        guard_state_op(outer_);                                    \
    } while (0)

/* [handler-safe] Runs one signal-half operation; it counts only if it
 * reached the API: an operation on a queue or mark the thread does not have
 * (signal mode registers neither) is skipped, not called. */
static void signal_op(const struct api *api, int slot, const struct case_qop *o, void *uc)
{
    ASGST_Queue *q = qops_queue(slot);
    int called = 0;
    switch (o->op) {
    case QOP_ENQUEUE:
        if ((called = api->enqueue && q)) (void)api->enqueue(q, uc, NULL);
        break;
    case QOP_ENQUEUE_FOREIGN: {
        const struct thread_info *other = threads_other(threads_gettid(), (unsigned)o->value);
        ASGST_Queue *oq = other ? qops_queue(threads_slot(other)) : NULL;
        if ((called = api->enqueue && oq)) (void)api->enqueue(oq, uc, NULL);
        break;
    }
    case QOP_GET_ELEMENT:
        if ((called = api->get_queue_element && q)) {
            ASGST_QueueElement *e = api->get_queue_element(q, (int)o->value);
            if (e) e->arg = (void *)(uintptr_t)o->value;
        }
        break;
    case QOP_SIZE_INFO:
        if ((called = api->get_queue_size_info && q)) (void)api->get_queue_size_info(q);
        break;
    case QOP_RESIZE:
        if ((called = api->resize_queue && q)) STATE_CALL(o->op, api->resize_queue(q, (int)o->value));
        break;
    case QOP_MARK_GET_SP: {
        ASGST_FrameMark *m = qops_mark(slot);
        if ((called = api->get_frame_mark_stack_pointer && m)) (void)api->get_frame_mark_stack_pointer(m);
        break;
    }
    case QOP_ENQUEUABLE:
        if ((called = api->get_enqueuable_element && uc)) {
            ASGST_QueueElement e;
            (void)api->get_enqueuable_element(uc, &e);
        }
        break;
    default:
        return;
    }
    if (!called) return;
    atomic_fetch_add_explicit(&n_signal, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_op[o->op], 1, memory_order_relaxed);
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

/* The handlers a queue or mark gets here walk the iterator they are handed:
 * the prototype builds it from the thread's state at that moment, a path
 * the entry calls do not take. */
void qops_on_mark(ASGST_FrameMark *mark, ASGST_Iterator *it, void *arg)
{
    (void)mark;
    const struct api *api = arg;
    if (!api || !gate_enter()) return;
    atomic_fetch_add_explicit(&n_marks_fired, 1, memory_order_relaxed);
    lc_walk(api, it, "mark_handler", 64, NULL, NULL);
    gate_leave();
}

void qops_on_processing(ASGST_Queue *q, ASGST_Iterator *it, void *arg)
{
    (void)q;
    const struct api *api = arg;
    if (!api || !it || !gate_enter()) return;
    lc_walk(api, it, "processing_handler", 1, NULL, NULL);
    gate_leave();
}

static void walk_rest(ASGST_Iterator *it, void *arg)
{
    const struct api *api = arg;
    ASGST_Frame f;
    for (int n = 0; n < 64 && api->next_frame(it, &f) == 1; n++)
        ;
}

/* The handler's frame k (k clamped to the frames there are); 0: none. */
static int frame_at(const struct api *api, ASGST_Iterator *it, int64_t k, ASGST_Frame *out)
{
    ASGST_Frame f;
    int got = 0;
    if (api->rewind_iterator) api->rewind_iterator(it);
    for (int64_t i = 0; i <= k && api->next_frame(it, &f) == 1; i++) *out = f, got = 1;
    return got;
}

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
    if (frame_at(api, it, v < 0 ? 0 : v, &f)) sp = f.sp;
    return v == -2 && sp ? (char *)sp + 8 : sp;
}

static void handshake_op(const struct api *api, int slot, const struct case_qop *o, ASGST_Iterator *it)
{
    struct qthread *t = &qt[slot];
    ASGST_Queue *q = qops_queue(slot);
    ASGST_FrameMark *m = qops_mark(slot);
    ASGST_Frame f;
    int called = 0; /* counted only if it reached the API, as signal_op's */
    switch (o->op) {
    case QOP_SET_START:
    case QOP_CLEAR_START:
        if ((called = api->set_on_queue_processing_start && q))
            STATE_CALL(o->op, api->set_on_queue_processing_start(
                                  q, 0, o->value & 1, o->op == QOP_SET_START ? qops_on_processing : NULL, (void *)api));
        break;
    case QOP_SET_END:
    case QOP_CLEAR_END:
        if ((called = api->set_on_queue_processing_end && q))
            STATE_CALL(o->op, api->set_on_queue_processing_end(
                                  q, 0, o->value & 1, o->op == QOP_SET_END ? qops_on_processing : NULL, (void *)api));
        break;
    case QOP_DEREGISTER:
        /* the queue stays ours: enqueues go on */
        if ((called = api->deregister_queue && q)) STATE_CALL(o->op, api->deregister_queue(NULL, q));
        break;
    case QOP_REREGISTER:
        if ((called = api->register_queue && api->kind == API_ASGST && t->handler)) {
            ASGST_Queue *nq;
            STATE_CALL(o->op, nq = api->register_queue(NULL, t->capacity, 0, t->handler, t->arg));
            if (nq) {
                atomic_store(&t->queue, nq);
                if (q && api->deregister_queue) STATE_CALL(o->op, api->deregister_queue(NULL, q));
            }
        }
        break;
    case QOP_MARK_REGISTER:
        if ((called = api->register_frame_mark && (!m || atomic_load(&t->mark_removed)))) {
            ASGST_FrameMark *nm;
            STATE_CALL(o->op, nm = api->register_frame_mark(NULL, qops_on_mark, 0, (void *)api));
            qops_set_mark(slot, nm);
        }
        break;
    case QOP_MARK_MOVE:
        if ((called = api->move_frame_mark && m && it)) {
            void *to = mark_target(api, it, o->value); /* a walk: it changes nothing */
            STATE_CALL(o->op, api->move_frame_mark(m, to));
        }
        break;
    case QOP_MARK_REMOVE:
        /* The mark stays known here: a second remove is the prototype's
         * use after free, on purpose. */
        if ((called = api->remove_frame_mark && m)) {
            atomic_store(&t->mark_removed, 1);
            STATE_CALL(o->op, api->remove_frame_mark(m));
        }
        break;
    case QOP_PAST_END:
        if (!(called = it != NULL)) break;
        while (api->next_frame(it, &f) == 1)
            ;
        (void)api->next_frame(it, &f);
        if (api->state) (void)api->state(it);
        if (api->rewind_iterator) api->rewind_iterator(it);
        break;
    case QOP_METHOD_INFO:
        if ((called = it && frame_at(api, it, 0, &f) && f.method)) {
            info_calls_method(api, f.method, f.bci, (uint64_t)o->value);
            if (o->value % 8 == 0) info_calls_roundtrip(api, f.method);
        }
        break;
    case QOP_WALK_FROM_FRAME:
        if ((called = it && api->run_with_iterator_from_frame && frame_at(api, it, o->value & 7, &f) && f.sp)) {
            int raw;
            (void)api->run_with_iterator_from_frame(f.sp, f.fp, f.pc, 0, walk_rest, (void *)api, &raw);
        }
        break;
    case QOP_RESIZE_IN_HANDLER:
        if ((called = api->resize_queue && q)) STATE_CALL(o->op, api->resize_queue(q, (int)o->value));
        break;
    default:
        return;
    }
    if (!called) return;
    atomic_fetch_add_explicit(&n_handshake, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_op[o->op], 1, memory_order_relaxed);
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
    atomic_fetch_add(&t->lots_done, 1);
    return h.n;
}

void qops_counters(struct qops_counters *o)
{
    o->signal_ops = n_signal, o->handshake_ops = n_handshake, o->handshake_dropped = n_dropped;
    o->marks_fired = n_marks_fired;
    for (int i = 0; i < QOP__COUNT; i++) o->by_op[i] = n_op[i];
}
