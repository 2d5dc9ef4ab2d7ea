/*
 * The description of a guarded call, apart from the guard: the crash
 * record (record.h) writes it and the guard (guard.h) carries it, so
 * neither header needs the other.
 */
#ifndef ASGF_GUARD_CALL_H
#define ASGF_GUARD_CALL_H

#include <stddef.h>
#include <stdint.h>

/* What a crash record says about the call being made (static strings). */
struct guard_call {
    const char *backend; /* "agct", "asgst" */
    const char *entry;   /* "run_with_iterator", ... */
    const char *mode;    /* "signal", "thread", "queue", "direct" */
    const uint8_t *case_bytes;
    size_t case_len;
    const int *last_vm; /* optional: the last value the VM returned before the fault (INT_MIN: none) */
    /* optional: the forged stack copy the walk ran on (src/stack_image.h),
     * written into the record so the words the walker read are kept */
    const uint64_t *image;
    size_t image_len;
    uintptr_t image_real_sp;
};

#endif
