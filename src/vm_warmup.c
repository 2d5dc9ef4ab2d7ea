/* One virtual thread before the first walk (see vm_warmup.h). */
#include "vm_warmup.h"

static int failed(JNIEnv *env, const char **why, const char *what)
{
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    *why = what;
    return -1;
}

int vm_warmup_continuation(JNIEnv *env, const char **why)
{
    jclass thread = (*env)->FindClass(env, "java/lang/Thread");
    if (!thread) return failed(env, why, "no java.lang.Thread");
    jmethodID start = (*env)->GetStaticMethodID(env, thread, "startVirtualThread", "(Ljava/lang/Runnable;)Ljava/lang/Thread;");
    if (!start) {
        (*env)->ExceptionClear(env); /* NoSuchMethodError: a VM before virtual threads */
        return 0;
    }
    /* The task: a Thread object that is never started is a Runnable whose
     * run() does nothing, and needs no class of ours. */
    jmethodID init = (*env)->GetMethodID(env, thread, "<init>", "()V");
    jmethodID join = (*env)->GetMethodID(env, thread, "join", "()V");
    jobject task = init && join ? (*env)->NewObject(env, thread, init) : NULL;
    if (!task) return failed(env, why, "cannot make the task");
    jobject vt = (*env)->CallStaticObjectMethod(env, thread, start, task);
    if ((*env)->ExceptionCheck(env)) {
        /* 19 and 20 without --enable-preview throw UnsupportedOperationException */
        (*env)->ExceptionClear(env);
        return 0;
    }
    if (!vt) return failed(env, why, "startVirtualThread returned null");
    (*env)->CallVoidMethod(env, vt, join);
    if ((*env)->ExceptionCheck(env)) return failed(env, why, "join of the virtual thread threw");
    (*env)->DeleteLocalRef(env, vt);
    (*env)->DeleteLocalRef(env, task);
    return 1;
}
