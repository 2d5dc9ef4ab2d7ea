/* Stores a walk makes into the walked thread's live state (see stack_watch.h). */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include "arch.h"
#include "case.h"
#include "fnv.h"
#include "guard.h"
#include "guard_call.h"
#include "record.h"
#include "sigsafe.h"
#include "stack_watch.h"

static _Atomic long watch_bytes;
static _Atomic int watch_put_back;

void stack_watch_set(long bytes, int put_back)
{
    atomic_store(&watch_bytes, bytes <= 0 ? 0 : bytes > STACK_WATCH_MAX ? STACK_WATCH_MAX : bytes);
    atomic_store(&watch_put_back, put_back);
}

long stack_watch_bytes(void) { return atomic_load_explicit(&watch_bytes, memory_order_relaxed); }

int stack_watch_puts_back(void) { return atomic_load_explicit(&watch_put_back, memory_order_relaxed); }

void stack_watch_init(struct stack_watch *w) { w->lo = w->kept_lo = 0; }

/* Not instrumented: the words read are the frames above the handler,
 * whose redzones an ASan build poisons though they are readable stack. */
__attribute__((no_sanitize_address)) int stack_watch_arm(struct stack_watch *w, ucontext_t *live,
                                                        const struct thread_info *self)
{
    uintptr_t kept = w->kept_lo;
    w->lo = w->kept_lo = 0;
    long bytes = stack_watch_bytes();
    if (!bytes || !live || !self || !self->stack_hi || self->tid != threads_gettid()) return 0;
    if (!regions_in_code_cache((uintptr_t)*arch_reg_slot(live, ARCH_REG_PC))) return 0;
    uintptr_t sp = (uintptr_t)*arch_reg_slot(live, ARCH_REG_SP);
    uintptr_t top = self->frames_hi ? self->frames_hi : self->stack_hi;
    if (sp & 7 || sp < self->stack_lo || sp >= top) return 0;
    /* The signal frame lies just below the interrupted sp, the context at
     * its start; on an alternate signal stack it is elsewhere, and not
     * watched. */
    uintptr_t ctx = (uintptr_t)live & ~(uintptr_t)7;
    uintptr_t lo = ctx < sp && sp - ctx <= STACK_WATCH_CTX_MAX && ctx >= self->stack_lo ? ctx : sp;
    size_t n = (sp - lo + (top - sp < (uintptr_t)bytes ? top - sp : (uintptr_t)bytes)) / 8;
    if (kept == lo && w->uc == live && w->sp == sp && w->n == n) {
        w->lo = lo;
        return 1;
    }
    const uint64_t *s = (const uint64_t *)lo;
    for (size_t g = 0; g * 64 < n; g++) w->zero[g] = arch_zero_words(s + g * 64, n - g * 64 < 64 ? n - g * 64 : 64);
    int regs = arch_reg_count();
    for (int r = 0; r < regs && r < STACK_WATCH_REGS; r++) w->regs[r] = *arch_reg_slot(live, r);
    w->uc = live, w->n = n, w->sp = sp, w->lo = lo;
    return 1;
}

/* [handler-safe] Whether the store of v into word i has the shape of the
 * VM's anchor fill: the word before it (the anchor's sp) holds an address
 * S, and v is the word at S - 8, which the fill copies. A store of any other
 * shape was not made by that fill. */
static int anchor_fill(const uint64_t *s, size_t i, uint64_t v)
{
    uint64_t below = 0;
    return i > 0 && s[i - 1] > 8 && !sigsafe_read((uintptr_t)(s[i - 1] - 8), &below, sizeof below) && below == v;
}

/* [handler-safe] The first store to record: a word at sp + at, or register reg - 1. */
static void note_first(struct stack_watch_hit *hit, long at, int reg, uint64_t v)
{
    if (!stack_watch_recorded(hit)) hit->first_at = at, hit->first_reg = reg, hit->first_value = v;
}

__attribute__((no_sanitize_address)) int stack_watch_check(struct stack_watch *w, struct stack_watch_hit *hit)
{
    memset(hit, 0, sizeof *hit);
    if (!w->lo) return 0;
    int put_back = stack_watch_puts_back();
    uint64_t *s = (uint64_t *)w->lo;
    size_t n_ctx = (w->sp - w->lo) / 8;
    for (size_t g = 0; g * 64 < w->n; g++) {
        /* Words 0 before the walk and not now: the walk's stores. */
        uint64_t now = arch_zero_words(s + g * 64, w->n - g * 64 < 64 ? w->n - g * 64 : 64);
        uint64_t stored = w->zero[g] & ~now;
        w->zero[g] = now;
        for (uint64_t bits = stored; bits; bits &= bits - 1) {
            uint64_t bit = bits & -bits;
            size_t i = g * 64 + (size_t)__builtin_ctzll(bits);
            uint64_t v = s[i];
            long at = (long)(i * 8) - (long)(n_ctx * 8);
            if (i < n_ctx) {
                note_first(hit, at, 0, v);
                hit->context++;
            } else if (regions_in_vm_code((uintptr_t)v)) {
                hit->frame_code++;
            } else {
                note_first(hit, at, 0, v);
                hit->frame++;
            }
            /* The signal frame is this handler's own: nobody but the walk
             * writes it meanwhile, and the kernel restores it at return.
             * In the frames only the fill's own stores are undone: a word
             * written by anyone else stays as they wrote it. */
            if (i >= n_ctx && !anchor_fill(s, i, v)) {
                hit->left++;
            } else if (put_back) {
                s[i] = 0;
                w->zero[g] |= bit;
            }
        }
    }
    int regs = arch_reg_count();
    for (int r = 0; r < regs && r < STACK_WATCH_REGS; r++) {
        uint64_t *slot = arch_reg_slot(w->uc, r);
        if (*slot == w->regs[r]) continue;
        note_first(hit, 0, r + 1, *slot);
        hit->regs++;
        if (put_back) *slot = w->regs[r];
        else w->regs[r] = *slot;
    }
    hit->put_back = put_back;
    w->kept_lo = w->lo;
    w->lo = 0;
    return stack_watch_recorded(hit);
}

void stack_watch_record(const struct stack_watch_hit *hit, const struct guard_call *call,
                        const struct thread_info *self)
{
    if (!stack_watch_recorded(hit)) return;
    const char *dir = guard_record_dir();
    if (!dir) {
        static const char msg[] = "asgf: a walk stored into the walked thread's live state; no record directory\n";
        sigsafe_write_all(STDERR_FILENO, msg, sizeof msg - 1);
        return;
    }
    const char *place = hit->frame ? "frame" : "context";
    uint64_t key = fnv1a(FNV1A_BASIS, "write|", 6);
    key = fnv1a(key, place, strlen(place));
    /* Rare (a record per hit): the text may take handler stack here. */
    char text[2 * CASE_MAX_SIZE + 1024], path[400];
    SBUF(b, text);
    record_head(&b, self ? self->tid : threads_gettid(), self ? self->name : NULL, call->backend, call->entry,
                call->mode);
    sb_str(&b, "\nkey: ");
    record_key_text(&b, key);
    sb_str(&b, "\nwrite: ");
    sb_str(&b, place);
    sb_str(&b, "\nframe_words: ");
    sb_dec(&b, hit->frame);
    sb_str(&b, "\nframe_code_words: ");
    sb_dec(&b, hit->frame_code);
    sb_str(&b, "\ncontext_words: ");
    sb_dec(&b, hit->context);
    sb_str(&b, "\nregisters: ");
    sb_dec(&b, hit->regs);
    sb_str(&b, "\nput_back: ");
    sb_str(&b, hit->put_back ? "yes" : "no");
    sb_str(&b, "\nnot_anchor_fill: ");
    sb_dec(&b, hit->left);
    sb_str(&b, "\nfirst_store: ");
    if (hit->first_reg) {
        sb_str(&b, arch_reg_name(hit->first_reg - 1));
    } else {
        sb_str(&b, hit->first_at >= 0 ? "sp+" : "sp");
        sb_dec(&b, hit->first_at);
    }
    sb_chr(&b, ' ');
    sb_hex(&b, hit->first_value, 16);
    if (call->case_bytes && call->case_len && call->case_len <= CASE_MAX_SIZE) {
        sb_str(&b, "\ncase: ");
        sb_hexbytes(&b, call->case_bytes, call->case_len);
    }
    sb_str(&b, "\nEND\n");
    record_text(dir, key, b.p, b.len, path, sizeof path);
}
