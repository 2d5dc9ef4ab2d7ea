/*
 * Architecture register map: logical register numbers used by the case
 * format, mapped onto a ucontext_t. 0 is the pc, 1 the sp, 2 the frame
 * pointer; the rest are the general registers in the order case_codes.h
 * lists them for the architecture (arch.c). All functions are handler-safe.
 */
#ifndef ASGF_ARCH_H
#define ASGF_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#define ARCH_REG_PC 0
#define ARCH_REG_SP 1
#define ARCH_REG_FP 2

int arch_reg_count(void);
const char *arch_reg_name(int reg);
/* Accepts the logical names pc/sp/fp and the arch names (rip, x29, ...). */
int arch_reg_parse(const char *name);
/* Slot of a logical register inside the context; NULL if out of range. */
uint64_t *arch_reg_slot(ucontext_t *uc, int reg);
/* The lowest address that is not a valid user pointer (x86_64: 1 << 47). */
uint64_t arch_noncanonical_base(void);
/* A zeroed context with pc, sp and fp set. */
void arch_context_from_frame(ucontext_t *uc, void *sp, void *fp, void *pc);
/* Of up to 64 words: bit i set when words[i] is 0. The live-frame watch
 * (stack_watch.h) runs it over kilobytes of stack before and after every
 * mutated case, so x86_64 takes eight words a step with SSE2, which every
 * x86_64 has (a third of the time of a word at a time, docs/figures.md). */
uint64_t arch_zero_words(const uint64_t *words, size_t n);

/* A spin-wait hint: lets the sibling hardware thread and the memory system
 * breathe while a loop polls a word another core will write. */
static inline void arch_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
}

#endif
