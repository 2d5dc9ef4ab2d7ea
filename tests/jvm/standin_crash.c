/*
 * A known-bad ASGST provider, standing in for a VM build whose walker has
 * a bug: every STANDIN_EVERY-th RunWithIterator reads a caller frame
 * through a pointer it never checked (the NULL page here), so each short
 * stress or fuzz run hits it many times under crash protection and triage
 * files one bucket for it. tests/jtreg_group.t uses it to show that the
 * jtreg group fails with that bucket's title.
 *
 * Load it as an agent so that every JVM of a run gets it, including the
 * one the fuzz harness creates through JNI:
 *   JAVA_TOOL_OPTIONS=-agentpath:build/tests/libstandin_crash.so
 * HotSpot opens agents with local symbol scope; Agent_OnLoad reopens this
 * library with RTLD_GLOBAL so dlsym(RTLD_DEFAULT, "ASGST_...") finds it, as
 * it would find a prototype libjvm's own exports. LD_PRELOAD works too.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STANDIN_EVERY 64

typedef struct {
    uint8_t type;
    int comp_level, bci;
    void *method, *pc, *sp, *fp;
} standin_frame;

struct standin_iter {
    int frames_left;
};

static unsigned long calls;

/* [handler-safe] The bug: the "caller frame" at fp is trusted. Kept out
 * of line so the fault has its own frame and the bucket its own title. */
__attribute__((noinline)) void *standin_read_caller_frame(void *const *fp)
{
    return fp[1];
}

/* [handler-safe] */
int ASGST_RunWithIterator(void *uc, int32_t options, void (*fun)(void *, void *), void *arg)
{
    (void)uc, (void)options;
    if (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) % STANDIN_EVERY == 0) {
        void *volatile unchecked = (void *)8;
        if (!standin_read_caller_frame(unchecked)) return 0;
    }
    struct standin_iter it = {1};
    if (fun) fun(&it, arg);
    return 2; /* a non-Java trace of one frame */
}

/* [handler-safe] */
int ASGST_NextFrame(void *iter, standin_frame *f)
{
    struct standin_iter *it = iter;
    if (it->frames_left <= 0) return 0;
    it->frames_left--;
    memset(f, 0, sizeof *f);
    f->type = 4, f->comp_level = -1, f->bci = -1;
    return 1;
}

int Agent_OnLoad(void *vm, char *options, void *reserved)
{
    (void)vm, (void)options, (void)reserved;
    Dl_info self;
    if (!dladdr((void *)ASGST_RunWithIterator, &self) || !dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) {
        fprintf(stderr, "standin_crash: cannot make its ASGST_* symbols global: %s\n", dlerror());
        return 1;
    }
    return 0;
}
