#!/usr/bin/env bash
# Unit tests of the case generators (tests/c/casegen_test.c), TAP.
exec build/tests/casegen_test
