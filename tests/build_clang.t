#!/usr/bin/env bash
# The core, the agent and the test programs build with clang as well as
# gcc under -Wall -Wextra -Werror, and the clang-built unit tests pass.
cd "$(dirname "$0")/.." && . tests/lib.sh
cc=$(command -v clang-16 || command -v clang)
[ -n "$cc" ] || { echo "ok - clang not installed # SKIP"; tap_done; exit 0; }
make -s BUILD="$BUILD/clang" CC="$cc" core agent tests-build > "$BUILD/clang-build.log" 2>&1
ok $? "core, agent and tests build with $(basename "$cc") -Werror (log: $BUILD/clang-build.log)"
"$BUILD/clang/tests/case_test" > /dev/null; ok $? "clang-built case format tests pass"
"$BUILD/clang/tests/guard_test" > /dev/null; ok $? "clang-built crash protection tests pass"
tap_done
