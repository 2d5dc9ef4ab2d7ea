#!/usr/bin/env bash
# Where a guard_page mutation points, with our handler first (primary) and
# with HotSpot's first (libjsig preloaded: chained); tests/c/mutate_guard_test.c.
cd "$(dirname "$0")/.." && . tests/lib.sh
run_tap mutate-guard-primary "$BUILD/tests/mutate_guard_test"
LD_PRELOAD="$JAVA_HOME/lib/libjsig.so" run_tap mutate-guard-chained "$BUILD/tests/mutate_guard_test"
tap_done
