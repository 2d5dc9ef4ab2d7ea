/*
 * Code for tests/triage_boundary.t to point synthetic crash records at: a
 * fault site and its callers, code a signal could interrupt, an API entry,
 * and a copy of the C library's sigreturn trampoline (the two instructions
 * triage knows it by). Never called; only its addresses and symbols matter.
 */
#include <stdint.h>

#define BODY __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop")
void tm_fault_site(void) { BODY; }
void tm_other_site(void) { BODY; }
void tm_run_from(void) { BODY; }
void tm_caller_a(void) { BODY; }
void tm_caller_b(void) { BODY; }
void tm_interrupted_a(void) { BODY; }
void tm_interrupted_b(void) { BODY; }
void ASGST_RunWithIterator(void) { BODY; }

#if defined(__x86_64__)
__asm__(".text\n.globl tm_sigreturn\n.type tm_sigreturn,@function\ntm_sigreturn:\n"
        "mov $15, %rax\nsyscall\n.size tm_sigreturn,.-tm_sigreturn\n");
#elif defined(__aarch64__)
__asm__(".text\n.globl tm_sigreturn\n.type tm_sigreturn,%function\ntm_sigreturn:\n"
        "mov x8, #139\nsvc #0\n.size tm_sigreturn,.-tm_sigreturn\n");
#endif
