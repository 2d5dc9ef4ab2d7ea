/*
 * Method and class info entry points called as a profiler would, but with
 * fuzzed arguments: the handle is the frame's own (valid), one the VM
 * reported unloaded (stale), a forged pointer, or NULL; every string and
 * table buffer length is negative, 0, 1, exact or huge. The prototype
 * validates almost none of these (a NULL or forged method is dereferenced),
 * so faults here are expected findings, caught by the caller's guard.
 *
 * Variants are a function of a seed the caller derives from the case, so a
 * saved case makes the same choices again (a stale handle depends on what
 * was unloaded in that run).
 */
#ifndef ASGF_INFO_CALLS_H
#define ASGF_INFO_CALLS_H

#include <stdint.h>
#include "api.h"

enum info_handle { INFO_VALID, INFO_STALE, INFO_FORGED, INFO_NULL, INFO_HANDLE__COUNT };
enum info_length { INFO_LEN_NEGATIVE, INFO_LEN_ZERO, INFO_LEN_ONE, INFO_LEN_EXACT, INFO_LEN_HUGE, INFO_LEN__COUNT };

/* [handler-safe] One round of calls on method m (bci: the frame's) with
 * the variants seed picks: GetMethodInfo, GetMethodIdNum,
 * GetMethodLineNumberTable, GetMethodLineNumber, GetClass, GetClassInfo,
 * GetClassIdNum, MethodToJMethodID. Slots the backend lacks are skipped. */
void info_calls_method(const struct api *api, ASGST_Method m, int bci, uint64_t seed);

/* Not handler-safe (JNI local references): the conversions a queue
 * handler may make, checked for round trips: JMethodIDToMethod(
 * MethodToJMethodID(m)) == m, JClassToClass(ClassToJClass(k)) == k. */
void info_calls_roundtrip(const struct api *api, ASGST_Method m);

/* The class-unload handler to register (RegisterClassUnloadHandler): keeps
 * the last unloaded methods as stale handles for later rounds. */
void info_calls_on_unload(ASGST_Class klass, ASGST_Method *methods, int count, bool redefined, void *arg);

struct info_counters {
    unsigned long long handle[INFO_HANDLE__COUNT]; /* rounds per handle variant */
    unsigned long long length[INFO_LEN__COUNT];    /* rounds per length variant */
    unsigned long long stale_missing;  /* stale asked for, none known yet: the valid handle was used */
    unsigned long long unload_events, unloaded_methods, redefined;
    unsigned long long roundtrips, roundtrip_mismatch;
};
void info_calls_counters(struct info_counters *out);

#endif
