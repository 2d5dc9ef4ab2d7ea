#!/usr/bin/env bash
# The libraries list a run directory gets (src/record.h): paths with their
# build-ids, and no list at all when the maps outgrow the snapshot
# (tests/c/libraries_list_test.c), TAP.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
run_tap libraries-list "$BUILD/tests/libraries_list_test" "$d"
tap_done
