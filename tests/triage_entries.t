#!/usr/bin/env bash
# One bug reachable from three API entry points is one bucket: a stand-in VM
# build (tests/jvm/standin_onebug.c) whose RunWithIterator,
# RunWithIteratorFromFrame and Enqueue all reach the same faulty step is
# called under the core's crash protection; triage makes one bucket "reached
# via" the three entries, with exact per-entry counts from the per-key fault
# counters. With the bug in RunWithIterator's own body, that fault's bucket is
# titled with the entry.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
export TRIAGE_REPLAY=/nonexistent/replay
drv=$BUILD/tests/standin_driver

$drv "$BUILD/tests/libstandin_onebug.so" "$d/one" 7 >"$d/one.out" 2>&1
grep -q '^standin_driver: 21 calls, 21 faults caught$' "$d/one.out"; ok $? "21 calls through the three entries all fault and are caught ($(cat "$d/one.out"))"
crash-triage/triage --out "$d/o1" "$d/one" >"$d/t1" 2>&1
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["buckets"])' "$d/o1/report.json")
ok "$([ "$n" = 1 ]; echo $?)" "one bucket ($n): $(head -1 "$d/t1")"
grep -q '^   21  [0-9a-f]*  SIGSEGV in standin_read_frame (reached via ASGST_Enqueue 7, ASGST_RunWithIterator 7, ASGST_RunWithIteratorFromFrame 7)$' "$d/t1"
ok $? "titled with the faulty step, reached via the three entries, 7 faults each"
grep -q 'reached via ASGST_Enqueue 7, ASGST_RunWithIterator 7, ASGST_RunWithIteratorFromFrame 7' "$d/o1/report.md"
ok $? "report.md lists the entries too"

$drv "$BUILD/tests/libstandin_inentry.so" "$d/entry" 4 >/dev/null 2>&1
crash-triage/triage --out "$d/o2" "$d/entry" >"$d/t2" 2>&1
grep -q '^    4  [0-9a-f]*  SIGSEGV in ASGST_RunWithIterator (reached via ASGST_RunWithIterator 4)$' "$d/t2"
ok $? "a bug in the entry function itself: one bucket titled with it ($(grep RunWithIterator "$d/t2" | head -1))"
grep -q '^    8  [0-9a-f]*  SIGSEGV in standin_read_frame (reached via ASGST_Enqueue 4, ASGST_RunWithIteratorFromFrame 4)$' "$d/t2"
ok $? "... apart from the step the other two entries reach"

r=$(ls "$d"/one/record-*.txt | head -1)
crash-triage/triage --explain "$r" >"$d/x" 2>&1
grep -q '^title: SIGSEGV in standin_read_frame$' "$d/x"; ok $? "--explain on a real record gives the bucket's title"

# The generic-helper rule on a real record: the step copies the frame with memcpy.
$drv "$BUILD/tests/libstandin_memcpy.so" "$d/mc" 1 >/dev/null 2>&1
crash-triage/triage --explain "$(ls "$d"/mc/record-*.txt | head -1)" >"$d/mx" 2>&1
grep -q '^  #0 .*mem\(cpy\|move\).* -> keep, generic helper: 1 more \[generic rule 2: ' "$d/mx"
ok $? "a fault in libc's memcpy: the generic rule asks for one more frame ($(sed -n 3p "$d/mx" | cut -c1-60)...)"
tap_done
