/* Compiled-method table from JVMTI events (see jit_code.h). */
#include <stdatomic.h>
#include <string.h>
#include <jvmti.h>
#include "jit_code.h"
#include "sigsafe.h"

#define SLOTS 8192 /* a ring: the newest methods win */

/* start == 0 marks an empty or retired slot; readers tolerate a torn
 * (start, size) pair since the mutator only needs a plausible address. */
static _Atomic uintptr_t starts[SLOTS];
static _Atomic uintptr_t sizes[SLOTS];
static _Atomic uintptr_t deopts[SLOTS]; /* the slot's deopt handler, 0 if not recognized */
static _Atomic unsigned long next_slot;

/* Where the method's deopt handler is, recognized by its code in the last
 * bytes of the method's code (the stubs): it pushes its own address and jumps
 * to the deopt blob. C2: call to the next instruction, then sub [rsp], 5.
 * C1: mov r10, <its own address>; push r10. Native wrappers have none. These
 * are x86_64 encodings: on other architectures no handler is recognized and
 * the deopt_handler region stays empty. Read through process_vm_readv, so a
 * method being freed cannot fault us. */
static uintptr_t find_deopt_handler(uintptr_t start, uintptr_t size)
{
    static const uint8_t c2[] = {0xe8, 0, 0, 0, 0, 0x48, 0x83, 0x2c, 0x24, 0x05};
    uint8_t code[256];
    size_t n = size < sizeof code ? (size_t)size : sizeof code;
    uintptr_t base = start + size - n;
    if (n < 12 || sigsafe_read(base, code, n)) return 0;
    for (size_t i = n - 12 + 1; i-- > 0;) {
        if (!memcmp(code + i, c2, sizeof c2)) return base + i;
        uint64_t self;
        memcpy(&self, code + i + 2, 8);
        if (code[i] == 0x49 && code[i + 1] == 0xba && self == base + i && code[i + 10] == 0x41 && code[i + 11] == 0x52)
            return base + i;
    }
    return 0;
}

/* VM-generated code (DynamicCodeGenerated): interpreter, deopt and
 * uncommon-trap blobs, adapters, vtable/itable and runtime stubs. Never
 * unloaded one by one, so a plain append-only table. */
#define BLOBS 4096
static _Atomic uintptr_t blob_starts[BLOBS];
static _Atomic uintptr_t blob_sizes[BLOBS];
static _Atomic unsigned long nblobs;

/* The stub a frame returns to when the frames of its caller were frozen
 * into a heap chunk (a virtual thread's continuation, 19 and later), by
 * the names the VMs report it under: 19 to 23, and 24 on. */
static const char *const cont_barrier_names[] = {"Cont thaw return barrier", "cont_returnBarrier"};
static _Atomic uintptr_t cont_barrier;

static void JNICALL on_blob(jvmtiEnv *env, const char *name, const void *addr, jint length)
{
    (void)env;
    if (!addr || length <= 0) return;
    for (unsigned k = 0; name && k < sizeof cont_barrier_names / sizeof *cont_barrier_names; k++)
        if (!strcmp(name, cont_barrier_names[k])) atomic_store(&cont_barrier, (uintptr_t)addr);
    unsigned long i = atomic_fetch_add(&nblobs, 1);
    if (i >= BLOBS) return;
    atomic_store(&blob_sizes[i], (uintptr_t)length);
    atomic_store(&blob_starts[i], (uintptr_t)addr);
}

static void JNICALL on_load(jvmtiEnv *env, jmethodID m, jint size, const void *addr, jint map_len,
                            const jvmtiAddrLocationMap *map, const void *info)
{
    (void)env, (void)m, (void)map_len, (void)map, (void)info;
    unsigned long i = atomic_fetch_add(&next_slot, 1) % SLOTS;
    atomic_store(&starts[i], 0);
    atomic_store(&sizes[i], (uintptr_t)size);
    atomic_store(&deopts[i], size > 0 ? find_deopt_handler((uintptr_t)addr, (uintptr_t)size) : 0);
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
    cb.DynamicCodeGenerated = on_blob;
    if ((*env)->AddCapabilities(env, &caps) != JVMTI_ERROR_NONE ||
        (*env)->SetEventCallbacks(env, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL) != JVMTI_ERROR_NONE) {
        *why = "cannot enable CompiledMethodLoad and DynamicCodeGenerated events";
        return -1;
    }
    jvmtiPhase phase;
    /* Blobs made before this env existed (the interpreter, most stubs) are
     * only reported on request; in the onload phase they come as made. */
    if ((*env)->GetPhase(env, &phase) == JVMTI_ERROR_NONE && phase == JVMTI_PHASE_LIVE) {
        (*env)->GenerateEvents(env, JVMTI_EVENT_COMPILED_METHOD_LOAD);
        (*env)->GenerateEvents(env, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    }
    return 0;
}

static unsigned long filled(void)
{
    unsigned long count = atomic_load(&next_slot);
    return count > SLOTS ? SLOTS : count;
}

int jit_code_pick(uint64_t n, uintptr_t *start, uintptr_t *size)
{
    unsigned long count = filled();
    /* A few probes from n: the ring may have holes from unloads. */
    for (unsigned long k = 0; count && k < 8; k++) {
        unsigned long i = (unsigned long)((n + k * 2654435761u) % count);
        uintptr_t s = atomic_load(&starts[i]), z = atomic_load(&sizes[i]);
        if (s && z) {
            *start = s, *size = z;
            return 1;
        }
    }
    return 0;
}

int jit_code_pick_deopt(uint64_t n, uintptr_t *pc)
{
    unsigned long count = filled();
    /* Native wrappers have no handler: walk on from n to a method with one. */
    for (unsigned long k = 0; count && k < 64 && k < count; k++) {
        unsigned long i = (unsigned long)((n + k) % count);
        uintptr_t s = atomic_load(&starts[i]), h = atomic_load(&deopts[i]);
        if (s && h) {
            *pc = h;
            return 1;
        }
    }
    return 0;
}

unsigned long jit_code_blob_count(void)
{
    unsigned long count = atomic_load(&nblobs);
    return count > BLOBS ? BLOBS : count;
}

int jit_code_pick_blob(uint64_t n, uintptr_t *start, uintptr_t *size)
{
    unsigned long count = jit_code_blob_count();
    if (!count) return 0;
    unsigned long i = (unsigned long)(n % count);
    uintptr_t s = atomic_load(&blob_starts[i]), z = atomic_load(&blob_sizes[i]);
    if (!s || !z) return 0;
    *start = s, *size = z;
    return 1;
}

int jit_code_in_blob(uintptr_t pc)
{
    unsigned long count = jit_code_blob_count();
    for (unsigned long i = 0; i < count; i++) {
        uintptr_t s = atomic_load(&blob_starts[i]), z = atomic_load(&blob_sizes[i]);
        if (s && pc >= s && pc - s < z) return 1;
    }
    return 0;
}

uintptr_t jit_code_cont_barrier(void) { return atomic_load(&cont_barrier); }
