#!/usr/bin/env bash
# The agent's queue and frame-mark operations are qop records in the cases it
# runs, so a fault they cause replays from the recorded case alone. The
# stand-in built with -DPLANTED_BUGS faults in MoveFrameMark when a mark is
# moved to an sp no walk gave out (bug_mark_off_frame); a queue-mode run with
# queue_ops=marks (no qops= option: every operation is the agent's own
# drawing) meets it at the handshake, and fuzz/replay on the record's case,
# in a JVM of its own, meets it again in every run: replay waits for a case's
# handshake ops before it counts the run.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
lib=$PWD/$BUILD/tests/libfake_proto_bugs.so
fn_of() { # RECORD: the stand-in function its pc is in
  local off
  off=$(sed -n 's/^pc: .*libfake_proto_bugs.so+\(0x[0-9a-f]*\)$/\1/p' "$1")
  [ -n "$off" ] && addr2line -f -e "$lib" "$off" | head -1
}
LD_PRELOAD=$lib run_stress "$d/run" "api=asgst,mode=queue,queue_ops=marks,seed=11" classload 6 2
rc=$?
[ $rc -le 1 ]; ok $? "queue_ops=marks run ends with faults caught, no VM crash (exit $rc)"
rec=
for r in "$d/run"/record-*.txt; do
  [ -f "$r" ] && grep -q '^entry: qop_handshake' "$r" && [ "$(fn_of "$r")" = bug_mark_off_frame ] && { rec=$r; break; }
done
[ -n "$rec" ]; ok $? "a fault in bug_mark_off_frame at the handshake is recorded ($(basename "${rec:-none}"))"
if [ -z "$rec" ]; then tap_done; exit; fi
sed -n 's/^case: //p' "$rec" | xxd -r -p > "$d/case.bin"
"$BUILD/bin/casetool" decode "$d/case.bin" > "$d/case.txt"
grep -q '^qop mark_move -[23]$' "$d/case.txt"
ok $? "the record's case holds the agent's own move off the frames ($(grep '^qop' "$d/case.txt" | tr '\n' ';'))"
LD_PRELOAD=$lib ASGF_API=asgst "$BUILD/fuzz/asgf-replay" -n 5 --record-dir "$d/rep" "$d/case.bin" > "$d/replay.log" 2>&1
rc=$?
hits=0
for r in "$d/rep"/record-*.txt; do [ -f "$r" ] && [ "$(fn_of "$r")" = bug_mark_off_frame ] && hits=$((hits + 1)); done
[ $rc = 0 ] && [ $hits -ge 1 ] && grep -q 'faults: 5/5 runs' "$d/replay.log"
ok $? "fuzz/replay of that case alone faults in bug_mark_off_frame again ($hits records, exit $rc; $(grep -m1 -o 'faults: [0-9/]* runs' "$d/replay.log"))"
tap_done
