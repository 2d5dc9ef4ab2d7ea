#!/usr/bin/env bash
# crash-triage's reproduce tools (repro, minimize, writeup, standalone) on bad input: every
# output path, value and JDK is checked before any work (exit 2, naming it), a FIFO is no
# case, a bucket.json of the wrong shape is named; a bucket whose only cases are damaged has
# no smallest.case and repro says why; repro keeps the first faulting attempt's files; a
# stress job's bucket is measured by writeup and written by standalone with that job's
# workload and JVM flags. The replay tool is the deterministic stand-in (no JVM).
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
. tests/lib.sh
make_scratch
mkdir -p "$d/build/fuzz"
ln -s "$PWD/crash-triage/testdata-gen/fake-replay" "$d/build/fuzz/asgf-replay"
export BUILD=$d/build
RP=crash-triage/repro MIN=crash-triage/minimize WU=crash-triage/writeup SA=crash-triage/standalone
printf 'asgf-case 1\nmut rax delta 5\nmut sp region code_cache 0x12345\n' >"$d/c.txt"
python3 -c 'import sys; sys.path.insert(0, "crash-triage")
from ctlib import case
open(sys.argv[2], "wb").write(case.parse_text(open(sys.argv[1]).read()).encode())' "$d/c.txt" "$d/c.case"

# exit2 DESCRIPTION PATTERN CMD...: CMD exits 2 at once, its stderr matching PATTERN.
exit2() {
  local what=$1 pat=$2
  shift 2
  timeout 60 "$@" >"$d/x.out" 2>"$d/x.err"
  local rc=$?
  [ $rc = 2 ] && grep -q -- "$pat" "$d/x.err" && ! grep -q Traceback "$d/x.err"
  ok $? "$what: exit 2 ($rc: $(grep -v '^usage:\|^  ' "$d/x.err" | head -1 | cut -c1-150))"
}

# -- output paths, checked before the work ------------------------------------------------
exit2 "repro --json into a missing directory" "--json $d/none/r.json: directory" $RP "$d/c.case" -n 1 --json "$d/none/r.json"
[ ! -s "$d/x.out" ]; ok $? "... and nothing ran before the refusal"
touch "$d/afile"
$RP "$d/c.case" -n 1 --json /dev/null >"$d/devnull.out" 2>&1; rc=$?
[ $rc = 0 ]; ok $? "repro --json /dev/null: an existing writable file is taken, whatever its directory (rc $rc)"
exit2 "repro --keep on a file" "--keep $d/afile exists and is not a directory" $RP "$d/c.case" -n 1 --keep "$d/afile"
exit2 "minimize -o into a missing directory" "-o $d/none/m.case: directory" $MIN "$d/c.case" -o "$d/none/m.case"
exit2 "standalone -o on a file" "-o $d/afile exists and is not a directory" $SA "$d/c.case" -o "$d/afile"

# -- values and JDKs -----------------------------------------------------------------------
exit2 "repro --timeout 0" "--timeout wants seconds >= 1" $RP "$d/c.case" --timeout 0
exit2 "repro --api bogus" "invalid choice: 'bogus'" $RP "$d/c.case" --api bogus
exit2 "repro --java-home that is no JDK" "--java-home '/tmp' has no bin/java" $RP "$d/c.case" --java-home /tmp
exit2 "standalone --threads 0" "--threads and --seconds" $SA "$d/c.case" -o "$d/sa0" --threads 0

# -- non-regular files and malformed buckets -----------------------------------------------
mkfifo "$d/fifo"
exit2 "repro on a FIFO" "not a regular file" $RP "$d/fifo"
exit2 "minimize on a FIFO" "not a regular file" $MIN "$d/fifo" -o "$d/m.case"
exit2 "standalone on a FIFO" "not a regular file" $SA "$d/fifo" -o "$d/safifo"
mkdir -p "$d/blist" "$d/bjdk"
cp "$d/c.case" "$d/blist/smallest.case"; cp "$d/c.case" "$d/bjdk/smallest.case"
echo '[1, 2]' >"$d/blist/bucket.json"
echo '{"signature": "0123456789ab", "title": "t", "jdk": "x"}' >"$d/bjdk/bucket.json"
exit2 "repro on a bucket.json holding a list" "bucket.json holds a list, not an object" $RP "$d/blist" -n 1
exit2 "repro on a bucket.json whose jdk is a string" "field 'jdk' is a str, not a dict" $RP "$d/bjdk" -n 1
exit2 "writeup on a bucket.json holding a list" "holds a list, not an object" $WU "$d/blist"
exit2 "standalone on a bucket.json whose jdk is a string" "field 'jdk' is a str" $SA "$d/bjdk" -o "$d/sajdk"

mkdir -p "$d/brep" "$d/bmem"
cp "$d/c.case" "$d/brep/smallest.case"; cp "$d/c.case" "$d/bmem/smallest.case"
echo '{"signature": "0123456789ab", "representative": "x"}' >"$d/brep/bucket.json"
echo '{"signature": "0123456789ab", "members": [1]}' >"$d/bmem/bucket.json"
exit2 "standalone on a bucket whose representative is a string" "field 'representative' is a str, not a dict" $SA "$d/brep" -o "$d/sarep"
exit2 "writeup on a bucket whose members hold a number" "members\[0\] is an int, not a dict" $WU "$d/bmem"

# -- writeup's own options -------------------------------------------------------------------
# A bucket a stress job found: its member's cmd file is the job's stress/run command.
b=$d/stress-bucket
mkdir -p "$b" "$d/job/attempt-1"
cp "$d/c.case" "$b/smallest.case"
echo "$PWD/stress/run --scenario deopt --jvm-flags -Xint --time 30s --agent mode=signal,interval=50us,seed=3 --threads 3" \
  >"$d/job/attempt-1/cmd"
cp crash-triage/testdata/record-17-getpc-1 "$d/job/attempt-1/record-1-2-0.txt"
printf '{"signature": "0123456789ab", "title": "SIGSEGV in x", "count": 1, "representative": {"path": "%s"}}\n' \
  "$d/job/attempt-1/record-1-2-0.txt" >"$b/bucket.json"
exit2 "writeup -o into a missing directory" "-o $d/none/w.md: directory" $WU "$b" -o "$d/none/w.md"
exit2 "writeup --repro -3" "--repro wants a count >= 0" $WU "$b" --repro -3
exit2 "writeup --time xyz" "--time wants a duration" $WU "$b" --repro 1 --time xyz
exit2 "writeup --java-home that is no JDK" "--java-home '/tmp' has no bin/java" $WU "$b" --java-home /tmp
exit2 "writeup --as-reproducer that is no file name" "a reproducer name such as" $WU "$b" --as-reproducer ../x
exit2 "writeup --case that is no file" "--case $d/nocase: not a regular file" $WU "$b" --case "$d/nocase"
echo '[1]' >"$d/list.json"
exit2 "writeup --repro-json that is no repro result" "not a crash-triage/repro --json result" $WU "$b" --repro-json "$d/list.json"

python3 - "$b" "$JAVA_HOME" >"$d/wu.out" 2>&1 <<'EOF'
import importlib.machinery, importlib.util, sys, types
loader = importlib.machinery.SourceFileLoader('wu', 'crash-triage/writeup')
spec = importlib.util.spec_from_loader('wu', loader)
wu = importlib.util.module_from_spec(spec)
loader.exec_module(wu)
a = types.SimpleNamespace(time='10s', via=None, scenario=None, case=None)
t, r = wu.repro_runner(a, sys.argv[1], sys.argv[2])
print(r.via, r.scenario, r.jvm_flags, r.agent_extra, r.stress_args, r.protect)
EOF
grep -q '^stress deopt -Xint mode=signal,interval=50us --threads 3 0$' "$d/wu.out"
ok $? "writeup --repro runs a stress job's bucket as repro does: its scenario, flags, agent and workload options, protection off ($(tail -1 "$d/wu.out"))"
# --case: the report shows (and --repro would run) that case, not the bucket's smallest,
# under the name --as-reproducer gives it: ci/census writes a reproducer's note so.
$BUILD/bin/casetool encode corpus/seeds/01-thread-plain.txt -o "$d/other.case" 2>/dev/null ||
  cp "$(ls build/fuzz/seeds/01-* | head -1)" "$d/other.case"
$WU "$b" --case "$d/other.case" --as-reproducer other >"$d/wu-case.md" 2>"$d/wu-case.err"; rc=$?
python3 - "$d/wu-case.md" "$d/other.case" <<'EOF' >"$d/wu-case.out" 2>&1
import os, sys
sys.path.insert(0, 'crash-triage')
from ctlib import case
md, path = open(sys.argv[1]).read(), sys.argv[2]
head = 'Case `corpus/reproducers/other.case` (%d bytes;' % os.path.getsize(path)
block = md.split(head, 1)[1].split('```', 2)[1].strip('\n')
assert block == case.load(path)[0].text().rstrip(), (block, case.load(path)[0].text())
print('shown:', block.splitlines()[2])
EOF
prc=$?
$WU "$b" --case "$d/other.case" >"$d/wu-case2.md" 2>&1
[ $rc = 0 ] && [ $prc = 0 ] && ! cmp -s "$d/other.case" "$b/smallest.case" &&
  grep -qF "Case \`$d/other.case\`" "$d/wu-case2.md" && grep -qF "crash-triage/repro $d/other.case --expect 0123456789ab" "$d/wu-case2.md"
ok $? "writeup --case shows that case and its size, not the bucket's smallest ($rc; $(tail -1 "$d/wu-case.out"))"
$SA "$b" -o "$d/sa" >"$d/sa.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q -- '-Xint' "$d/sa/run.sh" && grep -q "finding run's flags: -Xint" "$d/sa.out"
ok $? "standalone on a stress job's bucket starts run.sh with that job's -Xint, and says so (rc $rc)"

# -- a bucket whose only case is damaged -----------------------------------------------------
mkdir -p "$d/dmg"
sed -n '/^ASGF-RECORD/,$p' crash-triage/testdata/record-17-getpc-1 |
  sed 's/^case: \(.\{40\}\).*/case: \1/' >"$d/dmg/record-14069-14094-0.txt"
crash-triage/triage -q --out "$d/dmgout" "$d/dmg" >"$d/dmg.out" 2>&1
bd=$(ls -d "$d"/dmgout/buckets/*/ | head -1)
[ -n "$bd" ] && [ ! -e "$bd/smallest.case" ] && grep -q '"damaged_case"' "$bd/bucket.json"
ok $? "triage keeps a damaged case out of smallest.case and records it ($(ls "$bd" 2>/dev/null | tr '\n' ' '))"
exit2 "repro on a bucket whose only case is damaged" "no valid case file: its reports carried 1, all damaged" $RP "$bd" -n 1

# -- repro keeps the first faulting attempt's files ------------------------------------------
mkdir -p "$d/tmp"
TMPDIR=$d/tmp $RP "$d/c.case" -n 2 >"$d/keep.out" 2>&1; rc=$?
kept=$(sed -n "s/^repro: kept the first faulting attempt's files (hs_err, crash records) in \([^;]*\);.*/\1/p" "$d/keep.out")
[ $rc = 0 ] && [ -n "$kept" ] && [ -d "$kept/out" ] && [ "$(dirname "$kept")" = "$d/tmp" ]
ok $? "repro without --keep keeps the first faulting attempt's directory and names it (rc $rc: ${kept:-none})"
n=$(ls -d "$d"/tmp/triage-repro-* 2>/dev/null | wc -l)
[ "$n" = 1 ]; ok $? "... only the first one of the two faulting attempts ($n kept)"
tap_done
