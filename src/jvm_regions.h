#ifndef ASGF_JVM_REGIONS_H
#define ASGF_JVM_REGIONS_H
#include <jni.h>
/* Re-reads the address space and locates the Java heap through a JNI handle.
 * Not handler-safe. */
void jvm_regions_refresh(JNIEnv *env);
#endif
