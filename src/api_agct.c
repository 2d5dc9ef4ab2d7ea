/*
 * Backend agct: the ASGST iterator entry points implemented over
 * AsyncGetCallTrace, so every harness runs on any HotSpot and the VM code
 * under test (HotSpot's AsyncGetCallTrace and its frame walking) is real.
 *
 * AGCT result codes map to ASGST codes by this table (the raw code is
 * always handed back through `raw`):
 *
 *   AGCT                         ASGST
 *   > 0  frames                  JAVA_TRACE (1)
 *     0  no Java frame           NO_FRAME (0)
 *    -1  no class-load events    UNSAFE_STATE (the prototype's -16 and below are
 *                                 its walker's: no code of ours goes there)
 *    -2  GC active               UNSAFE_STATE (-3)
 *    -3  unknown, not Java       UNSAFE_STATE
 *    -4  not walkable, not Java  NO_TOP_JAVA_FRAME (-4)
 *    -5  unknown Java state      UNSAFE_STATE
 *    -6  not walkable, Java      UNSAFE_STATE
 *    -7  unknown thread state    UNSAFE_STATE
 *    -8  thread exit             THREAD_EXIT (-2)
 *    -9  deopt handler           UNSAFE_STATE
 *   -10  safepoint               UNSAFE_STATE
 *   other                        UNSAFE_STATE
 *
 * What AGCT cannot give: non-Java frames (INCLUDE_NON_JAVA_FRAMES yields
 * the Java frames only), compilation levels (comp_level is -1), pc/sp/fp
 * below the top frame (NULL), and walks of another thread (stock AGCT
 * walks the calling thread whatever the context says; the harness reports
 * that answer as it is). The queue entry points come from the queue module
 * (queue_agct.c), which implements them over a per-thread ring and JVMTI.
 */
#include <stdatomic.h>
#include <string.h>
#include <jvmti.h>
#include "agct.h"
#include "api.h"
#include "arch.h"
#include "jmethods.h"
#include "queue_agct.h"
#include "regions.h"

#define ITER_MAGIC 0x41474354u /* "AGCT" */

struct agct_iter {
    uint32_t magic;
    int status; /* ASGST code of the walk */
    int options;
    int n, pos;
    const ASGCT_CallFrame *frames;
    void *pc, *sp, *fp;
};

static agct_fn agct;
static _Atomic int depth = AGCT_MAX_DEPTH;
static void *_Atomic planted_frames;

static __thread int thread_depth __attribute__((tls_model("initial-exec")));

static int clamp_depth(int d) { return d < 1 ? 1 : d > AGCT_MAX_DEPTH ? AGCT_MAX_DEPTH : d; }
void api_agct_set_depth(int d) { atomic_store(&depth, clamp_depth(d)); }
void api_agct_set_thread_depth(int d) { thread_depth = d > 0 ? clamp_depth(d) : 0; }

void api_agct_plant_bad_frames(void *p) { atomic_store(&planted_frames, p); }

static int map_code(int raw)
{
    if (raw > 0) return ASGST_JAVA_TRACE;
    switch (raw) {
    case 0: return ASGST_NO_FRAME;
    case -4: return ASGST_NO_TOP_JAVA_FRAME;
    case -8: return ASGST_THREAD_EXIT;
    default: return ASGST_UNSAFE_STATE;
    }
}

static struct agct_iter *iter_of(ASGST_Iterator *it)
{
    struct agct_iter *i = (struct agct_iter *)it;
    return i && i->magic == ITER_MAGIC ? i : NULL;
}

/* [handler-safe] */
static int run_with_iterator(void *ucontext, int32_t options, ASGST_IteratorHandler fun, void *arg, int *raw)
{
    ASGCT_CallFrame frames[AGCT_MAX_DEPTH];
    const struct thread_info *self = threads_find(threads_gettid());
    void *planted = atomic_load_explicit(&planted_frames, memory_order_relaxed);
    ASGCT_CallTrace trace = {self ? (JNIEnv *)self->jni_env : NULL, 0, planted ? planted : frames};
    int want = thread_depth ? thread_depth : atomic_load_explicit(&depth, memory_order_relaxed);
    if (options & ASGST_END_ON_FIRST_JAVA_FRAME) want = 1;
    agct(&trace, want, ucontext);
    if (raw) *raw = trace.num_frames;
    int rc = map_code(trace.num_frames);
    if (rc <= 0 || !fun) return rc;
    ucontext_t *uc = ucontext;
    struct agct_iter it = {
        .magic = ITER_MAGIC, .status = rc, .options = options, .n = trace.num_frames, .frames = frames,
        .pc = (void *)*arch_reg_slot(uc, ARCH_REG_PC), .sp = (void *)*arch_reg_slot(uc, ARCH_REG_SP),
        .fp = (void *)*arch_reg_slot(uc, ARCH_REG_FP),
    };
    fun((ASGST_Iterator *)&it, arg);
    it.magic = 0; /* the iterator dies with the callback */
    return rc;
}

void api_agct_run_over_frames(const ASGCT_CallFrame *frames, int n, int options, ASGST_IteratorHandler fun,
                              void *arg)
{
    struct agct_iter it = {.magic = ITER_MAGIC, .status = ASGST_JAVA_TRACE, .options = options, .n = n, .frames = frames};
    fun((ASGST_Iterator *)&it, arg);
    it.magic = 0;
}

/* [handler-safe] */
static int run_with_iterator_from_frame(void *sp, void *fp, void *pc, int32_t options, ASGST_IteratorHandler fun,
                                        void *arg, int *raw)
{
    ucontext_t uc;
    arch_context_from_frame(&uc, sp, fp, pc);
    return run_with_iterator(&uc, options, fun, arg, raw);
}

/* [handler-safe] */
static int next_frame(ASGST_Iterator *iterator, ASGST_Frame *f)
{
    struct agct_iter *it = iter_of(iterator);
    if (!it) return ASGST_NO_THREAD;
    if (it->status <= 0) return it->status;
    if (it->pos >= it->n) return 0;
    const ASGCT_CallFrame *cf = &it->frames[it->pos];
    memset(f, 0, sizeof *f);
    int native = cf->lineno == AGCT_LINENO_NATIVE;
    f->type = native ? ASGST_FRAME_JAVA_NATIVE : ASGST_FRAME_JAVA;
    f->comp_level = -1;
    f->bci = native ? -1 : cf->lineno;
    f->method = (ASGST_Method)cf->method_id;
    if (it->pos == 0) f->pc = it->pc, f->sp = it->sp, f->fp = it->fp;
    it->pos++;
    if (it->options & ASGST_END_ON_FIRST_JAVA_FRAME) {
        /* That option fills only pc/sp/fp, and the prototype hands the frame
         * over with the end: 0, not 1 (docs/asgst-api.md). */
        f->method = NULL, f->bci = -1;
        it->pos = it->n;
        return 0;
    }
    return 1;
}

static void rewind_iterator(ASGST_Iterator *iterator)
{
    struct agct_iter *it = iter_of(iterator);
    if (it) it->pos = 0;
}

static int state(ASGST_Iterator *iterator)
{
    struct agct_iter *it = iter_of(iterator);
    if (!it) return ASGST_NO_THREAD;
    if (it->status <= 0) return it->status;
    return it->pos < it->n;
}

/* Only what the harness knows without the VM: whether the thread is one of
 * the registered (live Java) threads. */
static int thread_state(void) { return threads_find(threads_gettid()) ? JVMTI_THREAD_STATE_ALIVE : 0; }

static int capabilities(void) { return 0; }

/* [handler-safe] */
static void copy_out(char *dst, jint *len, const char *src)
{
    if (!dst || !len || *len <= 0) return;
    jint n = 0;
    if (src)
        while (src[n] && n + 1 < *len) dst[n] = src[n], n++;
    dst[n] = 0;
    *len = n;
}

/* [handler-safe]: cache lookups only; names of uncached methods come back empty. */
static void get_method_info(ASGST_Method method, ASGST_MethodInfo *info)
{
    const struct jmethod_entry *e = jmethods_lookup((jmethodID)method);
    copy_out(info->method_name, &info->method_name_length, e ? e->name : NULL);
    copy_out(info->signature, &info->signature_length, e ? e->signature : NULL);
    copy_out(info->generic_signature, &info->generic_signature_length, e ? e->generic : NULL);
    info->klass = e ? (ASGST_Class)e->klass : NULL;
    info->modifiers = e ? e->modifiers : 0;
    info->idnum = e ? e->idnum : -1;
    info->class_idnum = e && e->klass ? e->klass->idnum : -1;
}

static void get_class_info(ASGST_Class klass, ASGST_ClassInfo *info)
{
    const struct jclass_entry *c = (const struct jclass_entry *)klass;
    copy_out(info->class_name, &info->class_name_length, c ? c->name : NULL);
    copy_out(info->generic_class_name, &info->generic_class_name_length, c ? c->generic : NULL);
    info->modifiers = c ? c->modifiers : 0;
    info->idnum = c ? c->idnum : -1;
}

static ASGST_Class get_class(ASGST_Method method)
{
    const struct jmethod_entry *e = jmethods_lookup((jmethodID)method);
    return e ? (ASGST_Class)e->klass : NULL;
}

static jmethodID method_to_jmethodid(ASGST_Method m) { return (jmethodID)m; }
static ASGST_Method jmethodid_to_method(jmethodID id) { return (ASGST_Method)id; }

/* Built once, here; nobody else writes it. */
static const struct api agct_api = {
    .name = "agct",
    .kind = API_AGCT,
    .capabilities = capabilities,
    .run_with_iterator = run_with_iterator,
    .run_with_iterator_from_frame = run_with_iterator_from_frame,
    .next_frame = next_frame,
    .rewind_iterator = rewind_iterator,
    .state = state,
    .thread_state = thread_state,
    .get_method_info = get_method_info,
    .get_class_info = get_class_info,
    .get_class = get_class,
    .method_to_jmethodid = method_to_jmethodid,
    .jmethodid_to_method = jmethodid_to_method,
    .register_queue = queue_agct_register,
    .deregister_queue = queue_agct_deregister,
    .enqueue = queue_agct_enqueue,
    .get_enqueuable_element = queue_agct_get_enqueuable_element,
    .get_queue_element = queue_agct_get_element,
    .get_queue_size_info = queue_agct_get_size_info,
    .resize_queue = queue_agct_resize,
    .set_on_queue_processing_start = queue_agct_set_on_start,
    .set_on_queue_processing_end = queue_agct_set_on_end,
};

const struct api *api_agct_bind(const char **why)
{
    if (!agct) agct = agct_resolve();
    if (!agct) {
        *why = "AsyncGetCallTrace not found in this process (no HotSpot libjvm loaded?)";
        return NULL;
    }
    return &agct_api;
}

