/*
 * "Never lose a crashing input": before each call, the case bytes are
 * copied into a small per-thread file mapped MAP_SHARED (its blocks reserved
 * with posix_fallocate first, so a full disk fails the open, never a store), so when protection
 * is off and the VM dies, the input that killed it is already on disk.
 * File: <dir>/inflight-<pid>-<tid>.bin =
 *   "ASGFINF1" | u32 LE length | u32 LE tid | case bytes (length of them)
 * Triage pairs it with the hs_err file of that pid and thread.
 */
#ifndef ASGF_INFLIGHT_H
#define ASGF_INFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#define INFLIGHT_MAGIC "ASGFINF1"
#define INFLIGHT_HEADER 16

/* Maps the calling thread's file. Not handler-safe. 0 or -1. */
int inflight_open(const char *dir);
/* [handler-safe] Copies bytes into the mapping (no-op without one). */
void inflight_store(const uint8_t *bytes, size_t len);
/* [handler-safe] For a call that runs no case (an unmutated reference
 * walk): the file says "no case" until inflight_restore(returned value), so
 * a VM that dies in that call is not paired with the case before it. */
uint32_t inflight_hide(void);
/* [handler-safe] */
void inflight_restore(uint32_t len);
/* Unmaps; removes the file unless keep. Not handler-safe. */
void inflight_close(int keep);
/* At a clean end: removes every in-flight file of this process in dir,
 * those of threads still running included (their stores then go to an
 * unlinked file). Not handler-safe. */
void inflight_remove_all(const char *dir);

#endif
