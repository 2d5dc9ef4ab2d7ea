/* One virtual thread before the first walk (see vm_warmup.h). */
#include "vm_warmup.h"

/* Drops the local references it was given (NULL ones skipped). */
static void drop(JNIEnv *env, jobject a, jobject b, jobject c)
{
    jobject refs[] = {a, b, c};
    for (unsigned i = 0; i < sizeof refs / sizeof *refs; i++)
        if (refs[i]) (*env)->DeleteLocalRef(env, refs[i]);
}

int vm_warmup_continuation(JNIEnv *env, const char **why)
{
    jclass thread = (*env)->FindClass(env, "java/lang/Thread");
    if (!thread) {
        (*env)->ExceptionClear(env);
        return *why = "no java.lang.Thread", -1;
    }
    jmethodID start = (*env)->GetStaticMethodID(env, thread, "startVirtualThread", "(Ljava/lang/Runnable;)Ljava/lang/Thread;");
    if (!start) {
        (*env)->ExceptionClear(env); /* NoSuchMethodError: a VM before virtual threads */
        drop(env, thread, NULL, NULL);
        return 0;
    }
    /* The task: a Thread object that is never started is a Runnable whose
     * run() does nothing, and needs no class of ours. */
    jmethodID init = (*env)->GetMethodID(env, thread, "<init>", "()V");
    jmethodID join = init ? (*env)->GetMethodID(env, thread, "join", "()V") : NULL;
    jobject task = join ? (*env)->NewObject(env, thread, init) : NULL;
    if (!task) {
        (*env)->ExceptionClear(env);
        drop(env, thread, NULL, NULL);
        return *why = "cannot make the task", -1;
    }
    jobject vt = (*env)->CallStaticObjectMethod(env, thread, start, task);
    if ((*env)->ExceptionCheck(env) || !vt) {
        /* 19 and 20 without --enable-preview throw UnsupportedOperationException */
        (*env)->ExceptionClear(env);
        drop(env, thread, task, vt);
        return 0;
    }
    (*env)->CallVoidMethod(env, vt, join);
    int threw = (*env)->ExceptionCheck(env);
    (*env)->ExceptionClear(env);
    drop(env, thread, task, vt);
    return threw ? (*why = "join of the virtual thread threw", -1) : 1;
}
