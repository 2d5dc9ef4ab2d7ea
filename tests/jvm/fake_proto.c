/*
 * A stand-in for the whole prototype API on a stock JDK: every entry point
 * of the header, exported under PREFIX (ASGST_ or JFRLL_), behaving as
 * the prototype does where a caller can tell (docs/asgst-prototype.md):
 *  - the info calls validate nothing: a NULL, forged or stale method is
 *    dereferenced; only GetClassInfo checks for a NULL class;
 *  - GetQueueElement, GetQueueSizeInfo, ResizeQueue and the processing
 *    handler setters do not check for a NULL queue; JMethodIDToMethod and
 *    GetMethodLineNumberTable do not check their method;
 *  - Enqueue: NULL -> -5, full -> -6, queue closed or being processed -> -7,
 *    no ownership check (a release build pushes into any thread's queue),
 *    2 when the top of the stack is not Java, and 0 without queuing when
 *    the walk finds no first Java frame, as the last snapshot's code does;
 *  - ResizeQueue takes effect at the end of the next processing round and
 *    drops what is queued then;
 *  - RemoveFrameMark frees the mark: removing it again reads freed memory;
 *  - the walker reports its own failures as -17 (Java frame) and -18
 *    (native frame).
 * What it cannot be: a JVM. Its "methods" are its own objects in a small
 * class pool that it unloads and reloads itself (every UNLOAD_EVERY
 * processing rounds), calling the class-unload handlers and poisoning the
 * freed slot before reusing it, as metaspace is reused. Queues are
 * processed by one stand-in thread every millisecond, not at the owning
 * thread's handshake, and a frame mark fires during processing when an
 * element's sp is at or above the mark, not when the VM unwinds a frame.
 *
 * ASGF_FAKE_FAULT_EVERY=N (a test hook, read at load): every N-th call of
 * RunWithIterator, RunWithIteratorFromFrame and Enqueue writes through a poisoned pointer
 * first, a walker bug on the caller's thread for benchmarks of the
 * framework under faults (tests/bench/run).
 *
 * Build with -DNEWEST to leave out the two entry points the newest
 * snapshot declares but does not export (GetMethodLineNumber,
 * DeregisterClassUnloadHandler). Loaded with LD_PRELOAD so its symbols are
 * global, as libjvm's would be.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "asgst.h"
#include "fault_knob.h"

#ifndef PREFIX
#define PREFIX ASGST_
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(x) CAT(PREFIX, x)
#define EXPORT __attribute__((visibility("default")))
#if defined(__x86_64__)
#define UC_PC(u) ((void *)(u)->uc_mcontext.gregs[REG_RIP])
#define UC_SP(u) ((void *)(u)->uc_mcontext.gregs[REG_RSP])
#define UC_FP(u) ((void *)(u)->uc_mcontext.gregs[REG_RBP])
#elif defined(__aarch64__)
#define UC_PC(u) ((void *)(u)->uc_mcontext.pc)
#define UC_SP(u) ((void *)(u)->uc_mcontext.sp)
#define UC_FP(u) ((void *)(u)->uc_mcontext.regs[29])
#endif

#define POISON ((void *)0x5eadbeef5eadbeefULL) /* what freed memory holds (non-canonical) */
#define N_CLASSES 16
#define METHODS_PER_CLASS 4
#define UNLOAD_EVERY 50
#define MAX_QUEUES 4096
#define MAX_MARKS 4096
#define MAX_UNLOAD_HANDLERS 8

/* ---- the class pool ---- */

struct fclass;
struct fmethod {
    struct fclass *holder;
    const char *name, *signature;
    jint idnum;
    int nlines;
    ASGST_MethodLineNumberEntry lines[3];
    char jid; /* its address is the method's jmethodID */
};
struct fclass {
    const char *name;
    jlong idnum;
    jint modifiers;
    struct fmethod methods[METHODS_PER_CLASS];
    char mirror; /* its address is the class's jclass */
};

static struct fclass pool[N_CLASSES];
static _Atomic unsigned generation; /* bumped per unload; picks the live slot window */
static _Atomic long long next_class_id = 1;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *const method_names[METHODS_PER_CLASS] = {"run", "step", "loop", "<init>"};

static void load_class(struct fclass *c)
{
    c->name = "standin/Worker";
    c->idnum = atomic_fetch_add(&next_class_id, 1);
    c->modifiers = 1;
    for (int i = 0; i < METHODS_PER_CLASS; i++) {
        struct fmethod *m = &c->methods[i];
        m->holder = c, m->name = method_names[i], m->signature = "()V", m->idnum = i + 1;
        m->nlines = 3;
        for (int l = 0; l < 3; l++) m->lines[l].start_bci = l * 4, m->lines[l].line_number = 10 + l;
    }
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static void pool_init(void)
{
    for (int i = 0; i < N_CLASSES; i++) load_class(&pool[i]);
}

/* The live class for a frame: the slot window moves with each unload. Of
 * the N_CLASSES slots, N_CLASSES - 1 are live; the other one holds the
 * class unloaded last, freed, until the next unload loads a new class
 * there. */
static struct fclass *live_class(unsigned k)
{
    return &pool[(atomic_load_explicit(&generation, memory_order_relaxed) + k % (N_CLASSES - 1)) % N_CLASSES];
}

/*
 * Planted bugs, for the tests that a campaign finds them (one bug, one
 * function, so a crash record's pc names it), in groups:
 *  -DPLANTED_BUGS: three, each reachable through one lifecycle window only
 *   (tests/asgst_lifecycle.t);
 *  -DPROCESSING_BUGS: ResizeQueue, MoveFrameMark and DeregisterQueue called
 *   during the queue's own processing (from a handler it runs), the races
 *   the prototype never tested;
 *  -DITERATOR_BUGS: NextFrame on an iterator rewound after it failed.
 */
#define PLANTED(name) __attribute__((noinline)) static void name(void) { *(volatile int *)POISON = __LINE__; }
#define PLANT_ON(cond, bug) do { if (cond) bug(); } while (0)
#define PLANT_OFF(cond, bug) do { } while (0)
#ifdef PLANTED_BUGS
/* Distinct stores, so the compiler cannot fold them into one. */
PLANTED(bug_resize_race)           /* Enqueue writes past a capacity a pending resize shrank */
PLANTED(bug_mark_off_frame)        /* a frame mark moved to an sp no walk gave out */
PLANTED(bug_stale_method)          /* method info read from an unloaded class */
#define PLANT PLANT_ON
#else
#define PLANT PLANT_OFF
#endif
#ifdef PROCESSING_BUGS
PLANTED(bug_resize_in_processing)
PLANTED(bug_move_mark_in_processing)
PLANTED(bug_deregister_in_processing)
#define PLANT_PROCESSING PLANT_ON
#else
#define PLANT_PROCESSING PLANT_OFF
#endif
#ifdef ITERATOR_BUGS
PLANTED(bug_next_after_failed_rewind)
#define PLANT_ITERATOR PLANT_ON
#else
#define PLANT_ITERATOR PLANT_OFF
#endif
static unsigned long fault_every;
static _Atomic unsigned long calls;

__attribute__((constructor)) static void read_fault_every(void)
{
    const char *e = getenv("ASGF_FAKE_FAULT_EVERY");
    fault_every = e ? strtoul(e, NULL, 10) : 0;
}

/* [handler-safe] The injected walker bug (ASGF_FAKE_FAULT_EVERY). */
static void maybe_fault(void)
{
    if (fault_every && atomic_fetch_add(&calls, 1) % fault_every == fault_every - 1) *(volatile int *)POISON = 1;
}

/* The last frame sp the walker gave out on this thread (frame marks). */
static __thread void *last_frame_sp;

/* ---- the walker ---- */

struct _ASGST_Iterator {
    int options, pos, status;
    void *pc, *sp, *fp;
    unsigned salt;
    unsigned knob_flags; /* rewound, failed, ended (fault_knob.h) */
};

/* Our rule for "decipherable": sp and fp 8-aligned and within 8 MiB of
 * the walked thread's stack: the caller's own (signal handlers run on it),
 * or for Enqueue the queue's thread, which another thread may call in on
 * while it is stopped. */
static int near(uintptr_t a, uintptr_t h) { return a && !(a & 7) && a + (8u << 20) > h && a < h + (8u << 20); }

static int near_stack(void *p)
{
    char here;
    return near((uintptr_t)p, (uintptr_t)&here);
}

/* trusted: a frame the stand-in recorded itself (a queue element, checked
 * at Enqueue on its own thread), walked now from the processing thread. */
static int init_iter_at(struct _ASGST_Iterator *it, void *pc, void *sp, void *fp, int options, int trusted)
{
    memset(it, 0, sizeof *it);
    it->options = options, it->pc = pc, it->sp = sp, it->fp = fp;
    it->salt = (unsigned)syscall(SYS_gettid);
    if (!pc) return (options & ASGST_INCLUDE_NON_JAVA_FRAMES) ? ASGST_NO_FRAME : ASGST_NO_TOP_JAVA_FRAME;
    it->status = trusted ? 1
                 : !near_stack(sp) ? ASGST_WALKER_BAD_JAVA_FRAME
                 : (options & ASGST_INCLUDE_NON_JAVA_FRAMES) && !near_stack(fp) ? ASGST_WALKER_BAD_NATIVE_FRAME
                                                                                : 1;
    return ASGST_JAVA_TRACE;
}

static int init_iter(struct _ASGST_Iterator *it, void *pc, void *sp, void *fp, int options)
{
    return init_iter_at(it, pc, sp, fp, options, 0);
}

static int frames_of(const struct _ASGST_Iterator *it) { return (it->options & ASGST_INCLUDE_NON_JAVA_FRAMES) ? 4 : 3; }

EXPORT int NAME(Capabilities)(void)
{
    KNOB(Capabilities);
    return ASGST_REGISTER_QUEUE | ASGST_MARK_FRAME;
}


EXPORT int NAME(RunWithIterator)(void *uc, int32_t options, ASGST_IteratorHandler fun, void *arg)
{
    knob_hit(ASGST_EP_RunWithIterator, knob_walk_flags());
    pthread_once(&pool_once, pool_init);
    maybe_fault();
    ucontext_t *u = uc;
    struct _ASGST_Iterator it;
    int rc = init_iter(&it, u ? UC_PC(u) : NULL, u ? UC_SP(u) : NULL, u ? UC_FP(u) : NULL, options);
    if (rc > 0) knob_run_callback(fun, &it, arg); /* no NULL check in the prototype either */
    return rc;
}

EXPORT int NAME(RunWithIteratorFromFrame)(void *sp, void *fp, void *pc, int options, ASGST_IteratorHandler fun,
                                          void *arg)
{
    knob_hit(ASGST_EP_RunWithIteratorFromFrame, knob_walk_flags());
    pthread_once(&pool_once, pool_init);
    maybe_fault();
    struct _ASGST_Iterator it;
    int rc = init_iter(&it, pc, sp, fp, options);
    if (rc > 0) knob_run_callback(fun, &it, arg);
    return rc;
}

static int state_of(const ASGST_Iterator *it)
{
    if (!it) return ASGST_NO_FRAME;
    if (it->status != 1) return it->status;
    return it->pos < frames_of(it) ? 1 : ASGST_NO_FRAME;
}

EXPORT int NAME(State)(ASGST_Iterator *it)
{
    KNOB_ITER(State, it);
    return state_of(it);
}

/* What an iterator answered, for the knob's contexts failed and ended. */
static int answered(ASGST_Iterator *it, int rc)
{
    if (rc < 0) it->knob_flags |= 1u << KC_FAILED;
    if (rc == 0) it->knob_flags |= 1u << KC_ENDED;
    return rc;
}

EXPORT int NAME(NextFrame)(ASGST_Iterator *it, ASGST_Frame *f)
{
    KNOB_ITER(NextFrame, it);
    PLANT_ITERATOR(it && (it->knob_flags & (1u << KC_REWOUND_FAILED)), bug_next_after_failed_rewind);
    int st = state_of(it);
    if (st <= 0) {
        f->type = 0;
        return it ? answered(it, st) : st;
    }
    int nonjava = (it->options & ASGST_INCLUDE_NON_JAVA_FRAMES) && it->pos == 0;
    memset(f, 0, sizeof *f);
    f->pc = it->pc, f->sp = it->sp, f->fp = it->fp;
    last_frame_sp = it->sp;
    if (nonjava) {
        f->type = ASGST_FRAME_NON_JAVA, f->comp_level = -1, f->bci = -1;
    } else if (it->options & ASGST_END_ON_FIRST_JAVA_FRAME) {
        f->type = ASGST_FRAME_JAVA;
        it->pos = frames_of(it);
        return answered(it, 0); /* only pc/sp/fp, and the end */
    } else {
        struct fclass *c = live_class(it->salt + (unsigned)it->pos);
        struct fmethod *m = &c->methods[it->pos % METHODS_PER_CLASS];
        f->type = ASGST_FRAME_JAVA, f->comp_level = it->pos & 1 ? 4 : 0, f->bci = 4 * it->pos;
        f->method = (ASGST_Method)m;
    }
    it->pos++;
    return 1;
}

EXPORT void NAME(RewindIterator)(ASGST_Iterator *it)
{
    KNOB_ITER(RewindIterator, it);
    it->pos = 0;
    it->knob_flags |= 1u << KC_REWOUND;
    if (it->knob_flags & (1u << KC_FAILED)) it->knob_flags |= 1u << KC_REWOUND_FAILED;
}

EXPORT int NAME(ThreadState)(void)
{
    KNOB(ThreadState);
    return 1 | 4; /* ALIVE | RUNNABLE */
}

/* ---- method and class info: no validation, as in the prototype ---- */

static void write_field(const char *s, char *buf, jint *len)
{
    if (*len == 0 || !buf) {
        *len = 0;
        return;
    }
    jint n = (jint)strlen(s);
    if (*len > 0) {
        jint k = n < *len - 1 ? n : *len - 1;
        memcpy(buf, s, (size_t)k);
        buf[k] = 0;
    }
    *len = n;
}

EXPORT void NAME(GetMethodInfo)(ASGST_Method method, ASGST_MethodInfo *info)
{
    KNOB(GetMethodInfo);
    struct fmethod *m = (struct fmethod *)method;
    PLANT(m && m->holder == POISON, bug_stale_method);
    struct fclass *c = m->holder;
    info->klass = (ASGST_Class)c;
    write_field(m->name, info->method_name, &info->method_name_length);
    write_field(m->signature, info->signature, &info->signature_length);
    write_field(c->name, info->generic_signature, &info->generic_signature_length);
    info->modifiers = c->modifiers;
    info->idnum = m->idnum;
    info->class_idnum = c->idnum;
}

EXPORT jint NAME(GetMethodIdNum)(ASGST_Method method)
{
    KNOB(GetMethodIdNum);
    return ((struct fmethod *)method)->idnum;
}

EXPORT int NAME(GetMethodLineNumberTable)(ASGST_Method method, ASGST_MethodLineNumberEntry *entries, int length)
{
    KNOB(GetMethodLineNumberTable);
    struct fmethod *m = (struct fmethod *)method;
    int n = m->nlines < length ? m->nlines : length;
    for (int i = 0; i < n; i++) entries[i] = m->lines[i];
    return n > 0 ? n : 0;
}

#ifndef NEWEST
EXPORT jint NAME(GetMethodLineNumber)(ASGST_Method method, jint bci)
{
    KNOB(GetMethodLineNumber);
    struct fmethod *m = (struct fmethod *)method;
    jint line = -1;
    for (int i = 0; i < m->nlines; i++)
        if (m->lines[i].start_bci <= bci) line = m->lines[i].line_number;
    return line;
}
#endif

EXPORT void NAME(GetClassInfo)(ASGST_Class klass, ASGST_ClassInfo *info)
{
    KNOB(GetClassInfo);
    if (!klass) { /* the one NULL check, and it writes through the caller's pointers */
        *info->class_name = 0;
        info->class_name_length = 0;
        *info->generic_class_name = 0;
        info->generic_class_name_length = 0;
        info->modifiers = 0;
        return;
    }
    struct fclass *c = (struct fclass *)klass;
    write_field(c->name, info->class_name, &info->class_name_length);
    write_field(c->name, info->generic_class_name, &info->generic_class_name_length);
    info->modifiers = c->modifiers;
    info->idnum = c->idnum;
}

EXPORT jlong NAME(GetClassIdNum)(ASGST_Class klass)
{
    KNOB(GetClassIdNum);
    return ((struct fclass *)klass)->idnum;
}
EXPORT ASGST_Class NAME(GetClass)(ASGST_Method method)
{
    KNOB(GetClass);
    return (ASGST_Class)((struct fmethod *)method)->holder;
}
EXPORT jmethodID NAME(MethodToJMethodID)(ASGST_Method method)
{
    KNOB(MethodToJMethodID);
    return (jmethodID) & ((struct fmethod *)method)->jid;
}
EXPORT ASGST_Method NAME(JMethodIDToMethod)(jmethodID id)
{
    KNOB(JMethodIDToMethod);
    return (ASGST_Method)((char *)id - offsetof(struct fmethod, jid));
}
EXPORT ASGST_Class NAME(JClassToClass)(jclass k)
{
    KNOB(JClassToClass);
    return (ASGST_Class)((char *)k - offsetof(struct fclass, mirror));
}
EXPORT jclass NAME(ClassToJClass)(ASGST_Class k)
{
    KNOB(ClassToJClass);
    return k ? (jclass) & ((struct fclass *)k)->mirror : NULL;
}

static struct {
    ASGST_ClassUnloadHandler h;
    void *arg;
} unload_handlers[MAX_UNLOAD_HANDLERS];

EXPORT void NAME(RegisterClassUnloadHandler)(ASGST_ClassUnloadHandler h, void *arg)
{
    KNOB(RegisterClassUnloadHandler);
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < MAX_UNLOAD_HANDLERS; i++)
        if (!unload_handlers[i].h) {
            unload_handlers[i].h = h, unload_handlers[i].arg = arg;
            break;
        }
    pthread_mutex_unlock(&pool_lock);
}

#ifndef NEWEST
EXPORT bool NAME(DeregisterClassUnloadHandler)(ASGST_ClassUnloadHandler h, void *arg)
{
    KNOB(DeregisterClassUnloadHandler);
    bool found = false;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < MAX_UNLOAD_HANDLERS; i++)
        if (unload_handlers[i].h == h && unload_handlers[i].arg == arg) unload_handlers[i].h = NULL, found = true;
    pthread_mutex_unlock(&pool_lock);
    return found;
}
#endif

/* Unloads the oldest live class: handlers first, then its slot is freed
 * (poisoned); the slot freed by the previous unload gets a new class and
 * joins the live window, as metaspace is reused. */
static void unload_one(void)
{
    pthread_mutex_lock(&pool_lock);
    unsigned g = atomic_load(&generation);
    struct fclass *c = &pool[g % N_CLASSES], *freed_before = &pool[(g + N_CLASSES - 1) % N_CLASSES];
    ASGST_Method methods[METHODS_PER_CLASS];
    for (int i = 0; i < METHODS_PER_CLASS; i++) methods[i] = (ASGST_Method)&c->methods[i];
    knob_in_unload = 1;
    for (int i = 0; i < MAX_UNLOAD_HANDLERS; i++)
        if (unload_handlers[i].h) unload_handlers[i].h((ASGST_Class)c, methods, METHODS_PER_CLASS, false, unload_handlers[i].arg);
    knob_in_unload = 0;
    load_class(freed_before);
    atomic_fetch_add(&generation, 1);
    for (int i = 0; i < METHODS_PER_CLASS; i++) c->methods[i].holder = POISON, c->methods[i].name = POISON;
    c->name = POISON;
    pthread_mutex_unlock(&pool_lock);
}

/* ---- queues ---- */

enum { Q_OPEN, Q_BUSY, Q_CLOSED };

struct proc_handler {
    ASGST_QueueProcessingHandler h;
    void *arg;
    int options;
    bool offer;
};

struct _ASGST_Queue {
    _Atomic int state; /* Q_OPEN, Q_BUSY (enqueue or processing in progress), Q_CLOSED */
    int capacity, count, pending; /* pending resize, 0: none */
    _Atomic int attempts;
    int options;
    ASGST_QueueHandler handler;
    void *arg;
    struct proc_handler start, end;
    uintptr_t owner_stack; /* an address on the registering thread's stack */
    ASGST_QueueElement elements[1024];
};

static struct _ASGST_Queue queues[MAX_QUEUES];
static _Atomic int n_queues;

struct _ASGST_FrameMark {
    void *_Atomic sp;
    int *owner; /* points at owner_tid below while alive; POISON once removed */
    int owner_tid;
    ASGST_FrameMarkHandler h;
    void *arg;
    int options;
    _Atomic int live;
};
static struct _ASGST_FrameMark marks[MAX_MARKS];
static _Atomic int n_marks;

static _Atomic int processor_started;
static unsigned rounds;

static void run_marks(void *element_sp)
{
    int n = atomic_load(&n_marks);
    for (int i = 0; i < n && i < MAX_MARKS; i++) {
        struct _ASGST_FrameMark *m = &marks[i];
        void *sp = atomic_load(&m->sp);
        if (!atomic_load(&m->live) || !sp || (uintptr_t)sp > (uintptr_t)element_sp) continue;
        struct _ASGST_Iterator it;
        init_iter_at(&it, (void *)1, element_sp, element_sp, m->options, 1);
        knob_in_mark = 1;
        m->h(m, &it, m->arg);
        knob_in_mark = 0;
    }
}

static void run_proc(ASGST_Queue *q, struct proc_handler *p, ASGST_QueueElement *top)
{
    if (!p->h) return;
    struct _ASGST_Iterator it;
    init_iter_at(&it, top->pc, top->sp, top->fp, p->options, 1);
    knob_in_processing = 1;
    p->h(q, p->offer ? &it : NULL, p->arg);
    knob_in_processing = 0;
}

/* The queue being processed on this (processor) thread: its owner is the
 * "current thread" of a handler that registers a queue with a NULL env, as
 * the prototype's handler runs on the owner at its handshake. */
static __thread uintptr_t processing_owner;

static void process(ASGST_Queue *q)
{
    int expected = Q_OPEN;
    if (!q->count || !atomic_compare_exchange_strong(&q->state, &expected, Q_BUSY)) return;
    if (q->pending) {
        /* A resize asked before this round takes effect at the end of the
         * thread's next handshake, whatever it was for: what is queued then
         * is dropped, unprocessed. */
        q->capacity = q->pending, q->pending = 0, q->count = 0;
        atomic_store(&q->attempts, 0);
        expected = Q_BUSY;
        atomic_compare_exchange_strong(&q->state, &expected, Q_OPEN);
        return;
    }
    int n = q->count;
    processing_owner = q->owner_stack;
    run_proc(q, &q->start, &q->elements[n - 1]);
    for (int i = 0; i < n && i < q->count; i++) {
        struct _ASGST_Iterator it;
        init_iter_at(&it, q->elements[i].pc, q->elements[i].sp, q->elements[i].fp, q->options, 1);
        knob_in_queue = 1;
        q->handler(&it, q->arg, q->elements[i].arg);
        knob_in_queue = 0;
        run_marks(q->elements[i].sp);
    }
    run_proc(q, &q->end, &q->elements[n - 1]);
    processing_owner = 0;
    q->count = 0;
    atomic_store(&q->attempts, 0);
    if (q->pending) q->capacity = q->pending, q->pending = 0; /* asked during this round: at its end */
    expected = Q_BUSY;
    atomic_compare_exchange_strong(&q->state, &expected, Q_OPEN); /* unless deregistered meanwhile */
}

static void *processor(void *arg)
{
    (void)arg;
    struct timespec ms = {0, 1000000};
    for (;;) {
        int n = atomic_load(&n_queues);
        for (int i = 0; i < n && i < MAX_QUEUES; i++) process(&queues[i]);
        if (++rounds % UNLOAD_EVERY == 0) unload_one();
        nanosleep(&ms, NULL);
    }
    return NULL;
}

EXPORT ASGST_Queue *NAME(RegisterQueue)(JNIEnv *env, int size, int options, ASGST_QueueHandler fun, void *arg)
{
    (void)env;
    KNOB(RegisterQueue);
    pthread_once(&pool_once, pool_init);
    if (size < 1 || size > 1024) return NULL;
    int i = atomic_fetch_add(&n_queues, 1);
    if (i >= MAX_QUEUES) return NULL;
    ASGST_Queue *q = &queues[i];
    char here;
    q->capacity = size, q->options = options, q->handler = fun, q->arg = arg;
    q->owner_stack = processing_owner ? processing_owner : (uintptr_t)&here;
    atomic_store(&q->state, Q_OPEN);
    int expected = 0;
    if (atomic_compare_exchange_strong(&processor_started, &expected, 1)) {
        pthread_t t;
        pthread_create(&t, NULL, processor, NULL);
        pthread_detach(t);
    }
    return q;
}

EXPORT bool NAME(DeregisterQueue)(JNIEnv *env, ASGST_Queue *q)
{
    (void)env;
    KNOB(DeregisterQueue);
    PLANT_PROCESSING(processing_owner && q && q->state == Q_BUSY, bug_deregister_in_processing);
    return q && atomic_exchange(&q->state, Q_CLOSED) != Q_CLOSED;
}

static int enqueuable_element(void *uc, ASGST_QueueElement *e)
{
    ucontext_t *u = uc;
    e->pc = UC_PC(u), e->sp = UC_SP(u), e->fp = UC_FP(u);
    e->arg = NULL;
    if (!e->pc) return ASGST_NON_JAVA_TRACE;
    if (!near_stack(e->sp)) return ASGST_UNSAFE_STATE;
    return 1;
}

EXPORT int NAME(GetEnqueuableElement)(void *uc, ASGST_QueueElement *e)
{
    knob_hit(ASGST_EP_GetEnqueuableElement, knob_walk_flags());
    return enqueuable_element(uc, e);
}

EXPORT int NAME(Enqueue)(ASGST_Queue *q, void *uc, void *arg)
{
    knob_hit(ASGST_EP_Enqueue, knob_walk_flags());
    if (!q) return ASGST_ENQUEUE_NO_QUEUE;
    maybe_fault();
    /* Before the queue is taken, so that the caught fault leaves it usable
     * and the other two planted bugs stay reachable. */
    PLANT(q->state == Q_OPEN && q->pending && q->count >= q->pending, bug_resize_race);
    int expected = Q_OPEN;
    if (!atomic_compare_exchange_strong(&q->state, &expected, Q_BUSY)) return ASGST_ENQUEUE_OTHER_ERROR;
    int rc;
    ASGST_QueueElement e;
    if (q->count >= q->capacity) {
        atomic_fetch_add(&q->attempts, 1);
        rc = ASGST_ENQUEUE_FULL_QUEUE;
    } else {
        /* No ownership check: a context on the owner's stack is pushed
         * from whichever thread calls (thread mode's Enqueue of a held
         * target); the stand-in's rule for a walk that finds its first
         * Java frame is an sp near the owner's stack. */
        int kind = enqueuable_element(uc, &e);
        if (kind == ASGST_NON_JAVA_TRACE) {
            rc = kind; /* RunWithIterator's own answer comes back as it is */
        } else if (!near((uintptr_t)e.sp, q->owner_stack)) {
            rc = ASGST_NO_FRAME; /* no first Java frame: the prototype answers 0, queuing nothing */
        } else {
            e.arg = arg;
            q->elements[q->count++] = e;
            rc = ASGST_JAVA_TRACE;
        }
    }
    expected = Q_BUSY;
    atomic_compare_exchange_strong(&q->state, &expected, Q_OPEN); /* unless deregistered meanwhile */
    return rc;
}

EXPORT ASGST_QueueElement *NAME(GetQueueElement)(ASGST_Queue *q, int n)
{
    KNOB(GetQueueElement);
    int count = q->count;
    if (n < 0) n += count;
    return n >= 0 && n < count ? &q->elements[n] : NULL;
}

EXPORT ASGST_QueueSizeInfo NAME(GetQueueSizeInfo)(ASGST_Queue *q)
{
    KNOB(GetQueueSizeInfo);
    ASGST_QueueSizeInfo i = {q->count, q->capacity, atomic_load(&q->attempts)};
    return i;
}

EXPORT void NAME(ResizeQueue)(ASGST_Queue *q, int size)
{
    KNOB(ResizeQueue);
    PLANT_PROCESSING(processing_owner && q && q->state == Q_BUSY, bug_resize_in_processing);
    q->pending = size < 1 ? 1 : size > 1024 ? 1024 : size;
}

EXPORT void NAME(SetOnQueueProcessingStart)(ASGST_Queue *q, int options, bool offer, ASGST_QueueProcessingHandler h,
                                            void *arg)
{
    KNOB(SetOnQueueProcessingStart);
    q->start = (struct proc_handler){h, arg, options, offer};
}

EXPORT void NAME(SetOnQueueProcessingEnd)(ASGST_Queue *q, int options, bool offer, ASGST_QueueProcessingHandler h,
                                          void *arg)
{
    KNOB(SetOnQueueProcessingEnd);
    q->end = (struct proc_handler){h, arg, options, offer};
}

/* ---- frame marks ---- */

EXPORT ASGST_FrameMark *NAME(RegisterFrameMark)(JNIEnv *env, ASGST_FrameMarkHandler h, int options, void *arg)
{
    (void)env;
    KNOB(RegisterFrameMark);
    int i = atomic_fetch_add(&n_marks, 1);
    if (i >= MAX_MARKS) return NULL;
    struct _ASGST_FrameMark *m = &marks[i];
    m->owner_tid = (int)syscall(SYS_gettid), m->owner = &m->owner_tid;
    m->h = h, m->arg = arg, m->options = options;
    atomic_store(&m->sp, NULL);
    atomic_store(&m->live, 1);
    return m;
}

EXPORT void NAME(MoveFrameMark)(ASGST_FrameMark *m, void *sp)
{
    KNOB(MoveFrameMark);
    /* to a frame the walk gave out (off one is bug_mark_off_frame's window) */
    PLANT_PROCESSING(processing_owner && sp && sp == last_frame_sp, bug_move_mark_in_processing);
    PLANT(sp && sp != last_frame_sp, bug_mark_off_frame);
    atomic_store(&m->sp, sp);
}
EXPORT void *NAME(GetFrameMarkStackPointer)(ASGST_FrameMark *m)
{
    KNOB(GetFrameMarkStackPointer);
    return atomic_load(&m->sp);
}

EXPORT void NAME(RemoveFrameMark)(ASGST_FrameMark *m)
{
    KNOB(RemoveFrameMark);
    (void)*(volatile int *)m->owner; /* the prototype looks up the owner's watermark through the mark */
    atomic_store(&m->live, 0);
    m->owner = POISON; /* freed: a second remove reads this */
}
