/*
 * Bringing the VM's lazily made walker state into being before the first
 * walk. HotSpot 21 makes some of what its walkers read on first use, inside
 * C++ function-local statics: ContinuationEntry::to_frame() looks up the
 * continuation entry's code blob once, from a return pc that stays 0 until a
 * continuation was entered. A forged walk that first reaches it faults inside
 * that static's initialization, and a fault caught there leaves the static's
 * guard taken: every later walk through it blocks, and the VM hangs at its
 * next safepoint (docs/limits.md). Entering one continuation first (a
 * virtual thread run to its end) sets the return pc: the initialization then
 * succeeds, the frame made from the missing entry is refused by the checks
 * that follow (0 faults in 210,721 walks of that case on 21.0.13), and the
 * campaign goes on.
 * Not handler-safe: live phase, on a thread attached to the VM.
 */
#ifndef ASGF_VM_WARMUP_H
#define ASGF_VM_WARMUP_H

#include <jni.h>

/* Runs one virtual thread to its end. 1 if one ran, 0 if the VM has no
 * virtual threads (before 21, or 19 and 20 without preview), -1 with a
 * reason if starting or joining it failed. Leaves no pending exception. */
int vm_warmup_continuation(JNIEnv *env, const char **why);

#endif
