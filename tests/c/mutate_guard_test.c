/*
 * Where a guard_page address points, by guard mode. Run twice by
 * tests/core_mutate_guard.t: as it is (primary) and with libjsig preloaded
 * (chained). In chained mode HotSpot sees a fault before we do and takes
 * one in the faulting thread's own guard zones for a stack overflow, so
 * the walking thread's own zones must never be the target; a walk of
 * another thread keeps that thread's zones.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "case.h"
#include "guard.h"
#include "mutate.h"
#include "regions.h"
#include "tap.h"

static _Atomic int other_tid, stop;

static void *other_thread(void *arg)
{
    (void)arg;
    threads_register_self("other", NULL);
    atomic_store(&other_tid, threads_gettid());
    while (!atomic_load(&stop)) usleep(1000);
    return NULL;
}

/* The core's own reading of "t's guard zones". */
static int in_zone(uint64_t v, const struct thread_info *t)
{
    return mutate_classify((uintptr_t)v, t, NULL) == REGION_GUARD_PAGE;
}

int main(void)
{
    char dir[] = "/tmp/asgf-mutate-guard-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    const char *why = NULL;
    CHECK(guard_install(dir, &why) == 0, "guard installs (%s)", why ? why : "ok");
    int chained = guard_mode() == GUARD_CHAINED;
    printf("# guard mode %s\n", guard_mode_name());
    threads_register_self("main", NULL);
    pthread_t th;
    pthread_create(&th, NULL, other_thread, NULL);
    while (!atomic_load(&other_tid)) usleep(1000);
    const struct thread_info *me = threads_find(threads_gettid()), *other = threads_find(atomic_load(&other_tid));
    CHECK(me && me->stack_lo && other && other->stack_lo, "both threads are registered with their stacks");
    if (!me || !other) return TAP_DONE();

    uint64_t real = (uint64_t)(uintptr_t)&dir;
    int own = 0, others = 0, elsewhere = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t off = i * 0x9e3779b97f4a7c15ULL;
        uint64_t v = mutate_region_value(REGION_GUARD_PAGE, off, real, me, NULL);
        own += in_zone(v, me), others += in_zone(v, other), elsewhere += !in_zone(v, me) && !in_zone(v, other);
    }
    if (chained)
        CHECK(own == 0 && others == 1000, "chained: a walk on this thread's own stack never targets its own zones "
                                          "(own %d, the other thread's %d, elsewhere %d)", own, others, elsewhere);
    else
        CHECK(own == 1000, "primary: a walk on this thread's own stack targets its own zones (own %d of 1000)", own);

    int kept = 0;
    for (uint64_t i = 0; i < 1000; i++)
        kept += in_zone(mutate_region_value(REGION_GUARD_PAGE, i * 0x9e3779b97f4a7c15ULL, real, other, NULL), other);
    CHECK(kept == 1000, "%s: a walk of another thread targets that thread's zones (%d of 1000)", guard_mode_name(),
          kept);

    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    rmdir(dir);
    return TAP_DONE();
}
