#!/usr/bin/env bash
# Lifecycle operations find what plain sampling cannot. The stand-in built
# with -DPLANTED_BUGS has three bugs, each reachable through one window only:
# Enqueue after a ResizeQueue that shrank the queue below its fill, before
# the resize took effect; a frame mark moved to an sp no walk gave out; and
# method info read from a class after it was unloaded. A short queue-mode
# campaign with queue_ops=all finds all three (crash records whose pc lies in
# each bug's function); the control run with queue_ops=none finds none.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
lib=$PWD/$BUILD/tests/libfake_proto_bugs.so
secs=${ASGF_LIFECYCLE_SECS:-15}
bugs="bug_resize_race bug_mark_off_frame bug_stale_method"
found() { # DIR: the function of every record's pc inside the stand-in, one a line
  for r in "$1"/record-*.txt; do
    [ -f "$r" ] || continue
    off=$(sed -n 's/^pc: .*libfake_proto_bugs.so+\(0x[0-9a-f]*\)$/\1/p' "$r")
    [ -n "$off" ] && addr2line -f -e "$lib" "$off" | head -1
  done | sort -u
}
for ops in all none; do
  LD_PRELOAD=$lib run_stress "$d/$ops" "api=asgst,mode=queue,queue_ops=$ops,seed=7" classload "$secs" 2
  rc=$?
  [ $rc -eq 0 ] && ! ls "$d/$ops"/hs_err* > /dev/null 2>&1
  ok $? "queue_ops=$ops: $secs s campaign ends cleanly (exit $rc), faults caught by the guard"
  found "$d/$ops" > "$d/$ops.found"
done
for b in $bugs; do
  grep -qx "$b" "$d/all.found"; ok $? "queue_ops=all finds $b"
done
n=$(grep -cx "$(echo $bugs | tr ' ' '\n')" "$d/none.found")
[ "$n" -eq 0 ]; ok $? "the control run (queue_ops=none) finds none of them (found: $(tr '\n' ' ' < "$d/none.found"))"
# The same windows through the case format: qop records (the agent's qops=
# option puts them in every case) without the agent's own operations. Two
# legs: a resize in every case would keep the handshake from ever running.
for leg in "resize resize:1+enqueue:0 bug_resize_race" "mark mark_register:0+mark_move:-2 bug_mark_off_frame"; do
  set -- $leg
  LD_PRELOAD=$lib run_stress "$d/q$1" "api=asgst,mode=queue,queue_ops=none,qops=$2" classload 5 2
  found "$d/q$1" > "$d/q$1.found"
  grep -qx "$3" "$d/q$1.found"; ok $? "qops=$2 alone finds $3 (found: $(tr '\n' ' ' < "$d/q$1.found"))"
done
rec=$(grep -l "^entry: qop_handshake" "$d/qmark"/record-*.txt 2>/dev/null | head -1)
[ -n "$rec" ] && sed -n 's/^case: //p' "$rec" | xxd -r -p > "$d/rec.bin" && "$BUILD/bin/casetool" decode "$d/rec.bin" | grep -q "^qop mark_move -2$"
ok $? "a fault at the handshake is recorded with the case that asked for it ($(basename "${rec:-none}"))"
# A fault inside a call that changes queue or mark state (MoveFrameMark's planted bug, the
# agent's second RemoveFrameMark) may leave that state half-changed: the process is tainted
# by the first one, in tainted-PID.txt at once and in every record after it.
# (fault_matrix.t checks which calls taint; jvm_protect.t that walk faults do not.)
taint=$(cat "$d/all"/tainted-*.txt 2>/dev/null)
key=${taint##* }
echo "$taint" | grep -Eqx "(mark_move|mark_remove|remove_frame_mark|remove_frame_mark_twice) [0-9a-f]{16}" && \
  [ -f "$d/all/faults-$key.txt" ] && \
  ! grep -h "^tainted: " "$d/all"/record-*.txt | grep -vqxF "tainted: $taint"
ok $? "queue_ops=all: the first fault in a frame-mark call taints the process, and later records name it (${taint:-none})"
grep -q "reached the API" "$d/none/log"; ok $? "the control run sampled: $(grep -o 'reached the API [0-9.]*% of samples' "$d/none/log")"
tap_done
