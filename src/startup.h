/*
 * Attaching the core to a JVM: the one start-up path of the stress agent
 * (Agent_OnLoad), the fuzz harnesses and the seed generator (after
 * JNI_CreateJavaVM), and the test agents. In this order: the JVMTI method
 * cache (jmethods), the JIT code table (jit_code, for region nmethod_tail),
 * the backend (api_select) and its settings, crash protection (guard), the
 * thread registry (jvm_threads). All of it before any sampled thread starts,
 * so every one is registered at its ThreadStart.
 *
 * What stays with the caller, because it depends on the VM phase: the agct
 * queue's processing thread (queue_agct_start, live phase only), signal
 * handlers for sampling, and refreshing the region snapshot. Not
 * handler-safe.
 */
#ifndef ASGF_STARTUP_H
#define ASGF_STARTUP_H

#include <stddef.h>
#include <stdint.h>
#include <jni.h>
#include "api.h"
#include "jvm_threads.h"

/* test_plant: the JVM's armed safepoint poll page, found at attach */
#define STARTUP_PLANT_POLL ((uintptr_t)-1)

struct startup_config {
    enum api_kind api;
    int jit_code;          /* attach the JIT code table (needed by region nmethod_tail) */
    int agct_depth;        /* agct: frames per walk; 0 = the default */
    uintptr_t test_plant;  /* agct test hook (api_agct_plant_bad_frames); 0 = off, STARTUP_PLANT_POLL */
    int protect;           /* crash protection on */
    long max_records;      /* crash records written at most; < 0 = the guard's default */
    const char *out;       /* directory for crash records */
    /* threads to register at ThreadStart; NULL: no registry (a caller that
     * registers its threads itself, like the JVM tests' probe agent) */
    const struct jvm_threads_config *threads;
};

/* Returns the backend, or NULL with "what: why" in err (what: "JVMTI",
 * "backend agct", "crash protection", ...). */
const struct api *startup_attach(JavaVM *vm, const struct startup_config *c, char *err, size_t errlen);

#endif
