#!/usr/bin/env bash
# Byte globs against fnmatch(3) (tests/c/glob_test.c), TAP.
exec build/tests/glob_test
