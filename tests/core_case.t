#!/usr/bin/env bash
# Unit tests of the core's case module (tests/c/case_test.c), TAP.
exec build/tests/case_test
