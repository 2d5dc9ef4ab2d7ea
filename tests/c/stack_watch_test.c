/*
 * The live-frame watch (src/stack_watch.h) without a JVM: a "thread" whose
 * stack is an array, a context pointing into it, and stores made between
 * arming and checking as a walker would make them. With a directory
 * argument, a hit's record is written there too (tests/core_stack_watch.t
 * hands it to triage).
 */
#include <string.h>
#include "arch.h"
#include "guard.h"
#include "stack_watch.h"
#include "tap.h"

#define WORDS 4096
static uint64_t stack[WORDS];

static void fresh(struct thread_info *t, ucontext_t *uc, size_t sp_word)
{
    memset(stack, 0, sizeof stack);
    for (size_t i = 0; i < WORDS; i += 3) stack[i] = 0x1000 + i; /* some words not 0 */
    memset(t, 0, sizeof *t);
    t->tid = 1, t->stack_lo = (uintptr_t)stack, t->stack_hi = t->frames_hi = (uintptr_t)(stack + WORDS);
    memset(uc, 0, sizeof *uc);
    *arch_reg_slot(uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)&stack[sp_word];
    *arch_reg_slot(uc, ARCH_REG_FP) = (uint64_t)(uintptr_t)&stack[sp_word + 8];
    *arch_reg_slot(uc, ARCH_REG_PC) = 0x401000;
}

int main(int argc, char **argv)
{
    struct thread_info t;
    ucontext_t uc;
    struct stack_watch w;
    struct stack_watch_hit hit;
    const size_t sp = 512; /* fresh() leaves words 3k non-zero: sp + 1 is one, sp + 8, 11, 20, 32, 600 are 0 */

    fresh(&t, &uc, sp);
    stack_watch_set_bytes(0);
    CHECK(!stack_watch_arm(&w, &uc, &t), "watch off (0 bytes): nothing is armed");
    CHECK(stack_watch_check(&w, &hit) == 0 && !hit.put_back, "an unarmed watch reports nothing");

    stack_watch_set_bytes(4096); /* 512 words above sp */
    CHECK(stack_watch_arm(&w, &uc, &t), "4096 bytes: armed on a context whose sp is in the thread's stack");
    stack[sp + 8] = 0x5eed00000000a7ULL;   /* a zero word stored into: put back */
    stack[sp + 1] = 0x2222;                /* a word that was not 0 changed (fresh filled sp + 1): left */
    stack[sp + 600] = 0x3333;              /* a zero word beyond the 512 watched: not seen */
    *arch_reg_slot(&uc, ARCH_REG_FP) += 64; /* a register of the live context */
    int n = stack_watch_check(&w, &hit);
    CHECK(n == 2 && hit.put_back == 1 && hit.regs == 1, "one word and one register stored into: reported (%d: %d words, %d registers)",
          n, hit.put_back, hit.regs);
    CHECK(stack[sp + 8] == 0, "the stored zero word is put back to 0 (now %#llx)", (unsigned long long)stack[sp + 8]);
    CHECK(hit.first_at == 64 && hit.first_value == 0x5eed00000000a7ULL,
          "the hit names the first word: sp+%ld, value %#llx", hit.first_at, (unsigned long long)hit.first_value);
    CHECK(*arch_reg_slot(&uc, ARCH_REG_FP) == (uint64_t)(uintptr_t)&stack[sp + 8], "the register is put back");
    CHECK(stack[sp + 1] == 0x2222 && stack[sp + 600] == 0x3333,
          "a word that was not 0, and one outside the window, are left as they are");
    CHECK(stack_watch_check(&w, &hit) == 0, "a check disarms: a second one reports nothing");

    fresh(&t, &uc, sp);
    t.frames_hi = (uintptr_t)&stack[sp + 16]; /* the thread's TLS starts 16 words above sp */
    CHECK(stack_watch_arm(&w, &uc, &t), "armed on a thread whose frames end 16 words above sp");
    stack[sp + 11] = 7, stack[sp + 20] = 7;
    CHECK(stack_watch_check(&w, &hit) == 1 && stack[sp + 11] == 0 && stack[sp + 20] == 7,
          "words above frames_hi (TLS, the thread descriptor) are not watched");

    fresh(&t, &uc, sp);
    *arch_reg_slot(&uc, ARCH_REG_SP) = 0x10; /* sp outside the thread's stack */
    CHECK(!stack_watch_arm(&w, &uc, &t), "a context whose sp is outside the thread's stack is not watched");
    CHECK(!stack_watch_arm(&w, &uc, NULL), "nor one of an unknown thread");

    if (argc > 1) {
        const char *why = NULL;
        static const uint8_t case_bytes[] = "ASGF\1\0\0\0\0\0\0\0\0\0\0\0";
        const struct guard_call call = {"agct", "run_with_iterator", "signal", case_bytes, 16, NULL, NULL, 0, 0};
        CHECK(guard_install(argv[1], &why) == 0, "guard installed with record directory %s (%s)", argv[1], why ? why : "ok");
        fresh(&t, &uc, sp);
        strcpy(t.name, "worker-0");
        stack_watch_arm(&w, &uc, &t);
        stack[sp + 32] = 0x5eed00000000a7ULL;
        stack_watch_check(&w, &hit);
        stack_watch_record(&hit, &call, &t);
        CHECK(hit.put_back == 1, "a hit to record: one word put back");
    }
    return TAP_DONE();
}
