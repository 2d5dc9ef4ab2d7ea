/*
 * verify=1 in mode=queue: a JVMTI thread compares, for each sampled thread,
 * the top frames the last queue handler saw with a GetStackTrace of that
 * thread taken now. On a thread parked at a known point the two must agree;
 * a thread that moved between the two walks counts as "moved", not as a
 * mismatch of the queue (we cannot tell them apart from here).
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include "queue_verify.h"
#include "sample_handler.h"
#include "jmethods.h"
#include "jvm_threads.h"
#include "regions.h"

static _Atomic int running;
static _Atomic unsigned long long compared, equal, moved;
static char example[512];

static void describe(const jmethodID *frames, int n)
{
    size_t used = 0;
    for (int i = 0; i < n && i < 4; i++) {
        const struct jmethod_entry *e = jmethods_resolve(frames[i]);
        int w = snprintf(example + used, sizeof example - used, "%s%s.%s", i ? " < " : "",
                         e && e->klass ? e->klass->name : "?", e ? e->name : "?");
        if (w < 0 || (size_t)w >= sizeof example - used) break;
        used += (size_t)w;
    }
}

static void JNICALL verifier(jvmtiEnv *env, JNIEnv *jni, void *arg)
{
    (void)jni, (void)arg;
    static int tids[THREADS_MAX];
    jmethodID seen[VERIFY_FRAMES];
    jvmtiFrameInfo now[VERIFY_FRAMES];
    struct timespec pause = {0, 100000000};
    while (atomic_load(&running)) {
        int n = threads_list(tids, THREADS_MAX);
        for (int i = 0; i < n; i++) {
            const struct thread_info *t = threads_find(tids[i]);
            jthread thread;
            int k = t ? sample_queue_snapshot(threads_slot(t), &thread, seen, VERIFY_FRAMES) : 0;
            jint count = 0;
            if (!k || (*env)->GetStackTrace(env, thread, 0, VERIFY_FRAMES, now, &count) != JVMTI_ERROR_NONE) continue;
            atomic_fetch_add(&compared, 1);
            int same = count == k;
            for (int f = 0; same && f < k; f++) same = now[f].method == seen[f];
            if (same) {
                if (atomic_fetch_add(&equal, 1) == 0) describe(seen, k);
            } else {
                atomic_fetch_add(&moved, 1);
            }
        }
        nanosleep(&pause, NULL);
    }
}

int queue_verify_start(jvmtiEnv *env, JNIEnv *jni)
{
    atomic_store(&running, 1);
    return jvm_agent_thread_start(env, jni, "asgf-queue-verifier", verifier, NULL);
}

void queue_verify_stop(void) { atomic_store(&running, 0); }

void queue_verify_report(FILE *f)
{
    fprintf(f, "asgf: queue verify: compared %llu, equal %llu, moved %llu; example equal stack: %s\n",
            (unsigned long long)compared, (unsigned long long)equal, (unsigned long long)moved,
            example[0] ? example : "-");
}
