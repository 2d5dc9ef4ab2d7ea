/* Writes a walk makes into the walked thread's live state (see stack_watch.h). */
#include <stdatomic.h>
#include <string.h>
#include "arch.h"
#include "case.h"
#include "fnv.h"
#include "guard.h"
#include "guard_call.h"
#include "record.h"
#include "sigsafe.h"
#include "stack_watch.h"

static _Atomic long watch_bytes;

void stack_watch_set_bytes(long bytes)
{
    atomic_store(&watch_bytes, bytes <= 0 ? 0 : bytes > STACK_WATCH_MAX ? STACK_WATCH_MAX : bytes);
}

long stack_watch_bytes(void) { return atomic_load_explicit(&watch_bytes, memory_order_relaxed); }

/* Not instrumented: the words read are the frames above the handler,
 * whose redzones an ASan build poisons though they are readable stack. */
__attribute__((no_sanitize_address)) int stack_watch_arm(struct stack_watch *w, ucontext_t *live,
                                                        const struct thread_info *self)
{
    w->lo = 0;
    long bytes = stack_watch_bytes();
    if (!bytes || !live || !self || !self->stack_hi) return 0;
    uintptr_t sp = (uintptr_t)*arch_reg_slot(live, ARCH_REG_SP);
    uintptr_t top = self->frames_hi ? self->frames_hi : self->stack_hi;
    if (sp & 7 || sp < self->stack_lo || sp >= top) return 0;
    size_t n = (top - sp < (uintptr_t)bytes ? top - sp : (uintptr_t)bytes) / 8;
    const uint64_t *s = (const uint64_t *)sp;
    /* Whole 64-word groups without a branch per word: this runs before
     * every mutated case. */
    for (size_t g = 0; g * 64 < n; g++) {
        uint64_t bits = 0;
        size_t end = n - g * 64 < 64 ? n - g * 64 : 64;
        for (size_t i = 0; i < end; i++) bits |= (uint64_t)(s[g * 64 + i] == 0) << i;
        w->zero[g] = bits;
    }
    for (int r = 0; r < arch_reg_count() && r < STACK_WATCH_REGS; r++) w->regs[r] = *arch_reg_slot(live, r);
    w->uc = live, w->n = n, w->lo = sp;
    return 1;
}

static int is_code(uint64_t v)
{
    return regions_in_libjvm((uintptr_t)v) || regions_in_code_cache((uintptr_t)v);
}

__attribute__((no_sanitize_address)) int stack_watch_check(struct stack_watch *w, struct stack_watch_hit *hit)
{
    memset(hit, 0, sizeof *hit);
    if (!w->lo) return 0;
    uint64_t *s = (uint64_t *)w->lo;
    for (size_t g = 0; g * 64 < w->n; g++) {
        for (uint64_t bits = w->zero[g]; bits; bits &= bits - 1) {
            size_t i = g * 64 + (size_t)__builtin_ctzll(bits);
            uint64_t v = s[i];
            if (!v) continue;
            if (is_code(v)) {
                hit->left++;
                continue;
            }
            if (!hit->put_back++) hit->first_at = (long)(i * 8), hit->first_value = v;
            s[i] = 0;
        }
    }
    for (int r = 0; r < arch_reg_count() && r < STACK_WATCH_REGS; r++) {
        uint64_t *slot = arch_reg_slot(w->uc, r);
        if (*slot != w->regs[r]) hit->regs++, *slot = w->regs[r];
    }
    w->lo = 0;
    return hit->put_back + hit->regs;
}

void stack_watch_record(const struct stack_watch_hit *hit, const struct guard_call *call,
                        const struct thread_info *self)
{
    const char *dir = guard_record_dir();
    if (!dir || !(hit->put_back || hit->regs)) return;
    const char *what = hit->put_back ? "frame" : "registers";
    uint64_t key = fnv1a(FNV1A_BASIS, "write|", 6);
    key = fnv1a(key, what, strlen(what));
    char text[2 * CASE_MAX_SIZE + 1024], path[400];
    SBUF(b, text);
    record_head(&b, threads_gettid(), self ? self->name : NULL, call->backend, call->entry, call->mode);
    sb_str(&b, "\nkey: ");
    uint8_t kb[8];
    for (int i = 0; i < 8; i++) kb[i] = (uint8_t)(key >> (56 - 8 * i));
    sb_hexbytes(&b, kb, sizeof kb);
    sb_str(&b, "\nwrite: ");
    sb_str(&b, what);
    sb_str(&b, "\nwords_put_back: ");
    sb_dec(&b, hit->put_back);
    sb_str(&b, "\nwords_left: ");
    sb_dec(&b, hit->left);
    sb_str(&b, "\nregisters_put_back: ");
    sb_dec(&b, hit->regs);
    if (hit->put_back) {
        sb_str(&b, "\nfirst_word: sp+");
        sb_dec(&b, hit->first_at);
        sb_chr(&b, ' ');
        sb_hex(&b, hit->first_value, 16);
    }
    if (call->case_bytes && call->case_len && call->case_len <= CASE_MAX_SIZE) {
        sb_str(&b, "\ncase: ");
        sb_hexbytes(&b, call->case_bytes, call->case_len);
    }
    sb_str(&b, "\nEND\n");
    record_text(dir, key, b.p, b.len, path, sizeof path);
}
