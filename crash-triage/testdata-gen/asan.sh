#!/usr/bin/env bash
# Regenerates the ASan fixtures: crash-triage/testdata/asan-*.
# Builds asan_crash.c with clang-16 -fsanitize=address into $BUILD (default /tmp/crashgen).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
td="$here/../testdata"
BUILD=${BUILD:-/tmp/crashgen}
mkdir -p "$BUILD" "$td"
clang-16 -g -O1 -fno-omit-frame-pointer -fsanitize=address -o "$BUILD/asan_crash" "$here/asan_crash.c"
run() {
    local name=$1; shift
    (cd "$BUILD" && ASAN_OPTIONS=detect_leaks=0:symbolize=1 ./asan_crash "$@" >/dev/null 2>"$td/$name") || true
    echo "gen: $name ($(wc -c <"$td/$name") bytes)"
}
run asan-segv-1 segv 0x10
run asan-segv-2 segv 0x7000
run asan-uaf-1 uaf
