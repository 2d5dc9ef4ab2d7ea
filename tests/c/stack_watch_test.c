/*
 * The live-frame watch (src/stack_watch.h) without a JVM: this thread,
 * registered, whose "stack" for the watch is an array, a context pointing
 * into it with its pc in an anonymous executable mapping (the regions
 * snapshot takes the first such mapping for the code cache, so the context
 * counts as stopped in Java code), and stores made between arming and
 * checking as a walker would make them; then cases of a held batch, each
 * armed on the note the last check left. With a directory argument, a
 * hit's record is written there too (tests/live_store.t hands it to triage).
 */
#include <string.h>
#include <sys/mman.h>
#include "arch.h"
#include "guard.h"
#include "stack_watch.h"
#include "tap.h"

#define WORDS 4096
/* The context lies in the "stack" below sp, as a signal frame does. */
static struct {
    ucontext_t uc;
    uint64_t words[WORDS];
} mem __attribute__((aligned(64)));
static uint64_t *const stack = mem.words;
static uintptr_t code; /* the "code cache" */
static struct stack_watch w;

static void fresh(struct thread_info *t, ucontext_t **uc, size_t sp_word)
{
    memset(&mem, 0, sizeof mem);
    stack_watch_init(&w); /* a new context: nothing noted of it yet */
    for (size_t i = 0; i < WORDS; i += 3) stack[i] = 0x1000 + i; /* some words not 0 */
    t->stack_lo = (uintptr_t)&mem, t->stack_hi = t->frames_hi = (uintptr_t)(stack + WORDS);
    *uc = &mem.uc;
    *arch_reg_slot(*uc, ARCH_REG_SP) = (uint64_t)(uintptr_t)&stack[sp_word];
    *arch_reg_slot(*uc, ARCH_REG_FP) = (uint64_t)(uintptr_t)&stack[sp_word + 8];
    *arch_reg_slot(*uc, ARCH_REG_PC) = code + 16;
}

/* Makes a later store of v at word `at` look like the VM's anchor fill: the
 * word before it points 8 bytes past a word holding v (word `src`). Done
 * before arming, so these words are not stores themselves. */
static void plant(long at, long src, uint64_t v)
{
    stack[at - 1] = (uint64_t)(uintptr_t)&stack[src + 1];
    stack[src] = v;
}

/* arch_zero_words against a word at a time, for every length up to 64
 * and every start within a 16-byte load: words whose one 32-bit half is 0
 * must not count (the SSE2 path compares halves). */
static int zero_words_agree(void)
{
    static uint64_t words[80];
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < 80; i++) {
            seed = seed * 1103515245u + 12345u;
            uint64_t lo = (seed >> 8) % 3 ? 0 : seed, hi = (seed >> 12) % 3 ? 0 : (uint64_t)seed << 32;
            words[i] = lo | hi; /* 0 in 4 of 9, one half 0 in 4 of 9 */
        }
        for (size_t start = 0; start < 4; start++)
            for (size_t n = 0; n <= 64; n++) {
                uint64_t want = 0;
                for (size_t i = 0; i < n; i++) want |= (uint64_t)(words[start + i] == 0) << i;
                if (arch_zero_words(words + start, n) != want) return 0;
            }
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct thread_info *t;
    ucontext_t *uc;
    struct stack_watch_hit hit;
    /* fresh() leaves words 3k non-zero: sp + 1 is one; sp - 1, + 8, 11, 20, 32, 41, 123, 125, 600 are 0 */
    const long sp = 512;

    CHECK(zero_words_agree(), "arch_zero_words marks exactly the words that are 0, at every length and offset");

    void *page = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    code = (uintptr_t)page;
    regions_refresh();
    CHECK(page != MAP_FAILED && regions_in_code_cache(code), "an anonymous executable page stands for the code cache");
    threads_register_self("worker-0", NULL);
    t = (struct thread_info *)threads_find(threads_gettid());
    CHECK(t != NULL, "this thread is registered");
    if (!t) return TAP_DONE();

    fresh(t, &uc, sp);
    stack_watch_set(0, 1);
    CHECK(!stack_watch_arm(&w, uc, t), "watch off (0 bytes): nothing is armed");
    CHECK(stack_watch_check(&w, &hit) == 0 && !hit.frame, "an unarmed watch reports nothing");

    stack_watch_set(4096, 1); /* 512 words above sp */
    plant(sp + 8, sp + 299, 0x5eed00000000a7ULL);
    plant(sp + 11, sp + 302, code + 64);
    CHECK(stack_watch_arm(&w, uc, t), "4096 bytes: armed on this thread's context, stopped in Java code");
    stack[sp + 8] = 0x5eed00000000a7ULL;   /* a zero frame word filled as an anchor's pc: recorded, put back */
    stack[sp + 11] = code + 64;             /* a code address filled over 0: put back, not recorded */
    stack[sp + 20] = 0xbad;                 /* a zero word stored into otherwise: recorded, left */
    stack[sp + 1] = 0x2222;                 /* a word that was not 0 changed: left */
    stack[sp + 600] = 0x3333;               /* a zero word beyond the 512 watched: not seen */
    *arch_reg_slot(uc, ARCH_REG_FP) += 64;  /* a register of the live context */
    int n = stack_watch_check(&w, &hit);
    CHECK(n == 3 && hit.frame == 2 && hit.frame_code == 1 && hit.regs == 1 && hit.context == 0 && hit.left == 1 &&
              hit.put_back,
          "stores found: two frame words, one not in the anchor fill's shape, a code address, a register (%d to "
          "record: frame %d, code %d, registers %d; %d of another shape)",
          n, hit.frame, hit.frame_code, hit.regs, hit.left);
    CHECK(stack[sp + 8] == 0 && stack[sp + 11] == 0, "both anchor-shaped frame words are put back to 0");
    CHECK(stack[sp + 20] == 0xbad, "the store of another shape is left as it is (someone else's, or not the fill)");
    CHECK(hit.first_at == 64 && hit.first_value == 0x5eed00000000a7ULL && !hit.first_reg,
          "the hit names the first recorded store: sp+%ld, value %#llx", hit.first_at, (unsigned long long)hit.first_value);
    CHECK(*arch_reg_slot(uc, ARCH_REG_FP) == (uint64_t)(uintptr_t)&stack[sp + 8], "the register is put back");
    CHECK(stack[sp + 1] == 0x2222 && stack[sp + 600] == 0x3333,
          "a word that was not 0, and one outside the window, are left as they are");
    CHECK(stack_watch_check(&w, &hit) == 0, "a check disarms: a second one reports nothing");

    fresh(t, &uc, sp);
    CHECK(stack_watch_arm(&w, uc, t), "armed again");
    uc->uc_sigmask.__val[0] = 0x4000;       /* a word of the signal context below sp, not the fill's shape */
    stack[sp - 1] = 0x77;                   /* the red zone / signal frame, also below sp */
    n = stack_watch_check(&w, &hit);
    CHECK(n == 2 && hit.context == 2 && !hit.left && hit.first_at < 0 && uc->uc_sigmask.__val[0] == 0 &&
              stack[sp - 1] == 0,
          "stores below sp, into the signal context, are found and put back whatever their shape: only the walk "
          "writes there (%d, first at sp%ld, %d left)",
          hit.context, hit.first_at, hit.left);

    fresh(t, &uc, sp);
    stack_watch_set(992, 1); /* 124 words above sp: the last 64-word group is partial */
    plant(sp + 123, sp + 305, 9);
    CHECK(stack_watch_arm(&w, uc, t), "armed with a window of 124 words");
    stack[sp + 123] = 9, stack[sp + 125] = 9;
    CHECK(stack_watch_check(&w, &hit) == 1 && stack[sp + 123] == 0 && stack[sp + 125] == 9,
          "the window's last word is watched, one past it not");

    fresh(t, &uc, sp);
    stack_watch_set(4096, 0);
    CHECK(stack_watch_arm(&w, uc, t), "armed with putting back off (protect=0)");
    stack[sp + 8] = 0x5eed;
    CHECK(stack_watch_check(&w, &hit) == 1 && !hit.put_back && stack[sp + 8] == 0x5eed,
          "protect=0: the store is counted and left, so the VM fails as it would");
    stack_watch_set(4096, 1);

    fresh(t, &uc, sp);
    t->frames_hi = (uintptr_t)&stack[sp + 16]; /* the thread's TLS starts 16 words above sp */
    plant(sp + 11, sp + 308, 7);
    CHECK(stack_watch_arm(&w, uc, t), "armed on a thread whose frames end 16 words above sp");
    stack[sp + 11] = 7, stack[sp + 20] = 7;
    CHECK(stack_watch_check(&w, &hit) == 1 && stack[sp + 11] == 0 && stack[sp + 20] == 7,
          "words above frames_hi (TLS, the thread descriptor) are not watched");

    fresh(t, &uc, sp);
    *arch_reg_slot(uc, ARCH_REG_PC) = 0x401000;
    CHECK(!stack_watch_arm(&w, uc, t), "a context stopped outside Java code is not watched (others may write its frames)");
    fresh(t, &uc, sp);
    *arch_reg_slot(uc, ARCH_REG_SP) = 0x10;
    CHECK(!stack_watch_arm(&w, uc, t), "a context whose sp is outside the thread's stack is not watched");
    fresh(t, &uc, sp);
    struct thread_info other = *t;
    other.tid = t->tid + 1;
    CHECK(!stack_watch_arm(&w, uc, &other) && !stack_watch_arm(&w, uc, NULL),
          "nor the context of another thread (mode=thread) or of an unknown one");

    /* A held batch: each case's arm takes the note its last check left. */
    fresh(t, &uc, sp);
    plant(sp + 8, sp + 299, 0x5eed00000000a7ULL);
    CHECK(stack_watch_arm(&w, uc, t), "a held batch's first case: armed");
    stack[sp + 8] = 0x5eed00000000a7ULL; /* put back */
    stack[sp + 20] = 0xbad;              /* left */
    stack[sp + 1] = 0;                   /* a word that was not 0 now is */
    CHECK(stack_watch_check(&w, &hit) == 2 && hit.left == 1, "the first case's two stores are found");
    CHECK(stack_watch_arm(&w, uc, t), "the second case: armed on the note the check left");
    stack[sp + 8] = 0x5eed00000000a7ULL; /* the put-back word filled again */
    stack[sp + 1] = 0x44;                /* the word that became 0 stored into */
    stack[sp + 20] = 0xbad2;             /* the word left before: not 0, so not watched */
    n = stack_watch_check(&w, &hit);
    CHECK(n == 2 && hit.frame == 2 && hit.left == 1 && stack[sp + 8] == 0,
          "the words the note has as 0 are found: the put-back one and the one that became 0 (%d, %d left)",
          hit.frame, hit.left);
    CHECK(stack_watch_arm(&w, uc, t), "the third case: armed");
    CHECK(stack_watch_check(&w, &hit) == 0, "a walk that stores nothing: nothing found, the stores left before are "
                                             "not found again");
    stack_watch_set(4096, 0);
    CHECK(stack_watch_arm(&w, uc, t), "protect=0: armed");
    *arch_reg_slot(uc, ARCH_REG_FP) += 64;
    CHECK(stack_watch_check(&w, &hit) == 1 && hit.regs == 1, "a register changed, and left");
    CHECK(stack_watch_arm(&w, uc, t) && stack_watch_check(&w, &hit) == 0,
          "the next case takes the changed register as it is now: not found again");
    stack_watch_set(4096, 1);
    stack[sp + 41] = 5; /* between two cases, where in a held batch only the walks write */
    CHECK(stack_watch_arm(&w, uc, t) && stack_watch_check(&w, &hit) == 1 && hit.frame == 1,
          "an arm on the kept note reads no word: a store between cases counts as the next walk's");
    stack[sp + 32] = 5;                  /* stored between cases: by an unwatched walk */
    stack_watch_init(&w);
    CHECK(stack_watch_arm(&w, uc, t) && stack_watch_check(&w, &hit) == 0,
          "after stack_watch_init the words are read afresh: the unwatched store is not the next walk's");

    if (argc > 1) {
        const char *why = NULL;
        static const uint8_t case_bytes[] = "ASGF\1\0\0\0\0\0\0\0\0\0\0\0";
        const struct guard_call call = {"agct", "run_with_iterator", "signal", case_bytes, 16, NULL, NULL, 0, 0};
        CHECK(guard_install(argv[1], &why) == 0, "guard installed with record directory %s (%s)", argv[1], why ? why : "ok");
        fresh(t, &uc, sp);
        stack_watch_arm(&w, uc, t);
        stack[sp + 32] = 0x5eed00000000a7ULL;
        stack_watch_check(&w, &hit);
        stack_watch_record(&hit, &call, t);
        CHECK(hit.frame == 1, "a hit to record: one frame word");
    }
    return TAP_DONE();
}
