/* The consistency check of sampled walks (see oracle_check.h). */
#include <stdatomic.h>
#include <string.h>
#include "guard.h"
#include "method_bounds.h"
#include "oracle_check.h"

#define PENDING 256
#define VERDICT_OK (-1)
#define VERDICT_UNKNOWN (-2)

/* A walk the handler could not clear, waiting for the oracle thread.
 * state: 0 free, 1 being written or read, 2 ready. */
static struct pending {
    _Atomic int state;
    int tid, n;
    jmethodID method[CHECK_FRAMES];
    int bci[CHECK_FRAMES];
    uint8_t type[CHECK_FRAMES];
    int extent[CHECK_FRAMES]; /* as the handler saw it */
    int table_full;           /* and whether the table had stopped learning */
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len;
} pending[PENDING];

static _Atomic unsigned long long walks, walks_mutated, frames, no_id, queued, dropped, cleared, unloaded;
static _Atomic unsigned long long kinds[CHECK_KINDS];
static const char *const kind_names[CHECK_KINDS] = {"bad-method", "bad-bci", "bad-type"};

static oracle_check_excuse_fn excuse_fn;
void oracle_check_set_excuse(oracle_check_excuse_fn excuse) { excuse_fn = excuse; }

/* [handler-safe] */
static int excused(int kind, int at, int bci) { return excuse_fn && excuse_fn(kind, at, bci); }

const char *oracle_check_kind_name(int kind) { return kind >= 0 && kind < CHECK_KINDS ? kind_names[kind] : "?"; }

void oracle_check_prepare(void) { method_bounds_enable(); }

/* [handler-safe] Whether a frame of this type and bci can stand at a
 * method of this extent (method_bounds.h). */
static int verdict(int type, int bci, int extent)
{
    if (extent == METHOD_UNKNOWN) return VERDICT_UNKNOWN;
    if (extent == METHOD_INVALID || extent == METHOD_NO_CODE) return CHECK_BAD_METHOD;
    if (extent == METHOD_NATIVE) return type == ASGST_FRAME_JAVA_NATIVE ? VERDICT_OK : CHECK_BAD_TYPE;
    if (type == ASGST_FRAME_JAVA_NATIVE) return CHECK_BAD_TYPE;
    return bci >= 0 && bci < extent ? VERDICT_OK : CHECK_BAD_BCI;
}

struct ids {
    const struct api *api;
    const ASGST_Frame *f;
    jmethodID *out;
    int n;
};

/* [handler-safe] The frames' jmethodIDs; MethodToJMethodID is the VM's
 * code, so it runs guarded (ids_of). */
static void ids_run(void *arg)
{
    struct ids *c = arg;
    for (int i = 0; i < c->n; i++)
        if (c->f[i].type != ASGST_FRAME_NON_JAVA && c->f[i].method)
            c->out[i] = c->api->kind == API_AGCT ? (jmethodID)c->f[i].method
                        : c->api->method_to_jmethodid ? c->api->method_to_jmethodid(c->f[i].method) : NULL;
}

/* [handler-safe] 0, or -1 if MethodToJMethodID faulted (recorded). */
static int ids_of(const struct api *api, const ASGST_Frame *f, int n, jmethodID *out, const uint8_t *bytes, size_t len)
{
    for (int i = 0; i < n; i++) out[i] = NULL;
    struct ids c = {api, f, out, n};
    struct guard_call gc = {api->name, "method_to_jmethodid", "signal", bytes, len, NULL, NULL, 0, 0};
    return guard_run(ids_run, &c, &gc, NULL) > 0 ? -1 : 0;
}

/* [handler-safe] */
void oracle_check_walk(const struct api *api, const struct case_prog *p, const struct exec_outcome *o,
                       const ASGST_Frame *f, const uint8_t *case_bytes, size_t case_len, int tid)
{
    /* With END_ON_FIRST_JAVA_FRAME a frame names no method by design. */
    if (o->fw != EXEC_REACHED || o->frames <= 0 || (p->options & ASGST_END_ON_FIRST_JAVA_FRAME)) return;
    int n = o->frames < CHECK_FRAMES ? o->frames : CHECK_FRAMES, doubt = 0;
    atomic_fetch_add_explicit(&walks, 1, memory_order_relaxed);
    if (p->nmut || p->nstk) atomic_fetch_add_explicit(&walks_mutated, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&frames, (unsigned long long)n, memory_order_relaxed);
    int extent[CHECK_FRAMES];
    jmethodID ids[CHECK_FRAMES];
    if (ids_of(api, f, n, ids, case_bytes, case_len)) return;
    for (int i = 0; i < n; i++) {
        extent[i] = METHOD_UNKNOWN;
        if (f[i].type == ASGST_FRAME_NON_JAVA) continue;
        if (!ids[i]) {
            /* AGCT names a method by the jmethodID its class already has,
             * NULL where none was made: a gap, not a wrong frame. */
            atomic_fetch_add_explicit(&no_id, 1, memory_order_relaxed);
            continue;
        }
        extent[i] = method_bounds_get(ids[i]);
        int v = verdict(f[i].type, f[i].bci, extent[i]);
        if (v != VERDICT_OK && (v == VERDICT_UNKNOWN || !excused(v, i, f[i].bci))) doubt = 1;
    }
    if (!doubt) return;
    for (int s = 0; s < PENDING; s++) {
        int free_ = 0;
        if (!atomic_compare_exchange_strong(&pending[s].state, &free_, 1)) continue;
        struct pending *q = &pending[s];
        q->tid = tid, q->n = n, q->table_full = method_bounds_full();
        for (int i = 0; i < n; i++) q->method[i] = ids[i], q->bci[i] = f[i].bci, q->type[i] = f[i].type, q->extent[i] = extent[i];
        q->len = case_len < sizeof q->bytes ? case_len : sizeof q->bytes;
        memcpy(q->bytes, case_bytes, q->len);
        atomic_store(&q->state, 2);
        atomic_fetch_add_explicit(&queued, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
}

static const char *shape(int kind, int at, int bci, int extent)
{
    /* Every shape holds a comma: triage's title rules read "a b c" as a return type and a name. */
    if (kind == CHECK_BAD_METHOD) return extent == METHOD_NO_CODE ? "method without bytecode, says JVMTI" : "no such method, says JVMTI";
    if (kind == CHECK_BAD_TYPE) return extent == METHOD_NATIVE ? "Java frame, native method" : "native frame, Java method";
    if (at == 0) return bci < 0 ? "top frame, bci < 0" : "top frame, bci past the method's end";
    return bci < 0 ? "caller frame, bci < 0" : "caller frame, bci past the method's end";
}

/* Judges a queued walk now, frame by frame: the first frame that does not
 * fit and that no rule excuses is reported. */
static void judge(jvmtiEnv *env, struct pending *q, oracle_check_report_fn report)
{
    for (int i = 0; i < q->n; i++) {
        if (!q->method[i]) continue;
        int e = method_bounds_get(q->method[i]);
        if (verdict(q->type[i], q->bci[i], e) == VERDICT_OK) continue;
        e = method_bounds_fresh(env, q->method[i]);
        int v = verdict(q->type[i], q->bci[i], e);
        if (v == VERDICT_OK || v == VERDICT_UNKNOWN) continue;
        /* A method the VM had prepared when the walk named it, gone now:
         * its class was unloaded since, which says nothing of the walk. The
         * same for one the table could not learn any more. */
        if (e == METHOD_INVALID && (q->extent[i] != METHOD_UNKNOWN || q->table_full)) {
            atomic_fetch_add(&unloaded, 1);
            continue;
        }
        if (excused(v, i, q->bci[i])) continue;
        char why[200];
        snprintf(why, sizeof why, "frame %d: bci %d, frame type %d, method bytecode extent %d (-1 native, "
                 "-2 no code, -4 no such method)", i, q->bci[i], q->type[i], e);
        atomic_fetch_add(&kinds[v], 1);
        report(q->tid, v, i, shape(v, i, q->bci[i], e), why, q->method, q->bci, q->n, q->bytes, q->len);
        return;
    }
    atomic_fetch_add(&cleared, 1);
}

void oracle_check_drain(jvmtiEnv *env, oracle_check_report_fn report)
{
    for (int s = 0; s < PENDING; s++) {
        struct pending *q = &pending[s];
        int ready = 2;
        if (!atomic_compare_exchange_strong(&q->state, &ready, 1)) continue;
        judge(env, q, report);
        atomic_store(&q->state, 0);
    }
}

void oracle_check_print(FILE *f)
{
    fprintf(f, "asgf: oracle: consistency of sampled walks: %llu walks checked (%llu of mutated cases), %llu frames, "
            "%llu without a jmethodID; doubtful %llu (cleared later %llu, class unloaded since %llu, not queued %llu); "
            "methods known %ld%s; "
            "bad-method %llu, bad-bci %llu, bad-type %llu\n",
            (unsigned long long)walks, (unsigned long long)walks_mutated, (unsigned long long)frames,
            (unsigned long long)no_id, (unsigned long long)queued, (unsigned long long)cleared,
            (unsigned long long)unloaded, (unsigned long long)dropped, method_bounds_count(),
            method_bounds_full() ? " (table full: methods learned since are judged by JVMTI alone)" : "",
            (unsigned long long)kinds[CHECK_BAD_METHOD], (unsigned long long)kinds[CHECK_BAD_BCI],
            (unsigned long long)kinds[CHECK_BAD_TYPE]);
}

void oracle_check_json(FILE *f)
{
    fprintf(f, "\"walks\": %llu, \"walks_mutated\": %llu, \"frames\": %llu, \"no_jmethodid\": %llu, \"doubtful\": %llu, "
            "\"cleared\": %llu, \"unloaded_since\": %llu, \"not_queued\": %llu, \"bad-method\": %llu, \"bad-bci\": %llu, "
            "\"bad-type\": %llu, \"methods_known\": %ld, \"table_full\": %s",
            (unsigned long long)walks, (unsigned long long)walks_mutated, (unsigned long long)frames,
            (unsigned long long)no_id, (unsigned long long)queued, (unsigned long long)cleared,
            (unsigned long long)unloaded, (unsigned long long)dropped, (unsigned long long)kinds[CHECK_BAD_METHOD],
            (unsigned long long)kinds[CHECK_BAD_BCI], (unsigned long long)kinds[CHECK_BAD_TYPE], method_bounds_count(),
            method_bounds_full() ? "true" : "false");
}
