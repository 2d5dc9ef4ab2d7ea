/*
 * regions_refresh pairs each file mapping with the build-id of the object the
 * loader mapped there. A dlclose of one library and a dlopen of another at the
 * same address while a refresh runs must never pair one's path with the
 * other's build-id: a crash record would then send triage to the wrong
 * build's symbols. One thread swaps two twin libraries (twin_lib.c) in and
 * out; the main thread refreshes and checks every pairing it sees.
 *
 *   regions_race_test LIB_A ID_A LIB_B ID_B   (ids in hex, from readelf -n)
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "regions.h"
#include "tap.h"

static const char *lib[2], *id[2];
static char real[2][PATH_MAX]; /* as /proc/self/maps names them: symlinks resolved */
static _Atomic int stop;
static _Atomic long swaps;

static void *swapper(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        for (int k = 0; k < 2; k++) {
            void *h = dlopen(lib[k], RTLD_NOW | RTLD_LOCAL);
            if (h) dlclose(h);
        }
        atomic_fetch_add(&swaps, 1);
    }
    return NULL;
}

/* The address the loader gives twin k when nothing else moves. */
static uintptr_t place(int k)
{
    void *h = dlopen(lib[k], RTLD_NOW | RTLD_LOCAL);
    if (!h) return 0;
    uintptr_t at = (uintptr_t)dlsym(h, "twin_value");
    dlclose(h);
    return at;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: regions_race_test LIB_A ID_A LIB_B ID_B\n");
        return 2;
    }
    lib[0] = argv[1], id[0] = argv[2], lib[1] = argv[3], id[1] = argv[4];
    for (int k = 0; k < 2; k++)
        if (!realpath(lib[k], real[k])) {
            fprintf(stderr, "regions_race_test: %s: no such library\n", lib[k]);
            return 2;
        }
    uintptr_t at_a = place(0), at_b = place(1);
    CHECK(at_a && at_a == at_b, "the loader puts both twins at one address (%#lx, %#lx)", (unsigned long)at_a,
          (unsigned long)at_b);

    pthread_t t;
    pthread_create(&t, NULL, swapper, NULL);
    long refreshes = 0, seen[2] = {0, 0}, with_id[2] = {0, 0}, no_id = 0, wrong = 0, absent = 0;
    char first_wrong[512] = "";
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        if (regions_refresh() < 0) break;
        refreshes++;
        uintptr_t off;
        const char *build_id;
        const char *path = regions_module_and_id(at_a, &off, &build_id);
        int k = !path ? -1 : ends_with(path, real[0]) ? 0 : ends_with(path, real[1]) ? 1 : -1;
        if (k < 0) {
            absent++;
        } else if (!build_id) {
            seen[k]++, no_id++;
        } else {
            seen[k]++, with_id[k]++;
            if (strcmp(build_id, id[k])) {
                if (!wrong++)
                    snprintf(first_wrong, sizeof first_wrong, "%s paired with %s", path, build_id);
            }
        }
        /* a refresh holds the loader's list lock most of the time: leave
         * the swapper room to finish a dlopen or a dlclose now and then */
        if (refreshes % 4 == 0) {
            struct timespec pause = {0, 50000};
            nanosleep(&pause, NULL);
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 < 3000 &&
             (seen[0] < 2000 || seen[1] < 2000));
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("# %ld refreshes, %ld swaps: twin A seen %ld, B %ld (%ld without a build-id), neither %ld\n", refreshes,
           atomic_load(&swaps), seen[0], seen[1], no_id, absent);
    CHECK(with_id[0] > 0 && with_id[1] > 0, "refreshes met each twin at that address with its build-id read (A %ld, B %ld)",
          with_id[0], with_id[1]);
    CHECK(wrong == 0, "no mapping was paired with the other twin's build-id (%ld wrong%s%s)", wrong,
          wrong ? ": " : "", first_wrong);
    return TAP_DONE();
}
