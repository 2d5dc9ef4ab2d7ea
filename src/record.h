/*
 * Crash records (docs/crash-record.md), written from the fault handler.
 * Handler-safe: open/write/close and stack-free formatting only.
 */
#ifndef ASGF_RECORD_H
#define ASGF_RECORD_H

#include <signal.h>
#include <stddef.h>
#include <ucontext.h>
#include "guard.h"

#define RECORD_MAX_FRAMES 64

struct record_info {
    const char *dir;
    unsigned seq;
    int sig;
    const siginfo_t *si;
    ucontext_t *uc;
    const struct guard_call *call;
    char *path_out; /* receives the file name */
    size_t path_len;
    char *buf; /* scratch for the text; one per guard slot, so threads never share */
    size_t buf_len;
};

/* [handler-safe] Returns 0 when the whole record was written. */
int record_write(const struct record_info *ri);

/* [handler-safe] Frame-pointer walk of a fault context: pcs[0] is the
 * faulting pc. Every word is read with sigsafe_read, so a bad chain ends
 * the walk. Returns the number of pcs. */
int record_backtrace(ucontext_t *uc, uintptr_t *pcs, int max);

#endif
