/* Minimal TAP output for the C tests: one "ok"/"not ok" line per check. */
#ifndef ASGF_TAP_H
#define ASGF_TAP_H
#include <stdio.h>

static int tap_n, tap_failed;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        int ok_ = !!(cond);                                                                        \
        printf("%s %d - ", ok_ ? "ok" : "not ok", ++tap_n);                                        \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        if (!ok_) {                                                                                \
            tap_failed++;                                                                          \
            printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);                        \
        }                                                                                          \
        fflush(stdout);                                                                            \
    } while (0)
#define SKIP(...)                                                                                  \
    do {                                                                                           \
        printf("ok %d - # SKIP ", ++tap_n);                                                        \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
    } while (0)
#define TAP_DONE() (printf("1..%d\n", tap_n), tap_failed ? 1 : 0)
#endif
