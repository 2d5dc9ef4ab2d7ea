#!/usr/bin/env bash
# Unit tests of the core's guard module (tests/c/guard_test.c), TAP.
exec build/tests/guard_test
