/*
 * Byte globs: '*' matches any run of bytes (none included), '?' any one
 * byte, every other byte itself. No classes, no escapes, no locale.
 *
 * Why not fnmatch(3): the JVM sets the process's locale from the
 * environment, and under a UTF-8 one (LANG=C.UTF-8 here) glibc's fnmatch
 * converts pattern and name to wide characters on every call.
 * Walker coverage tests 48-58k libjvm functions against 35 patterns at
 * start-up, and that conversion was a quarter of a libFuzzer job's start
 * (docs/figures.md, 2026-11-29). The names matched here (C++ symbols) are
 * ASCII, where both agree.
 */
#ifndef ASGF_GLOB_H
#define ASGF_GLOB_H

/* 1 if s matches pattern as a whole. On a mismatch it backs up only to
 * the last '*' (whatever an earlier one would take, that one can), so it
 * takes at most len(pattern) x len(s) steps. */
int glob_match(const char *pattern, const char *s);

#endif
