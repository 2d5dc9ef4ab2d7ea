#!/usr/bin/env bash
# Unit tests of the hand-off to a target thread, held batches included
# (tests/c/target_test.c), TAP; no JVM.
exec build/tests/target_test
