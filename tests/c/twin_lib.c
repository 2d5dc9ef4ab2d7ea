/* Built twice with different TWIN values (tests/tests.mk): two libraries of
 * one size and layout but different build-ids, which the loader places at
 * the same address in turn (tests/c/regions_race_test.c). */
#ifndef TWIN
#error "build with -DTWIN=n"
#endif
int twin_value(void) { return TWIN; }
