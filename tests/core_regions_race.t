#!/usr/bin/env bash
# A dlopen racing a regions refresh never pairs a mapping with another
# library's build-id (tests/c/regions_race_test.c), TAP.
cd "$(dirname "$0")/.." && . tests/lib.sh
a=$BUILD/tests/libtwin_a.so b=$BUILD/tests/libtwin_b.so
ia=$(build_id "$a") ib=$(build_id "$b")
[ -n "$ia" ] && [ -n "$ib" ] && [ "$ia" != "$ib" ]; ok $? "the twins have two different build-ids ($ia, $ib)"
run_tap regions-race "$BUILD/tests/regions_race_test" "$PWD/$a" "$ia" "$PWD/$b" "$ib"
tap_done
