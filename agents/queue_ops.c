/*
 * mode=queue lifecycle operations (option queue_ops=): what a profiler does
 * to its queues and frame marks besides Enqueue, done at random so the
 * races the prototype never tested get a chance: resize racing an
 * enqueue, processing handlers set and cleared, GetQueueElement for any
 * n, enqueue into another thread's queue, deregister and re-register from
 * the queue's own handler, frame marks moved to valid and invalid stack
 * pointers and removed twice, iterators used past their end.
 *
 * Each operation runs where the prototype allows it: the signal-safe ones
 * (GetQueueElement, GetQueueSizeInfo, GetFrameMarkStackPointer, Enqueue)
 * in the SIGPROF handler, the others in the queue handler, at thread start
 * and at thread end. Operations that can fault run under the guard.
 * Until the case format gains queue operations (format version 2), the
 * sequence is chosen here, from the agent's seed, not from a case.
 */
#include <stdatomic.h>
#include <string.h>
#include "agent.h"
#include "guard.h"
#include "info_calls.h"
#include "lifecycle.h"
#include "qops.h"
#include "queue_ops.h"
#include "regions.h"

/* The queue and mark themselves live in the core's qops registry, where a
 * case's qop records see them too. */
struct qthread {
    int slot;
    void *arg;          /* the queue_arg it was registered with */
    uint64_t rng;       /* signal handler's */
    uint64_t hrng;      /* queue handler's */
    int capacity;
};

static struct qthread qt[THREADS_MAX];
static ASGST_QueueHandler element_handler;

static _Atomic unsigned long long n_ops[QCOUNT__COUNT];

static const char *const op_names[QCOUNT__COUNT] = {
    "resize", "set_handlers", "clear_handlers", "element_get", "element_out_of_range", "size_info",
    "foreign_enqueue", "deregister_in_handler", "reregister", "mark_register", "mark_move", "mark_move_odd",
    "mark_fired", "mark_remove", "mark_remove_twice", "iterator_past_end", "info_rounds", "roundtrips",
    "walk_from_frame",
};

/* [handler-safe] */
static void op(int i) { atomic_fetch_add_explicit(&n_ops[i], 1, memory_order_relaxed); }

/* [handler-safe] */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static int on(unsigned bit) { return (agent_cfg.queue_ops & bit) != 0; }

static void on_processing(ASGST_Queue *q, ASGST_Iterator *it, void *arg)
{
    (void)q, (void)arg;
    if (!sample_handler_enter()) return;
    lc_walk(agent_api, it, "processing_handler", 1, NULL, NULL);
    sample_handler_leave();
}

static void on_mark(ASGST_FrameMark *mark, ASGST_Iterator *it, void *arg)
{
    (void)mark, (void)arg;
    if (!sample_handler_enter()) return;
    op(QCOUNT_MARK_FIRED);
    lc_walk(agent_api, it, "mark_handler", 64, NULL, NULL);
    sample_handler_leave();
}

static void walk_rest(ASGST_Iterator *it, void *arg)
{
    (void)arg;
    ASGST_Frame f;
    int n = 0;
    while (n < 64 && agent_api->next_frame(it, &f) == 1) n++;
}

/* From the queue handler (inside its guarded call) or at thread start. */
static void set_handlers(ASGST_Queue *q, int clear, uint64_t r)
{
    if (!agent_api->set_on_queue_processing_start || !agent_api->set_on_queue_processing_end) return;
    lc_set_processing_handlers(agent_api, q, r & 1, clear ? NULL : on_processing);
    op(clear ? QCOUNT_CLEAR_HANDLERS : QCOUNT_SET_HANDLERS);
}

ASGST_Queue *queue_ops_thread_start(JNIEnv *jni, int slot, ASGST_QueueHandler handler, void *arg)
{
    struct qthread *t = &qt[slot];
    element_handler = handler;
    t->rng = t->hrng = agent_cfg.seed * 0x2545f4914f6cdd1dULL + (uint64_t)slot * 2 + 1;
    t->arg = arg;
    t->capacity = agent_cfg.queue_size;
    t->slot = slot;
    ASGST_Queue *q = lc_register_queue(agent_api, jni, t->capacity, handler, arg);
    qops_thread_start(slot, q, handler, arg, t->capacity);
    if (q && on(QOPS_HANDLERS)) set_handlers(q, 0, rnd(&t->hrng));
    ASGST_FrameMark *m = NULL;
    if (on(QOPS_MARKS)) {
        m = lc_register_frame_mark(agent_api, jni, on_mark);
        if (m) op(QCOUNT_MARK_REGISTER);
    }
    qops_set_mark(slot, m);
    return q;
}

static void remove_twice(void *arg)
{
    ASGST_FrameMark *m = arg;
    agent_api->remove_frame_mark(m); /* the mark is gone: the prototype reads freed memory */
}

void queue_ops_thread_end(JNIEnv *jni, int slot)
{
    struct qthread *t = &qt[slot];
    ASGST_Queue *q;
    ASGST_FrameMark *m;
    qops_thread_end(slot, &q, &m);
    if (m && agent_api->remove_frame_mark) {
        lc_remove_frame_mark(agent_api, m);
        op(QCOUNT_MARK_REMOVE);
        if (rnd(&t->hrng) % 8 == 0) {
            struct guard_call gc = {agent_api->name, "remove_frame_mark_twice", "queue", NULL, 0, NULL, NULL, 0, 0};
            op(QCOUNT_MARK_REMOVE_TWICE);
            guard_run(remove_twice, m, &gc, NULL);
        }
    }
    lc_deregister_queue(agent_api, jni, q);
}

ASGST_Queue *queue_ops_queue(int slot) { return qops_queue(slot); }

struct sig_ops {
    struct qthread *t;
    int slot;
    void *uc;
};

/* [handler-safe] A new size: -1, 0 or 1 a quarter of the time, else 1 to
 * twice the configured capacity. */
static int resize_size(const struct qthread *t, uint64_t r)
{
    return r % 4 == 0 ? (int)((r >> 2) % 3) - 1 : 1 + (int)((r >> 2) % (unsigned)(2 * t->capacity));
}

/* [handler-safe] */
static void signal_ops(void *arg)
{
    struct sig_ops *s = arg;
    struct qthread *t = s->t;
    ASGST_Queue *q = qops_queue(t->slot);
    uint64_t r = rnd(&t->rng);
    if (q && on(QOPS_ELEMENTS)) {
        if (agent_api->get_queue_size_info) {
            ASGST_QueueSizeInfo si = agent_api->get_queue_size_info(q);
            op(QCOUNT_SIZE_INFO);
            /* any n: in range, one past either end, or far out */
            int span = si.size + 2, n = (int)(r % (unsigned)(2 * span + 1)) - span;
            if ((r >> 20) % 16 == 0) n = (r >> 24) & 1 ? 1 << 30 : -(1 << 30);
            if (agent_api->get_queue_element) {
                ASGST_QueueElement *e = agent_api->get_queue_element(q, n);
                if (e) e->arg = (void *)(uintptr_t)r; /* the one field a handler may change: queue compression */
                op(e ? QCOUNT_ELEMENT_GET : QCOUNT_ELEMENT_OUT_OF_RANGE);
            }
        }
    }
    /* Resize from the signal handler (signal safe, own queue): the race
     * with the Enqueues that follow until the next handshake applies it. */
    if (q && on(QOPS_RESIZE) && agent_api->resize_queue && (r >> 36) % 64 == 0) {
        agent_api->resize_queue(q, resize_size(t, r >> 42));
        op(QCOUNT_RESIZE);
    }
    if (on(QOPS_FOREIGN) && agent_api->enqueue && (r >> 8) % 16 == 0) {
        const struct thread_info *other = threads_other(threads_gettid(), (unsigned)(r >> 12));
        ASGST_Queue *oq = other ? qops_queue(threads_slot(other)) : NULL;
        if (oq) {
            agent_api->enqueue(oq, s->uc, NULL); /* a release build pushes into another thread's queue */
            op(QCOUNT_FOREIGN_ENQUEUE);
        }
    }
    ASGST_FrameMark *m = qops_mark(t->slot);
    if (m && agent_api->get_frame_mark_stack_pointer) (void)agent_api->get_frame_mark_stack_pointer(m);
    /* What Enqueue would store, asked separately (a profiler compressing
     * its queue compares it with the youngest element). */
    if (on(QOPS_ELEMENTS) && agent_api->get_enqueuable_element && (r >> 4) % 4 == 0) {
        ASGST_QueueElement e;
        (void)agent_api->get_enqueuable_element(s->uc, &e);
    }
}

void queue_ops_after_sample(int slot, void *uc)
{
    if (!agent_cfg.queue_ops) return;
    struct sig_ops s = {&qt[slot], slot, uc};
    struct guard_call gc = {agent_api->name, "queue_ops_signal", "queue", NULL, 0, NULL, NULL, 0, 0};
    guard_run(signal_ops, &s, &gc, NULL);
}

struct handler_ops {
    struct qthread *t;
    ASGST_Iterator *it;
};

/* The frame the mark goes to: a real frame's sp, or (odd) NULL, between
 * two frames, or another thread's stack. */
static void move_mark(struct qthread *t, ASGST_Iterator *it, uint64_t r)
{
    ASGST_FrameMark *m = qops_mark(t->slot);
    if (!m || !agent_api->move_frame_mark) return;
    ASGST_Frame f;
    void *sp = NULL;
    int want = (int)(r % 6), n = 0;
    if (agent_api->rewind_iterator) agent_api->rewind_iterator(it);
    while (n <= want && agent_api->next_frame(it, &f) == 1) {
        if (f.sp) sp = f.sp;
        n++;
    }
    int odd = (r >> 8) % 4 == 0;
    if (odd) {
        const struct thread_info *other = threads_other(threads_gettid(), (unsigned)(r >> 12));
        switch ((r >> 16) % 3) {
        case 0: sp = NULL; break;
        case 1: sp = sp ? (char *)sp + 8 : NULL; break; /* between frames */
        default: sp = other ? (void *)(other->stack_hi - 256) : NULL; break;
        }
    }
    agent_api->move_frame_mark(m, sp);
    op(odd ? QCOUNT_MARK_MOVE_ODD : QCOUNT_MARK_MOVE);
}

static void handler_ops(void *arg)
{
    struct handler_ops *h = arg;
    struct qthread *t = h->t;
    ASGST_Iterator *it = h->it;
    uint64_t r = rnd(&t->hrng);
    ASGST_Queue *q = qops_queue(t->slot);
    ASGST_Frame f;
    if (on(QOPS_INFO)) {
        if (agent_api->rewind_iterator) agent_api->rewind_iterator(it);
        if (agent_api->next_frame(it, &f) == 1 && f.method) {
            info_calls_method(agent_api, f.method, f.bci, r);
            op(QCOUNT_INFO_ROUNDS);
            if (r % 8 == 0) {
                info_calls_roundtrip(agent_api, f.method);
                op(QCOUNT_ROUNDTRIPS);
            }
        }
    }
    if (on(QOPS_MARKS)) move_mark(t, it, r >> 3);
    if (agent_api->thread_state) (void)agent_api->thread_state();
    /* A second walk from a frame the first one gave, as a frame-mark
     * handler would start one. */
    if (on(QOPS_MARKS) && agent_api->run_with_iterator_from_frame && (r >> 56) % 8 == 0) {
        if (agent_api->rewind_iterator) agent_api->rewind_iterator(it);
        if (agent_api->next_frame(it, &f) == 1 && f.sp) {
            int raw;
            agent_api->run_with_iterator_from_frame(f.sp, f.fp, f.pc, 0, walk_rest, NULL, &raw);
            op(QCOUNT_WALK_FROM_FRAME);
        }
    }
    /* Past the end: NextFrame must keep saying "end", Rewind must restart. */
    while (agent_api->next_frame(it, &f) == 1)
        ;
    (void)agent_api->next_frame(it, &f);
    if (agent_api->state) (void)agent_api->state(it);
    op(QCOUNT_ITERATOR_PAST_END);
    if (!q) return;
    if (on(QOPS_RESIZE) && agent_api->resize_queue && (r >> 24) % 32 == 0) {
        agent_api->resize_queue(q, resize_size(t, r >> 30));
        op(QCOUNT_RESIZE);
    }
    if (on(QOPS_HANDLERS) && (r >> 40) % 64 == 0) set_handlers(q, (r >> 46) & 1, r >> 47);
    /* asgst only: the agct queue's RegisterQueue needs a JNIEnv. */
    if (on(QOPS_REREGISTER) && agent_api->kind == API_ASGST && agent_api->deregister_queue &&
        agent_api->register_queue && (r >> 50) % 256 == 0) {
        /* Deregister during the queue's own processing, then a new queue
         * for the thread (NULL env: the current thread, the owner at a
         * handshake). */
        agent_api->deregister_queue(NULL, q);
        op(QCOUNT_DEREGISTER_IN_HANDLER);
        ASGST_Queue *nq = agent_api->register_queue(NULL, t->capacity, 0, element_handler, t->arg);
        qops_set_queue(t->slot, nq);
        if (nq) op(QCOUNT_REREGISTER);
    }
}

void queue_ops_in_handler(int slot, ASGST_Iterator *it)
{
    if (!it) return;
    /* First what the cases asked for (their qop records), then our own. */
    qops_run_handshake(agent_api, slot, it);
    if (!agent_cfg.queue_ops) return;
    struct handler_ops h = {&qt[slot], it};
    struct guard_call gc = {agent_api->name, "queue_ops_handler", "queue", NULL, 0, NULL, NULL, 0, 0};
    guard_run(handler_ops, &h, &gc, NULL);
}

const char *queue_ops_parse(const char *v, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"resize", QOPS_RESIZE},   {"handlers", QOPS_HANDLERS}, {"elements", QOPS_ELEMENTS},
                 {"foreign", QOPS_FOREIGN}, {"reregister", QOPS_REREGISTER}, {"marks", QOPS_MARKS},
                 {"info", QOPS_INFO}};
    if (!v) return "expected all, none or names joined by +, got";
    if (!strcmp(v, "all")) return *out = QOPS_ALL, NULL;
    if (!strcmp(v, "none")) return *out = 0, NULL;
    unsigned bits = 0;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, "+");
        unsigned found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len)) found = names[i].bit;
        if (!found)
            return "expected all, none or resize+handlers+elements+foreign+reregister+marks+info, got";
        bits |= found;
        p += len + (p[len] == '+');
    }
    *out = bits;
    return NULL;
}

void queue_ops_report(FILE *f)
{
    fprintf(f, "asgf: queue ops:");
    for (int i = 0; i < QCOUNT__COUNT; i++) fprintf(f, " %s=%llu", op_names[i], (unsigned long long)n_ops[i]);
    struct info_counters ic;
    info_calls_counters(&ic);
    fprintf(f, "\nasgf: info calls: handles valid=%llu stale=%llu forged=%llu null=%llu (stale asked, none known %llu); "
               "lengths neg=%llu zero=%llu one=%llu exact=%llu huge=%llu; unload events %llu (%llu methods, %llu "
               "redefined); round trips %llu, mismatched %llu\n",
            ic.handle[INFO_VALID], ic.handle[INFO_STALE], ic.handle[INFO_FORGED], ic.handle[INFO_NULL],
            ic.stale_missing, ic.length[0], ic.length[1], ic.length[2], ic.length[3], ic.length[4], ic.unload_events,
            ic.unloaded_methods, ic.redefined, ic.roundtrips, ic.roundtrip_mismatch);
}

void queue_ops_json(FILE *f)
{
    fprintf(f, "  \"queue_ops\": {");
    for (int i = 0; i < QCOUNT__COUNT; i++)
        fprintf(f, "%s\"%s\": %llu", i ? ", " : "", op_names[i], (unsigned long long)n_ops[i]);
    fprintf(f, "},\n");
}
