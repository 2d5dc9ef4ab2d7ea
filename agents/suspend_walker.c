/*
 * The VM's own other-thread walkers, beside the sampler: mode=thread (AGCT
 * cannot walk another thread on a stock JDK) and jvmti_walk=1 in any mode.
 * Each round: JVMTI SuspendThread, GetStackTrace, ResumeThread on each
 * sampled thread in turn, then one GetThreadListStackTraces over all of
 * them unsuspended (the VM walks them in a handshake or at a safepoint,
 * while the sampler's signals keep arriving).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sample_handler.h"
#include "suspend_walker.h"
#include "jvm_threads.h"
#include "stats.h"

#define WALK_DEPTH 256
#define LIST_MAX 64 /* threads per GetThreadListStackTraces call */

static _Atomic int running;
static jvmtiEnv *jvmti;
static long long interval_ns;

static int sampled(jvmtiEnv *env, jthread t)
{
    jvmtiThreadInfo info;
    if ((*env)->GetThreadInfo(env, t, &info) != JVMTI_ERROR_NONE) return 0;
    int keep = info.name && strncmp(info.name, "asgf-", 5) != 0;
    (*env)->Deallocate(env, (unsigned char *)info.name);
    return keep;
}

static void list_walk(jvmtiEnv *env, jthread *list, jint n)
{
    jvmtiStackInfo *info = NULL;
    if (n && (*env)->GetThreadListStackTraces(env, n, list, WALK_DEPTH, &info) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n; i++) stats_add(STAT_SUSPEND_FRAMES, (unsigned long long)info[i].frame_count);
        stats_add(STAT_LIST_WALKS, 1);
        (*env)->Deallocate(env, (unsigned char *)info);
    } else if (n) {
        stats_add(STAT_SUSPEND_ERRORS, 1);
    }
}

static void JNICALL walker(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
    (void)arg;
    jvmtiFrameInfo frames[WALK_DEPTH];
    jthread list[LIST_MAX];
    struct timespec pause = {0, interval_ns};
    while (atomic_load(&running)) {
        jint n, listed = 0;
        jthread *threads;
        if ((*env)->GetAllThreads(env, &n, &threads) != JVMTI_ERROR_NONE) break;
        for (jint i = 0; i < n && atomic_load(&running); i++) {
            if (!sampled(env, threads[i]) || (*env)->SuspendThread(env, threads[i]) != JVMTI_ERROR_NONE) {
                (*jni)->DeleteLocalRef(jni, threads[i]);
                continue;
            }
            jint count = 0;
            if ((*env)->GetStackTrace(env, threads[i], 0, WALK_DEPTH, frames, &count) == JVMTI_ERROR_NONE) {
                stats_add(STAT_SUSPEND_WALKS, 1);
                stats_add(STAT_SUSPEND_FRAMES, (unsigned long long)count);
            } else {
                stats_add(STAT_SUSPEND_ERRORS, 1);
            }
            (*env)->ResumeThread(env, threads[i]);
            if (listed < LIST_MAX) list[listed++] = threads[i];
            else (*jni)->DeleteLocalRef(jni, threads[i]);
            nanosleep(&pause, NULL);
        }
        if (atomic_load(&running)) list_walk(env, list, listed);
        for (jint i = 0; i < listed; i++) (*jni)->DeleteLocalRef(jni, list[i]);
        (*env)->Deallocate(env, (unsigned char *)threads);
    }
}

int suspend_walker_prepare(jvmtiEnv *env)
{
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_suspend = 1;
    return (*env)->AddCapabilities(env, &caps) == JVMTI_ERROR_NONE ? 0 : -1;
}

int suspend_walker_start(jvmtiEnv *env, JNIEnv *jni, long long every_ns)
{
    jvmti = env;
    interval_ns = every_ns;
    atomic_store(&running, 1);
    return jvm_agent_thread_start(env, jni, "asgf-suspend-walker", walker, NULL);
}

void suspend_walker_stop(void) { atomic_store(&running, 0); }
