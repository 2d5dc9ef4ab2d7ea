#!/usr/bin/env bash
# The code cache's span is the executable part of one anonymous reservation,
# not the libraries or [vdso] above it (tests/c/code_cache_test.c), TAP.
cd "$(dirname "$0")/.." && . tests/lib.sh
run_tap code-cache "$BUILD/tests/code_cache_test"
tap_done
