#!/usr/bin/env bash
# Fault injection, triage side (no JVM, nothing mounted): a full disk through
# the LD_PRELOAD shim (build/tests/libenospc.so), two triage runs on one --out
# at once, damaged index.json / bucket.json, a foreign or regular-file --out,
# missing and FIFO inputs, a missing --replay-cmd. Each case checks the
# message, the exit status, and that what an earlier run stored is intact.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
T=crash-triage/triage
SHIM=$PWD/$BUILD/tests/libenospc.so
[ -e "$SHIM" ] || { echo "not ok 1 - $SHIM missing: run make"; echo 1..1; exit 1; }
td=crash-triage/testdata
totals() { python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["reports"], t["buckets"])' "$1/report.json"; }

# The inputs in two halves (a report and its .inflight.case stay together), and
# a reference run over both.
mkdir -p "$d/in1" "$d/in2"
ls $td | grep -v '^fragments$\|\.inflight\.case$' | sort | awk 'NR % 2' | while read -r f; do cp "$td/$f"* "$d/in1/"; done
ls $td | grep -v '^fragments$\|\.inflight\.case$' | sort | awk '!(NR % 2)' | while read -r f; do cp "$td/$f"* "$d/in2/"; done
$T --out "$d/ref" --no-symbolize -q "$d/in1" "$d/in2" >/dev/null 2>&1; ok $? "reference triage of $td, in two halves"
$T --out "$d/o" --no-symbolize -q "$d/in1" >/dev/null 2>&1; ok $? "first run on half of the inputs"
cp "$d/o/index.json" "$d/index.before"; cp "$d/o/report.json" "$d/report.before"
before=$(totals "$d/o")

# 1. Out of space in the middle of the second run: exit 3, one clear line,
#    the first run's index and report unchanged, no .tmp or empty file left.
ASGF_ENOSPC_DIR="$d/o" ASGF_ENOSPC_AFTER=3000 LD_PRELOAD=$SHIM \
  $T --out "$d/o" --no-symbolize -q "$d/in1" "$d/in2" >"$d/full.out" 2>"$d/full.err"; rc=$?
[ $rc = 3 ] && grep -q "^triage: cannot store the results: no space left on device writing '$d/o/" "$d/full.err"
ok $? "full disk: exit 3 naming the file (rc $rc: $(head -c 300 "$d/full.err"))"
cmp -s "$d/index.before" "$d/o/index.json" && cmp -s "$d/report.before" "$d/o/report.json"
ok $? "full disk: index.json and report.json of the earlier run are unchanged"
[ -z "$(find "$d/o" -name '*.tmp')" ]; ok $? "full disk: no .tmp file left ($(find "$d/o" -name '*.tmp' | head -3))"
[ -z "$(find "$d/o" -type f -size 0 ! -name .triage.lock)" ]
ok $? "full disk: no empty file left ($(find "$d/o" -type f -size 0 ! -name .triage.lock | head -3))"
# ... and the next run, with space, completes the work.
$T --out "$d/o" --no-symbolize -q "$d/in1" "$d/in2" >/dev/null 2>&1; rc=$?
[ $rc = 0 ] && [ "$(totals "$d/o")" = "$(totals "$d/ref")" ]
ok $? "after the full disk a run completes: $(totals "$d/o") reports/buckets, as the reference $(totals "$d/ref") (before: $before)"

# 2. .tmp leftovers of a killed run are removed by the next run.
: >"$d/o/index.json.tmp"; mkdir -p "$d/o/buckets/x"; : >"$d/o/buckets/x/bucket.json.tmp"
$T --out "$d/o" --no-symbolize -q "$d/in1" >/dev/null 2>&1
[ ! -e "$d/o/index.json.tmp" ] && [ ! -e "$d/o/buckets/x/bucket.json.tmp" ]; ok $? "leftover .tmp files are cleaned"

# 3. Two runs on one --out at once: the lock makes them one after the other,
#    and the result holds every report.
$T --out "$d/c" --no-symbolize -q "$d/in1" >/dev/null 2>"$d/c1.err" &
p1=$!
$T --out "$d/c" --no-symbolize -q "$d/in2" >/dev/null 2>"$d/c2.err" &
p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$(totals "$d/c")" = "$(totals "$d/ref")" ]
ok $? "two concurrent runs: both exit 0 and the result holds all reports (exit $r1 $r2; $(totals "$d/c") vs $(totals "$d/ref"); $(cat "$d/c1.err" "$d/c2.err" | head -c 300))"

# 4. A damaged index.json or bucket.json is named, exit 2, and left as it is.
cp -r "$d/ref" "$d/dmg"
head -c 100 "$d/ref/index.json" >"$d/dmg/index.json"
$T --out "$d/dmg" --no-symbolize -q "$d/in1" >/dev/null 2>"$d/dmg.err"; rc=$?
[ $rc = 2 ] && grep -q "$d/dmg/index.json is damaged" "$d/dmg.err" && cmp -s <(head -c 100 "$d/ref/index.json") "$d/dmg/index.json"
ok $? "truncated index.json: exit 2 naming it, file untouched ($(cat "$d/dmg.err"))"
cp "$d/ref/index.json" "$d/dmg/index.json"
b=$(ls -d "$d/dmg/buckets/"*/ | head -1)
head -c 50 "$d/ref/buckets/$(basename "$b")/bucket.json" >"$b/bucket.json"
$T --out "$d/dmg" --no-symbolize -q "$d/in1" >/dev/null 2>"$d/dmg2.err"; rc=$?
[ $rc = 2 ] && grep -q "bucket.json is damaged" "$d/dmg2.err" && cmp -s <(head -c 50 "$d/ref/buckets/$(basename "$b")/bucket.json") "$b/bucket.json"
ok $? "truncated bucket.json: exit 2 naming it, file untouched ($(cat "$d/dmg2.err"))"

# 5. --out: a regular file, a directory of the user's own files, --force.
echo mine >"$d/afile"
$T --out "$d/afile" -q $td >/dev/null 2>"$d/e1"; rc=$?
[ $rc = 2 ] && grep -q "is not a directory" "$d/e1" && [ "$(cat "$d/afile")" = mine ]
ok $? "--out naming a regular file: exit 2, file kept ($(cat "$d/e1"))"
mkdir -p "$d/user"; echo notes >"$d/user/notes.txt"; echo '{}' >"$d/user/report.json.bak"
$T --out "$d/user" -q $td >/dev/null 2>"$d/e2"; rc=$?
[ $rc = 2 ] && grep -q "not a triage output directory" "$d/e2" && [ "$(ls "$d/user" | wc -l)" = 2 ]
ok $? "--out holding the user's files: refused, exit 2, nothing written ($(cat "$d/e2"))"
$T --out "$d/user" --force --no-symbolize -q "$d/in1" >/dev/null 2>&1; rc=$?
[ $rc = 0 ] && [ "$(cat "$d/user/notes.txt")" = notes ] && [ -e "$d/user/.asgf-triage" ]
ok $? "--force writes there, the user's file stays"
$T --out "$d/ref" --no-symbolize -q "$d/in1" >/dev/null 2>&1; ok $? "an earlier triage directory is accepted again"

# 6. Inputs: missing, a FIFO (would block), and a missing replay tool.
$T --out "$d/x" -q "$d/no-such-dir" >/dev/null 2>"$d/e3"; rc=$?
[ $rc = 2 ] && grep -q "no-such-dir': no such file or directory" "$d/e3"; ok $? "missing input: exit 2 ($(cat "$d/e3"))"
mkfifo "$d/fifo"
timeout 20 $T --check "$d/fifo" >/dev/null 2>"$d/e4"; rc=$?
[ $rc = 2 ] && grep -q "is not a regular file" "$d/e4"; ok $? "--check FIFO: exit 2, no hang ($(cat "$d/e4"))"
timeout 20 $T --out "$d/x" -q "$d/fifo" >/dev/null 2>"$d/e5"; rc=$?
[ $rc = 2 ] && grep -q "is not a regular file or directory" "$d/e5"; ok $? "FIFO as a tree: exit 2 ($(cat "$d/e5"))"
$T --out "$d/x" --replay-cmd "$d/no-such-replay" -q $td >/dev/null 2>"$d/e6"; rc=$?
[ $rc = 2 ] && grep -q "no executable" "$d/e6"; ok $? "--replay-cmd naming a missing tool: exit 2 ($(cat "$d/e6"))"
tap_done
