/*
 * mode=thread on a stock JDK: AGCT cannot walk another thread, so besides
 * holding targets for the API (reported as it answers), this stresses the
 * suspended-thread walkers the VM does have: JVMTI SuspendThread,
 * GetStackTrace, ResumeThread on each sampled thread in turn.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agent.h"
#include "jvm_threads.h"
#include "stats.h"

#define WALK_DEPTH 256

static _Atomic int running;
static jvmtiEnv *jvmti;

static int sampled(jvmtiEnv *env, jthread t)
{
    jvmtiThreadInfo info;
    if ((*env)->GetThreadInfo(env, t, &info) != JVMTI_ERROR_NONE) return 0;
    int keep = info.name && strncmp(info.name, "asgf-", 5) != 0;
    (*env)->Deallocate(env, (unsigned char *)info.name);
    return keep;
}

static void JNICALL walker(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
    (void)arg;
    jvmtiFrameInfo frames[WALK_DEPTH];
    struct timespec pause = {0, agent_cfg.interval_ns};
    while (atomic_load(&running)) {
        jint n;
        jthread *threads;
        if ((*env)->GetAllThreads(env, &n, &threads) != JVMTI_ERROR_NONE) break;
        for (jint i = 0; i < n && atomic_load(&running); i++) {
            if (!sampled(env, threads[i]) || (*env)->SuspendThread(env, threads[i]) != JVMTI_ERROR_NONE) {
                (*jni)->DeleteLocalRef(jni, threads[i]);
                continue;
            }
            jint count = 0;
            if ((*env)->GetStackTrace(env, threads[i], 0, WALK_DEPTH, frames, &count) == JVMTI_ERROR_NONE) {
                atomic_fetch_add(&stats.suspend_walks, 1);
                atomic_fetch_add(&stats.suspend_frames, (unsigned long long)count);
            } else {
                atomic_fetch_add(&stats.suspend_errors, 1);
            }
            (*env)->ResumeThread(env, threads[i]);
            (*jni)->DeleteLocalRef(jni, threads[i]);
            nanosleep(&pause, NULL);
        }
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

int suspend_walker_start(jvmtiEnv *env, JNIEnv *jni)
{
    jvmti = env;
    atomic_store(&running, 1);
    return jvm_agent_thread_start(env, jni, "asgf-suspend-walker", walker, NULL);
}

void suspend_walker_stop(void) { atomic_store(&running, 0); }
