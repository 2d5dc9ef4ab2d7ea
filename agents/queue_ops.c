/*
 * mode=queue: what the case format cannot say about a thread's queue and
 * frame mark, because no case runs there: registering them when the
 * thread starts and taking them down when it ends. Everything in between
 * (resize, elements, foreign enqueues, processing handlers, deregister and
 * re-register, mark moves and removes, iterators past their end) is qop
 * records in the cases the thread samples (src/casegen_qops.c), run by
 * src/qops.c, so each is in the case it recorded and replays from it.
 */
#include <string.h>
#include "agent_config.h"
#include "casegen.h"
#include "guard.h"
#include "info_calls.h"
#include "lifecycle.h"
#include "qops.h"
#include "queue_ops.h"

static const struct agent_config *cfg;
static const struct api *api;
static _Atomic unsigned long long marks_registered, marks_removed, marks_removed_twice;

void queue_ops_init(const struct agent_config *config, const struct api *backend) { cfg = config, api = backend; }

static int on(unsigned group) { return (cfg->queue_ops & group) != 0; }

ASGST_Queue *queue_ops_thread_start(JNIEnv *jni, int slot, ASGST_QueueHandler handler, void *arg)
{
    ASGST_Queue *q = lc_register_queue(api, jni, cfg->queue_size, handler, arg);
    qops_thread_start(slot, q, handler, arg, cfg->queue_size);
    if (q && on(CASEGEN_QOPS_HANDLERS)) lc_set_processing_handlers(api, q, slot & 1, qops_on_processing);
    ASGST_FrameMark *m = NULL;
    if (on(CASEGEN_QOPS_MARKS)) {
        m = lc_register_frame_mark(api, jni, qops_on_mark);
        if (m) marks_registered++;
    }
    qops_set_mark(slot, m);
    return q;
}

static void remove_twice(void *arg)
{
    ASGST_FrameMark *m = arg;
    guard_state_op("remove_frame_mark_twice");
    api->remove_frame_mark(m); /* the mark is gone: the prototype reads freed memory */
}

void queue_ops_thread_end(JNIEnv *jni, int slot)
{
    ASGST_Queue *q;
    ASGST_FrameMark *m;
    qops_thread_end(slot, &q, &m);
    if (m && api->remove_frame_mark) {
        lc_remove_frame_mark(api, m);
        marks_removed++;
        /* One thread in eight, by seed and slot, so a run is repeatable. */
        if ((cfg->seed + (uint64_t)slot) % 8 == 0) {
            struct guard_call gc = {api->name, "remove_frame_mark_twice", "queue", NULL, 0, NULL, NULL, 0, 0};
            marks_removed_twice++;
            guard_run(remove_twice, m, &gc, NULL);
        }
    }
    lc_deregister_queue(api, jni, q);
}

void queue_ops_report(FILE *f)
{
    struct qops_counters c;
    qops_counters(&c);
    fprintf(f, "asgf: queue ops:");
    for (int i = 0; i < QOP__COUNT; i++) fprintf(f, " %s=%llu", case_qop_name(i), c.by_op[i]);
    fprintf(f, "; handshake lots dropped %llu; marks registered %llu, fired %llu, removed %llu (twice %llu)\n",
            c.handshake_dropped, (unsigned long long)marks_registered, c.marks_fired,
            (unsigned long long)marks_removed, (unsigned long long)marks_removed_twice);
    struct info_counters ic;
    info_calls_counters(&ic);
    fprintf(f, "asgf: info calls: handles valid=%llu stale=%llu forged=%llu null=%llu (stale asked, none known %llu); "
               "lengths neg=%llu zero=%llu one=%llu exact=%llu huge=%llu; unload events %llu (%llu methods, %llu "
               "redefined); round trips %llu, mismatched %llu\n",
            ic.handle[INFO_VALID], ic.handle[INFO_STALE], ic.handle[INFO_FORGED], ic.handle[INFO_NULL],
            ic.stale_missing, ic.length[0], ic.length[1], ic.length[2], ic.length[3], ic.length[4], ic.unload_events,
            ic.unloaded_methods, ic.redefined, ic.roundtrips, ic.roundtrip_mismatch);
}

void queue_ops_json(FILE *f)
{
    struct qops_counters c;
    qops_counters(&c);
    fprintf(f, "  \"queue_ops\": {");
    for (int i = 0; i < QOP__COUNT; i++) fprintf(f, "%s\"%s\": %llu", i ? ", " : "", case_qop_name(i), c.by_op[i]);
    fprintf(f, ", \"handshake_dropped\": %llu, \"marks_registered\": %llu, \"marks_fired\": %llu, \"marks_removed\": %llu, "
               "\"marks_removed_twice\": %llu},\n",
            c.handshake_dropped, (unsigned long long)marks_registered, c.marks_fired,
            (unsigned long long)marks_removed, (unsigned long long)marks_removed_twice);
}
