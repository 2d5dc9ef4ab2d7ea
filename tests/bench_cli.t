#!/usr/bin/env bash
# The benchmark scripts refuse what they do not know, by name, before
# running anything: an unknown BENCH_ONLY section, an unknown fuzz/bench
# option, a malformed --at.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch

BENCH_ONLY=overhead,nope tests/bench/run > "$d/only.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "BENCH_ONLY: unknown section 'nope'" "$d/only.log" && ! grep -q '^== agent' "$d/only.log"
ok $? "make bench: an unknown BENCH_ONLY section is refused by name before any run (exit $rc)"

fuzz/bench --frobnicate > "$d/opt.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--frobnicate'" "$d/opt.log"
ok $? "fuzz/bench: an unknown option is refused by name (exit $rc)"

fuzz/bench --at 60,soon > "$d/at.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--at wants seconds" "$d/at.log"
ok $? "fuzz/bench: a malformed --at is refused (exit $rc)"
fuzz/bench-walker --time soon > "$d/bw.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--time wants a whole number" "$d/bw.log"
ok $? "fuzz/bench-walker: a malformed --time is refused (exit $rc)"
tap_done
