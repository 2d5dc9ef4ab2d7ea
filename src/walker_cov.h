/*
 * Walker coverage: which basic blocks of libjvm's stack-walking code a run
 * has reached, without rebuilding the VM. The walker's functions are found
 * in libjvm's symbol table (or its -dbg file, by build-id) by the patterns
 * of walker_functions.def, their blocks by disassembly (capstone), and
 * each block's first instruction gets an int3: the first thread to reach it
 * traps, the SIGTRAP handler puts the byte back, and the code runs on
 * untouched from then on. A block counts when that thread was walking for
 * us (inside a guarded call); one the VM's own threads reached first is
 * counted apart and armed again, a few times at most. Only libjvm's own
 * text is patched, never the code cache. x86_64 only.
 */
#ifndef ASGF_WALKER_COV_H
#define ASGF_WALKER_COV_H

#include <stddef.h>
#include <stdint.h>

/* Not handler-safe. Once the JVM is up (libjvm mapped): finds the blocks
 * and arms them. 0, or -1 with why (no symbols, no capstone, not x86_64,
 * already started). */
int wcov_start(char *why, size_t len);

struct wcov_counts {
    unsigned blocks, functions;            /* armed */
    unsigned blocks_reached, functions_reached;   /* by walks: threads inside a guarded call */
    unsigned blocks_vm_only;                      /* hit by the VM's own threads, by no walk yet */
};
/* [handler-safe] */
void wcov_counts(struct wcov_counts *out);

/* [handler-safe] The blocks first reached by a walk since the last call, by
 * index (0 .. blocks-1), for fuzzer feedback; at most max; returns how many.
 * One consumer only. */
int wcov_take_new(uint32_t *idx, int max);

/* [handler-safe] Arms again the blocks a thread outside any walk (the VM's
 * own) reached since the last call, unless a walk reached them meanwhile or
 * wcov_disarm ran. One thread only: the harness's after each case, the stress
 * agent's sampler each round. */
void wcov_rearm(void);

/* [handler-safe] Puts back every byte still armed. For a fatal fault on its
 * way to the VM: the VM's error reporter walks stacks through the very
 * functions armed, with its own SIGTRAP handler in place of ours, so a
 * breakpoint met there would cost the hs_err file its frames. Coverage
 * stops growing after it. */
void wcov_disarm(void);

/* The line every harness ends with: "walker coverage: N of M blocks (K of
 * F functions)", or why there is none. */
void wcov_summary(char *out, size_t len);

/* Not handler-safe. What a harness does at its end: the wcov_summary line
 * into out, and, when blocks were armed, DIR/walker-coverage.txt: a header
 * line naming the module and the totals, then the reached blocks, one a
 * line, libjvm offset and function ("0x9a1b2c frame::sender"). 0, or -1 if
 * that file could not be written. With ASGF_WALKER_BLOCKS=PATH in the
 * environment and no file there yet, also every armed block in that form,
 * for a report to name the lines no job reached. */
int wcov_finish(const char *dir, char *out, size_t len);

#endif
