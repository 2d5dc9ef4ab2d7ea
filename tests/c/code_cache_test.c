/*
 * Where regions_in_code_cache draws the line: HotSpot's code cache is one
 * reserved span whose committed segments are executable anonymous
 * mappings with the reserved rest between them. This process builds that
 * shape without a JVM and checks that the span found is exactly its
 * executable part: not a lone executable page elsewhere, and not the
 * libraries or [vdso] mapped above it. The span once ran on to the next
 * executable anonymous mapping within 512 MiB, [vdso] included, so libjvm
 * and libc counted as code cache and a thread stopped in the VM looked as
 * if stopped in Java code (the live-frame watch then put back a store the
 * VM thread made into a waiting thread's VM operation).
 */
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "case.h"
#include "regions.h"
#include "tap.h"

#define MIB (1UL << 20)

int main(void)
{
    /* A lone executable page first, with a hole on each side so that the
     * reservation mapped next cannot adjoin it. */
    int rwx = PROT_READ | PROT_WRITE | PROT_EXEC;
    uint8_t *three = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *lone = three == MAP_FAILED ? MAP_FAILED : three + 4096;
    int isolated = lone != MAP_FAILED && !mprotect(lone, 4096, rwx) && !munmap(three, 4096) &&
                   !munmap(lone + 4096, 4096);
    uint8_t *res = mmap(NULL, 64 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(isolated && res != MAP_FAILED, "mapped a lone page between two holes and a 64 MiB reservation");
    if (!isolated || res == MAP_FAILED) return TAP_DONE();
    /* Three committed segments, as non-nmethods, profiled, non-profiled. */
    int ok = !mprotect(res, 2 * MIB, rwx) && !mprotect(res + 20 * MIB, 2 * MIB, rwx) &&
             !mprotect(res + 40 * MIB, MIB, rwx);
    CHECK(ok, "committed three executable segments inside the reservation");
    CHECK(regions_refresh() > 0, "regions refreshed");

    uintptr_t lo = 0, hi = 0;
    CHECK(regions_bounds(REGION_CODE_CACHE, &lo, &hi), "a code cache is found");
    CHECK(lo == (uintptr_t)res && hi == (uintptr_t)res + 41 * MIB,
          "its span is the segments' span [%p, %p): got [%#lx, %#lx)", (void *)res, (void *)(res + 41 * MIB),
          (unsigned long)lo, (unsigned long)hi);
    CHECK(regions_in_code_cache((uintptr_t)res + 21 * MIB), "a pc in the second segment is in it");
    CHECK(regions_in_code_cache((uintptr_t)res + 10 * MIB), "the reserved gap between segments is in it");
    CHECK(!regions_in_code_cache((uintptr_t)lone), "the lone executable page is not");
    CHECK(!regions_in_code_cache((uintptr_t)&write), "libc's write() is not");
    CHECK(!regions_in_code_cache((uintptr_t)&main), "this program's text is not");
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (vdso) CHECK(!regions_in_code_cache(vdso), "[vdso] at %#lx is not", (unsigned long)vdso);
    else SKIP("no [vdso] in the auxiliary vector");

    /* A known code address picks its run over a larger one. */
    regions_set_code_hint((uintptr_t)lone + 16);
    regions_refresh();
    CHECK(regions_bounds(REGION_CODE_CACHE, &lo, &hi) && lo == (uintptr_t)lone && hi == (uintptr_t)lone + 4096,
          "with a code address in the lone page as hint, the lone page is the code cache: [%#lx, %#lx)",
          (unsigned long)lo, (unsigned long)hi);
    return TAP_DONE();
}
