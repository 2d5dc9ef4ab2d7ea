/* Region facts that need a live JVM. Not handler-safe. */
#include <jni.h>
#include <stdint.h>
#include "jvm_regions.h"
#include "regions.h"
#include "vm_structs.h"

void jvm_regions_refresh(JNIEnv *env)
{
    /* A local reference is a slot holding the oop: reading it through the
     * handle gives an address inside the Java heap (HotSpot detail, fine for
     * a test harness aiming pointers at the heap). */
    jclass k = (*env)->FindClass(env, "java/lang/Object");
    jobject o = k ? (*env)->AllocObject(env, k) : NULL;
    if (o) regions_set_heap_hint(*(uintptr_t *)o);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    if (o) (*env)->DeleteLocalRef(env, o);
    if (k) (*env)->DeleteLocalRef(env, k);
    uintptr_t stub = vm_structs_call_stub_return();
    if (stub) regions_set_code_hint(stub);
    regions_refresh();
}
