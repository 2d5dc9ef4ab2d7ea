/*
 * The oracle's consistency check of sampled walks (oracle=1): every walk
 * the sampler makes, of a mutated context or not, must return frames that
 * could exist. Each Java frame's method is one the VM prepared, its bci
 * lies inside that method's bytecode, and a native frame sits at a native
 * method. No ground truth is needed, so this is the one check that covers
 * walks of forged contexts and stacks, where the VM's walker reads the
 * words a fuzzer wrote.
 */
#ifndef ASGF_ORACLE_CHECK_H
#define ASGF_ORACLE_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jvmti.h>
#include "api.h"
#include "case.h"
#include "exec.h"

/* Frames of a walk that are checked: the first ones, where a forged stack
 * image lies (it covers the top of the stack). */
#define CHECK_FRAMES 32

/* Agent_OnLoad, before the VM prepares classes: makes jmethods learn every
 * method's bytecode extent (method_bounds.h). */
void oracle_check_prepare(void);

/* [handler-safe] One walk the sampler made; frames: its first
 * min(o->frames, CHECK_FRAMES) frames. A frame the handler cannot clear is
 * queued (the case bytes with it) for oracle_check_drain. */
void oracle_check_walk(const struct api *api, const struct case_prog *p, const struct exec_outcome *o,
                       const ASGST_Frame *frames, const uint8_t *case_bytes, size_t case_len, int tid);

enum { CHECK_BAD_METHOD, CHECK_BAD_BCI, CHECK_BAD_TYPE, CHECK_KINDS };
const char *oracle_check_kind_name(int kind);

/* [handler-safe] The oracle's rules: 1 if one excuses a frame at index at
 * with this bci that is of this kind (and it counted the excuse). Set once,
 * before sampling starts. */
typedef int (*oracle_check_excuse_fn)(int kind, int at, int bci);
void oracle_check_set_excuse(oracle_check_excuse_fn excuse);

/* Oracle thread: judges the queued walks with JVMTI, now. The first frame
 * of a walk that still does not fit and that no rule excuses goes to
 * report, which makes the mismatch record. */
/* shape: what is wrong, in words that do not name the method ("caller
 * frame, bci < 0"): the same wrong shape at any method is one root cause,
 * and triage buckets these records by kind and shape. */
typedef void (*oracle_check_report_fn)(int tid, int kind, int at, const char *shape, const char *why,
                                       const jmethodID *methods, const int *bcis, int n, const uint8_t *case_bytes,
                                       size_t case_len);
void oracle_check_drain(jvmtiEnv *env, oracle_check_report_fn report);

/* Counts: a stderr line and a JSON object body (no braces). */
void oracle_check_print(FILE *f);
void oracle_check_json(FILE *f);

#endif
