#!/usr/bin/env bash
# The core and the agent compile for aarch64 (-Wall -Wextra -Werror) with
# Debian's cross compiler: arch_aarch64.c's register map must keep up.
cd "$(dirname "$0")/.." && . tests/lib.sh
cc=$(command -v aarch64-linux-gnu-gcc)
[ -n "$cc" ] || { echo "ok - aarch64 cross compiler not installed # SKIP"; tap_done; exit 0; }
make_scratch
flags=(-std=c11 -D_GNU_SOURCE -fPIC -Wall -Wextra -Werror -O2 "-I$JAVA_HOME/include" "-I$JAVA_HOME/include/linux" -Isrc -Iagents "-I$BUILD/gen")   # $BUILD/gen: generated includes (oracle rules)
for f in src/*.c agents/*.c; do
  [ "$f" = src/arch_x86_64.c ] && continue
  "$cc" "${flags[@]}" -c "$f" -o "$d/$(basename "$f" .c).o" 2> "$d/err"
  ok $? "$f compiles for aarch64 $(head -c 300 "$d/err")"
done
tap_done
