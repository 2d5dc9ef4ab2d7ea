/*
 * Calls the three walking entry points of a stand-in provider
 * (tests/jvm/standin_onebug.c) under the core's crash protection, as a
 * harness would: every call faults, and every fault leaves a crash record
 * in DIR for triage. Usage: standin_driver LIB DIR ROUNDS
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "guard.h"

typedef int (*run_fn)(void *, int, void *, void *);
typedef int (*frame_fn)(void *, void *, void *, int, void *, void *);
typedef int (*enqueue_fn)(void *, void *, void *);

static void *sym(void *h, const char *name) { return h ? dlsym(h, name) : NULL; }

static run_fn run;
static frame_fn from_frame;
static enqueue_fn enqueue;

static void call_run(void *arg) { (void)arg, run(NULL, 0, NULL, NULL); }
static void call_from_frame(void *arg) { (void)arg, from_frame(NULL, NULL, NULL, 0, NULL, NULL); }
static void call_enqueue(void *arg) { (void)arg, enqueue(NULL, NULL, NULL); }

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: standin_driver LIB DIR ROUNDS\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    run = (run_fn)sym(h, "ASGST_RunWithIterator");
    from_frame = (frame_fn)sym(h, "ASGST_RunWithIteratorFromFrame");
    enqueue = (enqueue_fn)sym(h, "ASGST_Enqueue");
    if (!run || !from_frame || !enqueue) {
        fprintf(stderr, "standin_driver: %s: %s\n", argv[1], h ? "entry points missing" : dlerror());
        return 2;
    }
    const char *why = NULL;
    mkdir(argv[2], 0755);
    if (guard_install(argv[2], &why)) {
        fprintf(stderr, "standin_driver: %s\n", why);
        return 2;
    }
    static const struct {
        const char *entry;
        guard_fn fn;
    } calls[] = {
        {"run_with_iterator", call_run},
        {"run_with_iterator_from_frame", call_from_frame},
        {"enqueue", call_enqueue},
    };
    int rounds = atoi(argv[3]), caught = 0;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 3; i++) {
            struct guard_call gc = {"asgst", calls[i].entry, "direct", NULL, 0, NULL, NULL, 0, 0};
            struct guard_fault f;
            caught += guard_run(calls[i].fn, NULL, &gc, &f) != 0;
        }
    printf("standin_driver: %d calls, %d faults caught\n", 3 * rounds, caught);
    return 0;
}
