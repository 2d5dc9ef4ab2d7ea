/* JVMTI ThreadStart/ThreadEnd -> thread registry (see jvm_threads.h). */
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <jvmti.h>
#include "jvm_threads.h"
#include "regions.h"

static struct jvm_threads_config config;
static char *glob_copy;
static _Atomic long started, ended, matched;

static int name_of(jvmtiEnv *env, jthread thread, char *buf, size_t len)
{
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*env)->GetThreadInfo(env, thread, &info) != JVMTI_ERROR_NONE || !info.name) return -1;
    strncpy(buf, info.name, len - 1);
    buf[len - 1] = 0;
    (*env)->Deallocate(env, (unsigned char *)info.name);
    return 0;
}

/* Whether name matches one of the '|'-separated patterns: virtual threads
 * run on carriers named by their scheduler (ForkJoinPool-1-worker-1), not by
 * the workload, and a walk samples the carrier. */
static int name_matches(const char *globs, const char *name)
{
    char one[256];
    for (const char *p = globs;;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n < sizeof one) {
            memcpy(one, p, n);
            one[n] = 0;
            if (!fnmatch(one, name, 0)) return 1;
        }
        if (!bar) return 0;
        p = bar + 1;
    }
}

static void JNICALL on_thread_start(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    char name[64];
    atomic_fetch_add(&started, 1);
    if (name_of(env, thread, name, sizeof name)) return;
    if (glob_copy && !name_matches(glob_copy, name)) return;
    int index = threads_register_self(name, jni);
    if (index < 0) return;
    atomic_fetch_add(&matched, 1);
    if (config.on_start) config.on_start(jni, name, index);
}

static void JNICALL on_thread_end(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    (void)env, (void)thread;
    atomic_fetch_add(&ended, 1);
    const struct thread_info *t = threads_find(threads_gettid());
    if (!t) return;
    if (config.on_end) config.on_end(jni, t->name, t->index);
    threads_unregister_self();
}

int jvm_threads_attach(JavaVM *vm, const struct jvm_threads_config *cfg, const char **why)
{
    jvmtiEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK) {
        *why = "no JVMTI 1.2 environment";
        return -1;
    }
    config = *cfg;
    glob_copy = cfg->glob ? strdup(cfg->glob) : NULL;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.ThreadStart = on_thread_start;
    cb.ThreadEnd = on_thread_end;
    if ((*env)->SetEventCallbacks(env, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL) != JVMTI_ERROR_NONE ||
        (*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, NULL) != JVMTI_ERROR_NONE) {
        *why = "cannot enable ThreadStart/ThreadEnd events";
        return -1;
    }
    return 0;
}

void jvm_threads_counts(long *s, long *e, long *m)
{
    *s = atomic_load(&started), *e = atomic_load(&ended), *m = atomic_load(&matched);
}

int jvm_agent_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, const char *name, jvmtiStartFunction fn, void *arg)
{
    jclass k = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = k ? (*jni)->GetMethodID(jni, k, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = (*jni)->NewStringUTF(jni, name);
    jthread t = init && jname ? (*jni)->NewObject(jni, k, init, jname) : NULL;
    if (!t) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    return (*jvmti)->RunAgentThread(jvmti, t, fn, arg, JVMTI_THREAD_NORM_PRIORITY) == JVMTI_ERROR_NONE ? 0 : -1;
}
