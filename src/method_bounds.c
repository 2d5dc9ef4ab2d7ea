/* Bytecode extents by jmethodID (see method_bounds.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "method_bounds.h"

#define BOUNDS_BITS 20
#define BOUNDS_SIZE (1u << BOUNDS_BITS)

/* Open addressing; writers hold the lock, readers (signal handlers) do
 * not: a slot's extent is stored before its id is published. */
static struct {
    _Atomic(jmethodID) id;
    _Atomic int extent;
} slots[BOUNDS_SIZE];
static long used;
static _Atomic int full;
static _Atomic long learned;
static _Atomic int enabled;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void method_bounds_enable(void) { atomic_store(&enabled, 1); }
int method_bounds_enabled(void) { return atomic_load(&enabled); }

static unsigned home(jmethodID id)
{
    uint64_t h = (uint64_t)(uintptr_t)id * 0x9e3779b97f4a7c15ULL;
    return (unsigned)(h >> (64 - BOUNDS_BITS));
}

static int ask(jvmtiEnv *env, jmethodID id)
{
    jint mods = 0;
    jlocation start = -1, end = -1;
    jvmtiError e = (*env)->GetMethodModifiers(env, id, &mods);
    if (e == JVMTI_ERROR_INVALID_METHODID) return METHOD_INVALID;
    if (e != JVMTI_ERROR_NONE) return METHOD_UNKNOWN;
    if (mods & 0x0100) return METHOD_NATIVE;   /* ACC_NATIVE */
    if (mods & 0x0400) return METHOD_NO_CODE;  /* ACC_ABSTRACT */
    e = (*env)->GetMethodLocation(env, id, &start, &end);
    if (e == JVMTI_ERROR_INVALID_METHODID) return METHOD_INVALID;
    if (e != JVMTI_ERROR_NONE || start != 0 || end < 0 || end >= 65535) return METHOD_NO_CODE;
    return (int)end + 1;
}

/* Caller holds the lock. */
static void store(jmethodID id, int extent)
{
    if (!id || extent == METHOD_UNKNOWN || extent == METHOD_INVALID) return;
    unsigned i = home(id);
    for (unsigned k = 0; k < BOUNDS_SIZE; k++, i = (i + 1) & (BOUNDS_SIZE - 1)) {
        jmethodID there = atomic_load_explicit(&slots[i].id, memory_order_relaxed);
        if (there == id) {
            atomic_store_explicit(&slots[i].extent, extent, memory_order_relaxed);
            return;
        }
        if (!there) {
            /* A table three-quarters full stops learning: lookups stay short. */
            if (used >= (long)(BOUNDS_SIZE / 4 * 3)) {
                atomic_store(&full, 1);
                return;
            }
            atomic_store_explicit(&slots[i].extent, extent, memory_order_relaxed);
            atomic_store_explicit(&slots[i].id, id, memory_order_release);
            atomic_store(&learned, ++used);
            return;
        }
    }
}

void method_bounds_learn(jvmtiEnv *env, const jmethodID *methods, int count)
{
    if (!atomic_load(&enabled)) return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count; i++) store(methods[i], ask(env, methods[i]));
    pthread_mutex_unlock(&lock);
}

int method_bounds_full(void) { return atomic_load(&full); }
long method_bounds_count(void) { return atomic_load(&learned); }

int method_bounds_get(jmethodID id)
{
    if (!id) return METHOD_UNKNOWN;
    unsigned i = home(id);
    for (unsigned k = 0; k < BOUNDS_SIZE; k++, i = (i + 1) & (BOUNDS_SIZE - 1)) {
        jmethodID there = atomic_load_explicit(&slots[i].id, memory_order_acquire);
        if (!there) return METHOD_UNKNOWN;
        if (there == id) return atomic_load_explicit(&slots[i].extent, memory_order_relaxed);
    }
    return METHOD_UNKNOWN;
}

int method_bounds_fresh(jvmtiEnv *env, jmethodID id)
{
    if (!id) return METHOD_INVALID;
    int extent = ask(env, id);
    pthread_mutex_lock(&lock);
    store(id, extent);
    pthread_mutex_unlock(&lock);
    return extent;
}
