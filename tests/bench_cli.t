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

# The CPU distance every contended run line carries (fuzz/line_trip.c).
lt=$BUILD/fuzz/asgf-line-trip
if [ "$(nproc)" -ge 2 ]; then
  out=$("$lt" 2>&1)
  [[ $out =~ ^line-trip:\ cpus\ 0\ 1:\ [1-9][0-9]*\ ns$ ]]
  ok $? "asgf-line-trip: a line's round trip between CPUs 0 and 1 in whole ns ($out)"
else
  skip "asgf-line-trip: a round trip between two CPUs" "one CPU: no pair to measure"
fi
"$lt" 0 0 > "$d/lt-same.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "usage: asgf-line-trip" "$d/lt-same.log"
ok $? "asgf-line-trip: the same CPU twice is refused with its usage (exit $rc)"
"$lt" 0 x1 > "$d/lt-bad.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "usage: asgf-line-trip" "$d/lt-bad.log"
ok $? "asgf-line-trip: a CPU that is no number is refused with its usage (exit $rc)"
"$lt" 0 1000 > "$d/lt-none.log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "cannot run on cpu 1000" "$d/lt-none.log"
ok $? "asgf-line-trip: a CPU the machine does not have is named, not waited on (exit $rc)"
tap_done
