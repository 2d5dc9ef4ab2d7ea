#!/usr/bin/env bash
# The live-frame watch (src/stack_watch.h): a walk's store into the walked
# thread's frames is put back and recorded, and triage buckets the record.
#  1. without a JVM (tests/c/stack_watch_test.c): which stores are seen,
#     put back or left, and the record of a hit;
#  2. triage: that record is a LIVE-STORE bucket; a record naming an
#     unknown place is flagged corrupted, not bucketed as a store;
#  3. on a live JVM, through fuzz/replay and a stand-in walker that stores
#     into the worker's frames as HotSpot's anchor fill does
#     (tests/jvm/standin_anchorstore.c): by default every run that finds the
#     worker in Java code is watched, the watch puts each store back, the
#     JVM runs on and exits 0, and the record's case is the replayed one;
#     with ASGF_WATCH=0 nothing is watched or recorded.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch

mkdir -p "$d/unit"
run_tap stack_watch_test "$BUILD/tests/stack_watch_test" "$d/unit"

crash-triage/triage --out "$d/t" --no-symbolize -q "$d/unit" >"$d/t.out" 2>&1
grep -q 'LIVE-STORE in walked_thread_frame' "$d/t/report.md" && ! grep -q 'corrupted' "$d/t/report.md"
ok $? "triage buckets the watch's record as 'LIVE-STORE in walked_thread_frame' ($(grep -o 'LIVE-STORE[^|(]*' "$d/t/report.md" | head -1))"

mkdir -p "$d/bad"
sed 's/^write: frame$/write: heap/' "$d"/unit/record-*.txt >"$d/bad/record-1-1-0.txt"
python3 -c 'import sys; sys.path.insert(0, "crash-triage")
from ctlib import parse_record
r = parse_record.parse(open(sys.argv[1], "rb").read(), sys.argv[1])
sys.exit(0 if "corrupted" in r.flags and r.signal != parse_record.WRITE_SIGNAL else 1)' "$d/bad/record-1-1-0.txt"
ok $? "a record whose write: names no known place is flagged corrupted, not a store"

lib=$PWD/$BUILD/tests/libstandin_anchorstore.so
key=72965eba83344eed   # FNV-1a of "write|frame" (docs/crash-record.md)
LD_PRELOAD=$lib ASGF_API=asgst fuzz/replay -n 10 --record-dir "$d/rec" tests/cases/live-store.txt >"$d/on.out" 2>&1; rc=$?
rec=$(grep -l '^write: frame' "$d"/rec/record-*.txt 2>/dev/null | head -1)
[ $rc = 0 ] && [ -n "$rec" ] && grep -q '^first_store: sp+[0-9]* 0x[0-9a-f]*$' "$rec" && grep -q '^put_back: yes$' "$rec" && grep -q '^not_anchor_fill: 0$' "$rec"
ok $? "by default, a walker's anchor-fill store into the worker's frames is put back and recorded with its value; replay exits 0 (rc $rc: $(grep -h '^first_store' "$rec" 2>/dev/null))"
stores=$(cat "$d/rec/faults-$key.txt" 2>/dev/null | wc -l)
java=$(sed -n 's/.*from Java code \([0-9]*\) .*/\1/p' "$d/on.out")
[ "$stores" -ge 1 ] && [ "$stores" = "$java" ] && grep -q "live-frame watch (32768 bytes above sp): $stores walks stored into the walked thread (put back" "$d/on.out"
ok $? "every run that found the worker in Java code stored and was caught: $stores of ${java:-?}, and replay's summary says so"
python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.stdin.read().strip()))' \
  < <(sed -n 's/^case: //p' "$rec") >"$d/stored.case"
"$BUILD/bin/casetool" decode "$d/stored.case" 2>/dev/null | grep -q '^mut pc abs 0xdead2000$'
ok $? "the record carries the replayed case (mut pc abs 0xdead2000)"

# One walk only: with the watch off, its store stays in the worker's frames.
LD_PRELOAD=$lib ASGF_API=asgst ASGF_WATCH=0 fuzz/replay -n 1 --record-dir "$d/off" tests/cases/live-store.txt >"$d/off.out" 2>&1; rc=$?
grep -q 'outcomes: JAVA_TRACE=1' "$d/off.out" && ! grep -qs '^write:' "$d"/off/record-*.txt && ! grep -q 'live-frame watch' "$d/off.out"
ok $? "ASGF_WATCH=0: the walk ran and stored, and nothing was watched or recorded (rc $rc)"
tap_done
