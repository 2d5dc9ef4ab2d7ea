/* One case, one guarded API call (see exec.h). Everything here is handler-safe. */
#include <string.h>
#include "arch.h"
#include "exec.h"
#include "fnv.h"
#include "inflight.h"
#include "info_calls.h"
#include "mutate.h"
#include "qops.h"
#include "stack_image.h"

struct call {
    const struct exec_ctx *cx;
    const struct case_prog *p;
    ucontext_t *uc;
    struct exec_outcome *out;
    uint64_t seed; /* from the case bytes: the info-call variants (0 for a case without them) */
    int slot;      /* the target thread's registry slot, -1 if unknown */
};

static int walk(struct call *c, ASGST_Iterator *it, int keep)
{
    const struct api *api = c->cx->api;
    ASGST_Frame f;
    int n = 0, rc = 0;
    /* END_ON_FIRST_JAVA_FRAME's one frame comes with the end: 0 and a frame */
    int last_with_end = (c->p->options & ASGST_END_ON_FIRST_JAVA_FRAME) != 0;
    while (n < EXEC_WALK_LIMIT) {
        f.type = 0;
        c->out->last_vm = rc = api->next_frame(it, &f);
        if (rc != 1 && !(rc == 0 && last_with_end && f.type)) break;
        if (keep && c->cx->frames_out && n < c->cx->frames_cap) c->cx->frames_out[n] = f;
        n++;
        c->out->types_seen |= (uint8_t)(1u << (f.type & 7));
        /* Info calls on the first frames only: each is a round of ten
         * calls, and deeper frames add no new argument shapes. */
        if ((c->p->flags & CASE_FLAG_METHOD_INFO) && f.method && n <= 4)
            info_calls_method(api, f.method, f.bci, c->seed + (uint64_t)n);
        if (rc == 0) break;
    }
    if (rc < 0) c->out->walk_error = rc;
    /* Past the end: the prototype must keep answering, not walk on. */
    if (rc == 0) (void)api->next_frame(it, &f);
    if (api->state) (void)api->state(it);
    return n;
}

static void on_iterator(ASGST_Iterator *it, void *arg)
{
    struct call *c = arg;
    if (c->cx->api->thread_state) (void)c->cx->api->thread_state();
    c->out->frames = walk(c, it, 1);
    if ((c->p->flags & CASE_FLAG_REWIND) && c->cx->api->rewind_iterator) {
        c->cx->api->rewind_iterator(it);
        c->out->rewind_mismatch = walk(c, it, 0) != c->out->frames;
    }
}

static void unsupported(struct exec_outcome *out) { out->fw = EXEC_UNBOUND; }

const char *exec_fw_name(int fw)
{
    static const char *const names[EXEC_FW__COUNT] = {"reached", "unbound", "no_queue", "fault", "nested",
                                                      "guard_full"};
    return fw >= 0 && fw < EXEC_FW__COUNT ? names[fw] : "?";
}

int exec_entry_to_run(const struct exec_ctx *cx, int entry)
{
    const struct api *api = cx->api;
    switch (entry) {
    case ENTRY_RUN_WITH_ITERATOR_FROM_FRAME:
        return api->run_with_iterator_from_frame ? entry : ENTRY_RUN_WITH_ITERATOR;
    case ENTRY_ENQUEUE:
        if (api->enqueue && cx->queue) return entry;
        /* No queue here: the element Enqueue would have stored. */
        return api->get_enqueuable_element ? ENTRY_GET_ENQUEUABLE_ELEMENT : ENTRY_RUN_WITH_ITERATOR;
    case ENTRY_GET_ENQUEUABLE_ELEMENT:
        return api->get_enqueuable_element ? entry : ENTRY_RUN_WITH_ITERATOR;
    default:
        return ENTRY_RUN_WITH_ITERATOR;
    }
}

static void do_call(void *arg)
{
    struct call *c = arg;
    const struct api *api = c->cx->api;
    struct exec_outcome *out = c->out;
    int opts = c->p->options;
    switch (out->entry) {
    case ENTRY_RUN_WITH_ITERATOR:
        out->ret = api->run_with_iterator(c->uc, opts, on_iterator, c, &out->raw);
        break;
    case ENTRY_RUN_WITH_ITERATOR_FROM_FRAME:
        if (!api->run_with_iterator_from_frame) return unsupported(out);
        out->ret = api->run_with_iterator_from_frame(
            (void *)*arch_reg_slot(c->uc, ARCH_REG_SP), (void *)*arch_reg_slot(c->uc, ARCH_REG_FP),
            (void *)*arch_reg_slot(c->uc, ARCH_REG_PC), opts, on_iterator, c, &out->raw);
        break;
    case ENTRY_ENQUEUE:
        if (!api->enqueue) return unsupported(out);
        if (!c->cx->queue) {
            out->fw = EXEC_NO_QUEUE;
            return;
        }
        out->ret = out->raw = api->enqueue(c->cx->queue, c->uc, (void *)c->cx->case_bytes);
        break;
    default: {
        if (!api->get_enqueuable_element) return unsupported(out);
        ASGST_QueueElement e;
        out->ret = out->raw = api->get_enqueuable_element(c->uc, &e);
        break;
    }
    }
    out->last_vm = out->ret;
    if (c->p->nqop) qops_run_signal(api, c->slot, c->p, c->uc, c->cx->case_bytes, c->cx->case_len);
}

void exec_case(const struct exec_ctx *cx, const struct case_prog *p, ucontext_t *live,
               const struct thread_info *self, struct exec_outcome *out)
{
    /* Here, in this frame: below the interrupted sp on the thread's own
     * stack, and alive for the whole guarded call. */
    struct exec_held h;
    exec_held_init(&h);
    exec_case_held(cx, p, live, self, out, &h);
}

void exec_held_init(struct exec_held *h)
{
    stack_image_init(&h->img);
    stack_watch_init(&h->watch);
}

void exec_case_held(const struct exec_ctx *cx, const struct case_prog *p, ucontext_t *live,
                    const struct thread_info *self, struct exec_outcome *out, struct exec_held *h)
{
    struct stack_image *img = &h->img;
    ucontext_t uc;
    memset(out, 0, sizeof *out);
    if (live) memcpy(&uc, live, sizeof uc);
    else memset(&uc, 0, sizeof uc);
    out->image = stack_image_build(img, p, &uc, self);
    out->image_written = img->written, out->image_skipped = img->skipped;
    struct mutate_image bounds = {(uintptr_t)img->words, (uintptr_t)img->words + img->len};
    out->region_hits = mutate_apply(p, &uc, self, out->image == STACK_IMAGE_BUILT ? &bounds : NULL);
    inflight_store(cx->case_bytes, cx->case_len);

    /* The thread's current queue, if a harness keeps it in qops (a qop may
     * have replaced the one the harness knows). */
    int slot = self ? threads_slot(self) : -1;
    struct exec_ctx here = *cx;
    ASGST_Queue *current = qops_queue(slot);
    if (current) here.queue = current;
    cx = &here;
    out->entry = exec_entry_to_run(cx, p->entry);
    out->substituted = out->entry != p->entry;
    struct guard_call gc = {cx->api->name, case_entry_name(out->entry), cx->mode, cx->case_bytes, cx->case_len, NULL, NULL, 0, 0};
    if (out->image == STACK_IMAGE_BUILT) gc.image = img->words, gc.image_len = img->len, gc.image_real_sp = img->real_sp;
    /* Only the info calls use it, and hashing the case a byte at a time
     * was a third of this function's own time in every case. */
    uint64_t seed = p->flags & CASE_FLAG_METHOD_INFO ? fnv1a(FNV1A_BASIS, cx->case_bytes, cx->case_len) : 0;
    struct call c = {cx, p, &uc, out, seed, slot};
    if (cx->api->kind == API_AGCT) api_agct_set_thread_depth(p->depth);
    out->last_vm = EXEC_NO_VM_CODE;
    gc.last_vm = &out->last_vm;
    /* A mutated context or forged stack can lead the VM's walker to store
     * into the thread's live frames and signal context (stack_watch.h). */
    int watching = (p->nmut || p->nstk) && stack_watch_arm(&h->watch, live, self);
    /* An unwatched walk may store into live too (the VM's own anchor fill):
     * the next case's arm must read the words afresh. */
    if (!watching) stack_watch_init(&h->watch);
    out->guard_rc = guard_run(do_call, &c, &gc, &out->fault);
    if (watching && stack_watch_check(&h->watch, &out->watch)) stack_watch_record(&out->watch, &gc, self);
    if (out->guard_rc > 0) out->fw = EXEC_FAULT;
    else if (out->guard_rc == GUARD_NESTED) out->fw = EXEC_NESTED;
    else if (out->guard_rc == GUARD_FULL) out->fw = EXEC_GUARD_FULL;
    if (cx->api->kind == API_AGCT) api_agct_set_thread_depth(0);
}
