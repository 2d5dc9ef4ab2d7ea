/*
 * A lying stand-in for the VM's walker, for the oracle's acceptance test
 * (tests/jvm_oracle.t). Preloaded (LD_PRELOAD) it comes before libjvm's
 * AsyncGetCallTrace for every caller that looks the name up, and loaded as
 * an agent too (-agentpath, same file) it finds the real one at start-up,
 * outside any signal handler. It forwards every walk, and in 1 of every
 * 1,000 walks (ASGF_LIAR_EVERY to change) with at least four frames it changes one frame, as
 * ASGF_LIAR says: drop (frame 1 removed), dup (frame 1 repeated), swap
 * (frames 1 and 2 exchanged, only where their methods differ), cut (the
 * oldest frame removed: a walk that ends early, every call edge intact),
 * bci (frame 1's bci set past the end of any method's bytecode) or method
 * (frame 1 named by a jmethodID of no method: a slot holding NULL). At exit it
 * prints "liar: LIES lies in WALKS walks (KIND)" on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jni.h>

typedef struct {
    jint lineno;
    jmethodID method_id;
} frame_t;

typedef struct {
    JNIEnv *env_id;
    jint num_frames;
    frame_t *frames;
} trace_t;

typedef void (*agct_fn)(trace_t *, jint, void *);

enum { DROP, DUP, SWAP, CUT, BCI, METHOD, N_HOW };
static const char *const names[] = {"drop", "dup", "swap", "cut", "bci", "method"};
/* What JVMTI finds behind a jmethodID whose method is gone: NULL. */
static void *no_method;
static agct_fn real;
static int how = -1;
static unsigned long every = 1000;
static _Atomic unsigned long walks, lies;

static void report(void)
{
    fprintf(stderr, "liar: %lu lies in %lu walks (%s)\n", (unsigned long)lies, (unsigned long)walks,
            how >= 0 ? names[how] : "none");
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)vm, (void)options, (void)reserved;
    const char *h = getenv("ASGF_LIAR");
    for (int i = 0; h && i < N_HOW; i++)
        if (!strcmp(h, names[i])) how = i;
    const char *e = getenv("ASGF_LIAR_EVERY");
    if (e && strtoul(e, NULL, 10) > 0) every = strtoul(e, NULL, 10);
    real = (agct_fn)dlsym(RTLD_NEXT, "AsyncGetCallTrace");
    if (!real || how < 0) {
        fprintf(stderr, "liar: %s\n", real ? "ASGF_LIAR must be drop, dup, swap, cut, bci or method" : "no AsyncGetCallTrace after me");
        return JNI_ERR;
    }
    atexit(report);
    return JNI_OK;
}

/* [handler-safe] */
JNIEXPORT void AsyncGetCallTrace(trace_t *t, jint depth, void *uc)
{
    if (!real) {
        t->num_frames = -8; /* not set up: answer "thread exit" rather than walk */
        return;
    }
    real(t, depth, uc);
    int n = t->num_frames;
    if (n < 4 || atomic_fetch_add(&walks, 1) % every != every - 1) return;
    frame_t *f = t->frames;
    if (how == DROP) {
        memmove(&f[1], &f[2], (size_t)(n - 2) * sizeof *f);
        t->num_frames = n - 1;
    } else if (how == DUP) {
        if (n >= depth) return;
        memmove(&f[2], &f[1], (size_t)(n - 1) * sizeof *f);
        t->num_frames = n + 1;
    } else if (how == BCI) {
        if (f[1].lineno == -3) return; /* a native frame has no bci to spoil */
        f[1].lineno = 70000;           /* a method's bytecode ends before 65536 */
    } else if (how == METHOD) {
        f[1].method_id = (jmethodID)&no_method;
    } else if (how == CUT) {
        if (n >= depth) return; /* a walk cut by its depth ends early anyway */
        t->num_frames = n - 1;
    } else {
        if (f[1].method_id == f[2].method_id) return;
        frame_t x = f[1];
        f[1] = f[2];
        f[2] = x;
    }
    atomic_fetch_add(&lies, 1);
}
