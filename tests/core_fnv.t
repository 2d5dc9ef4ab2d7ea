#!/usr/bin/env bash
# FNV-1a against its published test vectors (tests/c/fnv_test.c), TAP.
exec build/tests/fnv_test
