/*
 * Where the JIT put compiled methods, from JVMTI CompiledMethodLoad and
 * Unload on a JVMTI env of our own. The mutator aims pcs at real nmethods:
 * frame construction in HotSpot trusts the pc's nmethod (deopt handler
 * checks read through sp), which is where stock AGCT faulted.
 */
#ifndef ASGF_JIT_CODE_H
#define ASGF_JIT_CODE_H

#include <jni.h>
#include <stdint.h>

/* Not handler-safe. 0 or -1 with a reason. Call in Agent_OnLoad or live. */
int jit_code_attach(JavaVM *vm, const char **why);

/* [handler-safe] The n-th known compiled method (modulo their count, the
 * ring's size at most; holes left by unloads are stepped over):
 * start of its instructions and their size. 0 if none is known. */
int jit_code_pick(uint64_t n, uintptr_t *start, uintptr_t *size);

/* [handler-safe] The deopt handler of the n-th known compiled method that
 * has one we recognized (C1's and C2's, by their code). 0 if none. */
int jit_code_pick_deopt(uint64_t n, uintptr_t *pc);

/* [handler-safe] The n-th VM stub or blob reported by DynamicCodeGenerated
 * (modulo their count): start and size. 0 if none is known. */
int jit_code_pick_blob(uint64_t n, uintptr_t *start, uintptr_t *size);
/* [handler-safe] Whether pc lies inside a reported stub or blob (a linear
 * scan: for stats lines and tests, not for every sample). */
int jit_code_in_blob(uintptr_t pc);
/* [handler-safe] The continuation return barrier's entry: the pc a frame
 * returns to when its caller's frames are frozen in a heap chunk. 0 on
 * VMs without continuations (before 19) or before the stub is reported. */
uintptr_t jit_code_cont_barrier(void);
/* How many blobs are known (for stats lines and tests). */
unsigned long jit_code_blob_count(void);

#endif
