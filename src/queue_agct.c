/* ASGST queue API over a per-thread ring and JVMTI walks (see queue_agct.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "api.h"
#include "arch.h"
#include "jvm_threads.h"
#include "queue_agct.h"
#include "sigsafe.h"
#include "walking.h"

/* A retired queue is reused only after this long, so a signal handler
 * that fetched it just before its thread ended has long finished. */
#define REUSE_AFTER_NS 1000000000LL
#define MAX_DEPTH_FRAMES 2048

struct _ASGST_Queue {
    _Atomic int lock; /* try-lock: the signal handler never waits on it */
    ASGST_QueueElement *ring;
    int capacity, head, count;
    _Atomic int attempts;
    /* 0: none. Written by resizes from signal handlers on any thread,
     * so the processing thread takes it once, with an exchange: reading
     * it twice let a ring of one size go out with another's capacity. */
    _Atomic int pending_capacity;
    ASGST_QueueHandler handler;
    void *queue_arg;
    ASGST_QueueProcessingHandler on_start, on_end;
    void *start_arg, *end_arg;
    bool start_iterator, end_iterator;
    jthread thread; /* global ref */
    _Atomic int live;
    long long retired_ns;
    struct _ASGST_Queue *next;
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct _ASGST_Queue *queues;
static jvmtiEnv *jvmti;
static _Atomic int running;
static long long period;
static int walk_depth;
static _Atomic unsigned long long n_enqueued, n_full, n_contended, n_batches, n_handled, n_walk_errors;

/* Rings replaced by a resize or by a retired queue's reuse. A signal
 * handler may still hold an element of one (GetQueueElement hands out a
 * pointer, and the caller may write its arg), so a ring is freed only
 * REUSE_AFTER_NS after it was replaced; while the graveyard is full, a
 * resize waits and a new queue takes fresh memory. Under list_lock. */
#define GRAVES 64
static struct {
    ASGST_QueueElement *ring;
    long long since;
} graves[GRAVES];

/* A free grave (freeing the rings old enough), or -1. */
static int free_grave(void)
{
    long long now = sigsafe_now_ns();
    int slot = -1;
    for (int i = 0; i < GRAVES; i++) {
        if (graves[i].ring && now - graves[i].since > REUSE_AFTER_NS) free(graves[i].ring), graves[i].ring = NULL;
        if (!graves[i].ring && slot < 0) slot = i;
    }
    return slot;
}

static int try_lock(ASGST_Queue *q)
{
    int expected = 0;
    return atomic_compare_exchange_strong(&q->lock, &expected, 1);
}
static void spin_lock(ASGST_Queue *q)
{
    while (!try_lock(q)) sched_yield();
}
static void unlock(ASGST_Queue *q) { atomic_store(&q->lock, 0); }

ASGST_Queue *queue_agct_register(JNIEnv *env, int size, int options, ASGST_QueueHandler handler, void *queue_arg)
{
    (void)options;
    if (size < 1 || !handler || !jvmti) return NULL;
    jthread self;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE) return NULL;
    ASGST_Queue *q = NULL;
    pthread_mutex_lock(&list_lock);
    long long now = sigsafe_now_ns();
    /* A retired queue is reused with its ring when that has the size asked
     * for (threads that come and go register alike), or when a grave can
     * take its ring; else a new queue is made. */
    int grave = free_grave();
    for (ASGST_Queue *r = queues; r && !q; r = r->next)
        if (!atomic_load(&r->live) && r->retired_ns && now - r->retired_ns > REUSE_AFTER_NS &&
            (r->capacity == size || grave >= 0))
            q = r;
    if (!q) {
        q = calloc(1, sizeof *q);
        if (q) q->next = queues, queues = q;
    }
    if (q) {
        ASGST_QueueElement *ring = q->ring && q->capacity == size ? q->ring : calloc((size_t)size, sizeof *ring);
        if (!ring) {
            q->retired_ns = 1; /* keep it on the list, reusable */
            q = NULL;
        } else {
            /* A thread whose queue this was may still hold it (a
             * deregister qop keeps it) and reach into its ring: the swap
             * is under the queue's lock, the old ring goes to a grave. */
            spin_lock(q);
            if (q->ring && q->ring != ring) graves[grave].ring = q->ring, graves[grave].since = now;
            q->ring = ring, q->capacity = size, q->head = q->count = 0;
            atomic_store(&q->pending_capacity, 0);
            unlock(q);
            atomic_store(&q->attempts, 0);
            q->handler = handler, q->queue_arg = queue_arg;
            q->on_start = q->on_end = NULL;
            q->thread = (*env)->NewGlobalRef(env, self);
            q->retired_ns = 0;
            atomic_store(&q->live, 1);
        }
    }
    pthread_mutex_unlock(&list_lock);
    (*env)->DeleteLocalRef(env, self);
    return q;
}

bool queue_agct_deregister(JNIEnv *env, ASGST_Queue *q)
{
    if (!q) return false;
    pthread_mutex_lock(&list_lock);
    int was_live = atomic_exchange(&q->live, 0);
    if (was_live) {
        (*env)->DeleteGlobalRef(env, q->thread);
        q->thread = NULL;
        q->retired_ns = sigsafe_now_ns();
    }
    pthread_mutex_unlock(&list_lock);
    return was_live;
}

/* [handler-safe] */
int queue_agct_get_enqueuable_element(void *ucontext, ASGST_QueueElement *e)
{
    ucontext_t *uc = ucontext;
    e->pc = (void *)*arch_reg_slot(uc, ARCH_REG_PC);
    e->fp = (void *)*arch_reg_slot(uc, ARCH_REG_FP);
    e->sp = (void *)*arch_reg_slot(uc, ARCH_REG_SP);
    e->arg = NULL;
    return ASGST_JAVA_TRACE;
}

/* [handler-safe] */
int queue_agct_enqueue(ASGST_Queue *q, void *ucontext, void *arg)
{
    if (!q || !atomic_load(&q->live)) return ASGST_ENQUEUE_NO_QUEUE;
    if (!try_lock(q)) {
        atomic_fetch_add(&n_contended, 1);
        return ASGST_ENQUEUE_OTHER_ERROR;
    }
    int rc;
    if (q->count >= q->capacity) {
        atomic_fetch_add(&q->attempts, 1);
        atomic_fetch_add(&n_full, 1);
        rc = ASGST_ENQUEUE_FULL_QUEUE;
    } else {
        ASGST_QueueElement *e = &q->ring[(q->head + q->count) % q->capacity];
        queue_agct_get_enqueuable_element(ucontext, e);
        e->arg = arg;
        q->count++;
        atomic_fetch_add(&n_enqueued, 1);
        rc = ASGST_JAVA_TRACE;
    }
    unlock(q);
    return rc;
}

/* [handler-safe] n: 0 oldest, -1 youngest. Under the try-lock, so ring,
 * head and capacity are one resize's; NULL when the processing thread
 * holds the queue. The element stays valid memory after a resize moved
 * the queue on (the graveyard), though it is then no longer queued. */
ASGST_QueueElement *queue_agct_get_element(ASGST_Queue *q, int n)
{
    if (!q || !try_lock(q)) return NULL;
    ASGST_QueueElement *e = NULL;
    int count = q->count;
    if (n < 0) n += count;
    if (q->capacity && n >= 0 && n < count) e = &q->ring[(q->head + n) % q->capacity];
    unlock(q);
    return e;
}

ASGST_QueueSizeInfo queue_agct_get_size_info(ASGST_Queue *q)
{
    ASGST_QueueSizeInfo i = {0, 0, 0};
    if (q) i.size = q->count, i.capacity = q->capacity, i.attempts = atomic_load(&q->attempts);
    return i;
}

void queue_agct_resize(ASGST_Queue *q, int size)
{
    if (q && size > 0) atomic_store(&q->pending_capacity, size);
}

void queue_agct_set_on_start(ASGST_Queue *q, int options, bool offer, ASGST_QueueProcessingHandler h, void *arg)
{
    (void)options;
    if (q) q->on_start = h, q->start_arg = arg, q->start_iterator = offer;
}

void queue_agct_set_on_end(ASGST_Queue *q, int options, bool offer, ASGST_QueueProcessingHandler h, void *arg)
{
    (void)options;
    if (q) q->on_end = h, q->end_arg = arg, q->end_iterator = offer;
}

struct dispatch {
    ASGST_Queue *q;
    ASGST_QueueProcessingHandler ph;
    void *arg;
};

static void element_trampoline(ASGST_Iterator *it, void *arg)
{
    struct dispatch *d = arg;
    d->q->handler(it, d->q->queue_arg, d->arg);
}

static void processing_trampoline(ASGST_Iterator *it, void *arg)
{
    struct dispatch *d = arg;
    d->ph(d->q, it, d->arg);
}

static void run_processing_handler(ASGST_Queue *q, ASGST_QueueProcessingHandler h, void *arg, bool offer,
                                   const ASGCT_CallFrame *frames, int n)
{
    if (!h) return;
    struct dispatch d = {q, h, arg};
    if (offer) api_agct_run_over_frames(frames, n, 0, processing_trampoline, &d);
    else h(q, NULL, arg);
}

static void process_one(ASGST_Queue *q, jvmtiFrameInfo *jf, ASGCT_CallFrame *frames, ASGST_QueueElement *batch)
{
    /* Take the pending elements out under the lock; walk and call
     * handlers without it, so signal handlers can keep enqueuing. */
    spin_lock(q);
    int n = q->count;
    for (int i = 0; i < n; i++) batch[i] = q->ring[(q->head + i) % q->capacity];
    q->head = (q->head + n) % q->capacity, q->count = 0;
    int want = atomic_exchange(&q->pending_capacity, 0);
    int grave = want ? free_grave() : -1;
    ASGST_QueueElement *ring = grave >= 0 ? calloc((size_t)want, sizeof *ring) : NULL;
    if (ring) {
        graves[grave].ring = q->ring, graves[grave].since = sigsafe_now_ns();
        q->ring = ring, q->capacity = want, q->head = 0;
    } else if (want) {
        /* It waits for a grave; a newer request, if one came, wins. */
        int none = 0;
        atomic_compare_exchange_strong(&q->pending_capacity, &none, want);
    }
    unlock(q);
    if (!n) return;

    jint count = 0;
    walking_begin();
    jvmtiError err = (*jvmti)->GetStackTrace(jvmti, q->thread, 0, walk_depth, jf, &count);
    walking_end();
    if (err != JVMTI_ERROR_NONE) {
        atomic_fetch_add(&n_walk_errors, 1);
        return;
    }
    for (jint i = 0; i < count; i++) {
        jboolean native = JNI_FALSE;
        (*jvmti)->IsMethodNative(jvmti, jf[i].method, &native);
        frames[i].method_id = jf[i].method;
        frames[i].lineno = native ? AGCT_LINENO_NATIVE : (jint)jf[i].location;
    }
    atomic_fetch_add(&n_batches, 1);
    run_processing_handler(q, q->on_start, q->start_arg, q->start_iterator, frames, count);
    for (int i = 0; i < n; i++) {
        struct dispatch d = {q, NULL, batch[i].arg};
        api_agct_run_over_frames(frames, count, 0, element_trampoline, &d);
        atomic_fetch_add(&n_handled, 1);
    }
    run_processing_handler(q, q->on_end, q->end_arg, q->end_iterator, frames, count);
}

static void JNICALL processing_thread(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
    (void)env, (void)jni, (void)arg;
    jvmtiFrameInfo *jf = calloc(MAX_DEPTH_FRAMES, sizeof *jf);
    ASGCT_CallFrame *frames = calloc(MAX_DEPTH_FRAMES, sizeof *frames);
    size_t batch_cap = 0;
    ASGST_QueueElement *batch = NULL;
    while (atomic_load(&running) && jf && frames) {
        pthread_mutex_lock(&list_lock);
        for (ASGST_Queue *q = queues; q; q = q->next) {
            if (!atomic_load(&q->live) || !q->count) continue;
            if ((size_t)q->capacity > batch_cap) {
                ASGST_QueueElement *b = realloc(batch, (size_t)q->capacity * sizeof *b);
                if (!b) continue;
                batch = b, batch_cap = (size_t)q->capacity;
            }
            process_one(q, jf, frames, batch);
        }
        pthread_mutex_unlock(&list_lock);
        struct timespec ts = {0, period};
        nanosleep(&ts, NULL);
    }
    free(jf), free(frames), free(batch);
}

int queue_agct_start(jvmtiEnv *env, JNIEnv *jni, long long period_ns, int depth, const char **why)
{
    jvmti = env;
    period = period_ns > 0 && period_ns < 1000000000LL ? period_ns : 1000000;
    walk_depth = depth > 0 && depth <= MAX_DEPTH_FRAMES ? depth : MAX_DEPTH_FRAMES;
    atomic_store(&running, 1);
    if (jvm_agent_thread_start(env, jni, "asgf-queue-processor", processing_thread, NULL)) {
        *why = "cannot start the queue processing thread";
        return -1;
    }
    return 0;
}

void queue_agct_stop(void) { atomic_store(&running, 0); }

void queue_agct_counters(struct queue_agct_counters *o)
{
    o->enqueued = n_enqueued, o->full = n_full, o->contended = n_contended;
    o->batches = n_batches, o->handled = n_handled, o->walk_errors = n_walk_errors;
}
