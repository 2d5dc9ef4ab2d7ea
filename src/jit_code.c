/* Compiled-method table from JVMTI events (see jit_code.h). */
#include <stdatomic.h>
#include <string.h>
#include <jvmti.h>
#include "jit_code.h"

#define SLOTS 8192 /* a ring: the newest methods win */

/* start == 0 marks an empty or retired slot; readers tolerate a torn
 * (start, size) pair since the mutator only needs a plausible address. */
static _Atomic uintptr_t starts[SLOTS];
static _Atomic uintptr_t sizes[SLOTS];
static _Atomic unsigned long next_slot;

static void JNICALL on_load(jvmtiEnv *env, jmethodID m, jint size, const void *addr, jint map_len,
                            const jvmtiAddrLocationMap *map, const void *info)
{
    (void)env, (void)m, (void)map_len, (void)map, (void)info;
    unsigned long i = atomic_fetch_add(&next_slot, 1) % SLOTS;
    atomic_store(&starts[i], 0);
    atomic_store(&sizes[i], (uintptr_t)size);
    atomic_store(&starts[i], (uintptr_t)addr);
}

static void JNICALL on_unload(jvmtiEnv *env, jmethodID m, const void *addr)
{
    (void)env, (void)m;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t expected = (uintptr_t)addr;
        if (expected) atomic_compare_exchange_strong(&starts[i], &expected, 0);
    }
}

int jit_code_attach(JavaVM *vm, const char **why)
{
    jvmtiEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK) {
        *why = "no JVMTI 1.2 environment";
        return -1;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_compiled_method_load_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.CompiledMethodLoad = on_load;
    cb.CompiledMethodUnload = on_unload;
    if ((*env)->AddCapabilities(env, &caps) != JVMTI_ERROR_NONE ||
        (*env)->SetEventCallbacks(env, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL) != JVMTI_ERROR_NONE) {
        *why = "cannot enable CompiledMethodLoad events";
        return -1;
    }
    jvmtiPhase phase;
    if ((*env)->GetPhase(env, &phase) == JVMTI_ERROR_NONE && phase == JVMTI_PHASE_LIVE)
        (*env)->GenerateEvents(env, JVMTI_EVENT_COMPILED_METHOD_LOAD);
    return 0;
}

int jit_code_pick(uint64_t n, uintptr_t *start, uintptr_t *size)
{
    /* A few probes from n: the ring may have holes from unloads. */
    for (int k = 0; k < 8; k++) {
        unsigned i = (unsigned)((n + (uint64_t)k * 2654435761u) % SLOTS);
        uintptr_t s = atomic_load(&starts[i]), z = atomic_load(&sizes[i]);
        if (s && z) {
            *start = s, *size = z;
            return 1;
        }
    }
    return 0;
}
