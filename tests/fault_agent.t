#!/usr/bin/env bash
# Fault injection, agent side (live JVM, nothing mounted): the agent's out=
# directory runs out of space (build/tests/libenospc.so fails writes there
# after N bytes). The JVM under test must not die of it; ENOSPC is said once;
# records written before are whole; none is empty or half written. Then the
# agent's options: out= naming a regular file, a duplicated key.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
SHIM=$PWD/$BUILD/tests/libenospc.so
[ -e "$SHIM" ] || { echo "not ok 1 - $SHIM missing: run make"; echo 1..1; exit 1; }

# full DIR AFTER: a 3 s stress run with faults planted under protection; the
# agent writes to DIR/rec (where the disk fills), the VM's output goes to DIR/log.
# summary.json is spared, as if space came back before the agent's exit.
full() {
  mkdir -p "$1/rec"
  ASGF_ENOSPC_DIR="$1/rec" ASGF_ENOSPC_AFTER="$2" ASGF_ENOSPC_SPARE=summary.json LD_PRELOAD=$SHIM timeout 90 "$JAVA" \
    -XX:ErrorFile="$1/rec/hs_err_pid%p.log" \
    "-agentpath:$AGENT=out=$1/rec,threads=asgst-worker-*,stats=0,test_plant=0x10,mutate=random,records_per_key=1000" \
    -Dasgst.stress.native="$BUILD/lib/libstressnative.so" -cp "$BUILD/stress/classes" \
    asgstfuzz.stress.Main --scenario spin,recursion --threads 2 --duration 3s --quiet >"$1/log" 2>&1
}

# 1. Space for a record or two, then none.
full "$d/a" 8000; rc=$?
[ $rc = 0 ] && [ -z "$(ls "$d/a/rec"/hs_err_pid*.log 2>/dev/null)" ]
ok $? "disk full after 8000 bytes: the JVM exits normally (rc $rc; $(grep -m1 'faults caught' "$d/a/log"))"
n=$(grep -c 'no space left on device writing crash records' "$d/a/log")
[ "$n" = 1 ]; ok $? "ENOSPC is reported once (seen $n times)"
recs=$(ls "$d/a/rec"/record-*.txt 2>/dev/null | wc -l)
bad=0
for f in "$d/a/rec"/record-*.txt; do [ -e "$f" ] && { [ -s "$f" ] && tail -1 "$f" | grep -qx END || bad=$((bad + 1)); }; done
[ "$recs" -ge 1 ] && [ $bad = 0 ]; ok $? "the $recs record(s) written before are whole ($bad damaged)"
[ -z "$(find "$d/a/rec" -name '.*.tmp' -o -type f -size 0 -name 'record-*')" ]
ok $? "no half-written or empty record file left"
grep -q '"records_out_of_space": true' "$d/a/rec/summary.json"
ok $? "summary.json says faults went uncounted in files: $(grep -o '"records_out_of_space": [a-z]*' "$d/a/rec/summary.json")"

# 2. No space at all from the start: the in-flight file cannot be reserved
#    (before, its sparse mapping raised SIGBUS in the sampled JVM thread).
full "$d/b" 0; rc=$?
[ $rc = 0 ] && [ -z "$(ls "$d/b/rec"/hs_err_pid*.log 2>/dev/null)" ]
ok $? "disk full from the start: the JVM exits normally (rc $rc)"
grep -q 'in-flight case file .*: cannot reserve space: No space left on device' "$d/b/log"
ok $? "the in-flight file's ENOSPC is said ($(grep -m1 'in-flight' "$d/b/log"))"
[ "$(grep -c 'no space left on device writing crash records' "$d/b/log")" = 1 ]; ok $? "the records' ENOSPC is said once"
[ -z "$(ls "$d/b/rec"/record-*.txt "$d/b/rec"/inflight-* 2>/dev/null)" ]; ok $? "no empty record or in-flight file"

# 2b. The same through stress/run: its verdict line, the one a user reads,
#     says that records were lost (not only summary.json).
mkdir -p "$d/s"
ASGF_ENOSPC_DIR="$d/s" ASGF_ENOSPC_AFTER=8000 ASGF_ENOSPC_SPARE=summary.json LD_PRELOAD=$SHIM timeout 120 \
  stress/run --out "$d/s" --scenario spin --threads 2 --time 3s --agent test_plant=0x10,records_per_key=1000 \
  >"$d/s.out" 2>&1
rc=$?
last=$(grep '^stress: ' "$d/s.out" | tail -1)
[ $rc = 1 ] && echo "$last" | grep -q 'records-lost=no-space-left-on-device'
ok $? "stress/run on a disk that fills: exit $rc, its last line says records were lost (${last:0:60}... ${last##* })"

# 3. Triage the records of run 1; a case file emptied by a full disk is
#    repaired by the next run.
crash-triage/triage --out "$d/t" --no-symbolize -q "$d/a/rec" >/dev/null 2>&1; ok $? "triage of the records"
c=$(find "$d/t/buckets" -path '*/cases/*.case' | head -1)
if [ -n "$c" ]; then
  # smallest.case is the bucket's smallest case, not always the one emptied
  s=$(dirname "$(dirname "$c")")/smallest.case
  size=$(stat -c %s "$c"); ssize=$(stat -c %s "$s"); : >"$c"; : >"$s"
  crash-triage/triage --out "$d/t" --no-symbolize -q "$d/a/rec" >/dev/null 2>"$d/t.err"
  [ "$(stat -c %s "$c")" = "$size" ] && [ "$(stat -c %s "$s")" = "$ssize" ]
  ok $? "an emptied case file and smallest.case are rewritten ($size and $ssize bytes; $(cat "$d/t.err"))"
else
  ok 1 "the records' bucket holds a case file"
fi

# 4. Options: out= a regular file; a key given twice.
echo keep >"$d/file"
"$JAVA" "-agentpath:$AGENT=out=$d/file" -version >"$d/c.log" 2>&1; rc=$?
[ $rc != 0 ] && grep -q "out=$d/file\": not a directory" "$d/c.log" && [ "$(cat "$d/file")" = keep ]
ok $? "out= naming a regular file: the agent refuses to start ($(grep -m1 'bad agent' "$d/c.log"))"
"$JAVA" "-agentpath:$AGENT=out=$d/e,mode=thread,mode=signal" -version >"$d/e.log" 2>&1; rc=$?
[ $rc != 0 ] && grep -q 'option 3 "mode=signal": duplicates option 2 "mode=thread"' "$d/e.log"
ok $? "a duplicated key is refused naming both ($(grep -m1 'bad agent' "$d/e.log"))"
"$JAVA" "-agentpath:$AGENT=out=$d/e,duration=1e300h" -version >"$d/f.log" 2>&1; rc=$?
[ $rc != 0 ] && grep -q 'duration too long' "$d/f.log"; ok $? "an overflowing duration is refused ($(grep -m1 'bad agent' "$d/f.log"))"
"$JAVA" "-agentpath:$AGENT=out=$d/e,queue_size=8" -version >"$d/g.log" 2>&1; rc=$?
[ $rc != 0 ] && grep -q 'option 2 "queue_size" does not apply with the default mode=signal' "$d/g.log"
ok $? "an option of another mode is refused ($(grep -m1 'bad agent' "$d/g.log"))"
tap_done
