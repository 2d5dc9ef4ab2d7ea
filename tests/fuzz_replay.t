#!/usr/bin/env bash
# fuzz/replay: the saved planted-fault reproducer faults again on replay
# with a record in --record-dir, naming the VM it ran on; seeds, directories and text cases run;
# corrupt inputs (empty, truncated, wrong magic or version, cut record,
# missing file) are refused before the JVM starts, naming file and offset,
# with exit 2 and no crash.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export ASGF_WARMUP_MS=200
repro=corpus/reproducers/planted-frames.bin

ASGF_TEST_PLANT=0x10 fuzz/replay -n 20 --record-dir "$d/rec" "$repro" > "$d/planted.out" 2> "$d/planted.err"
rc=$?
rate=$(sed -n 's/^  faults: \([0-9]*\)\/20 runs.*/\1/p' "$d/planted.out")
[ $rc -eq 0 ] && [ "${rate:-0}" -ge 1 ]; ok $? "replay, test hook: the reproducer faults again (${rate:-0}/20 runs, exit $rc)"
rec=$(sed -n 's/^  record: //p' "$d/planted.out")
[ -f "$rec" ] && [ "$(dirname "$rec")" = "$d/rec" ] && grep -q '^pc: .*libjvm.so+0x' "$rec"
ok $? "replay: the fault's crash record is in --record-dir, pc in libjvm"
grep -q '^  fault: SIGSEGV .*libjvm.so+0x' "$d/planted.out"; ok $? "replay prints the fault: $(grep -m1 '^  fault:' "$d/planted.out")"
# Which build it ran on: the VM's version and its java.home, from the VM itself.
props=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1)
vmver=$(echo "$props" | sed -n 's/^ *java\.vm\.version = //p') vmhome=$(echo "$props" | sed -n 's/^ *java\.home = //p')
grep -qF "asgf: JVM up in " "$d/planted.err" && grep -qF ": VM $vmver at $vmhome," "$d/planted.err"
ok $? "replay names the VM it ran on ($vmver; $(grep -o 'VM [^,]*' "$d/planted.err" | head -1))"
ASGF_TEST_PLANT=0x10 fuzz/replay --fail-on-fault --record-dir "$d/rec2" "$repro" > /dev/null 2>&1
[ $? -eq 1 ]; ok $? "replay --fail-on-fault: exit 1 when a fault reproduced"

# Unprotected, the planted fault kills the VM: the case that was running is
# on disk before the call (the worker's in-flight file), so triage finds it
# beside the hs_err, whatever the fuzzer driving the harness saves.
ASGF_TEST_PLANT=0x10 ASGF_PROTECT=0 fuzz/replay -n 5 --record-dir "$d/dead" "$repro" > "$d/dead.out" 2>&1
rc=$?
crash-triage/triage --no-symbolize --out "$d/dead-t" "$d/dead" > "$d/dead-t.out" 2>&1
case=$(ls "$d"/dead-t/buckets/*/cases/*.case 2>/dev/null | head -1)
[ $rc -ne 0 ] && ls "$d"/dead/hs_err_pid*.log > /dev/null 2>&1 && [ -n "$case" ] && cmp -s "$case" "$repro"
ok $? "replay, unprotected: the VM dies, and triage pairs its hs_err with the in-flight case, the input itself (exit $rc; $(ls "$d/dead" | tr '\n' ' '))"

fuzz/replay -n 3 --record-dir "$d/rec3" "$BUILD/fuzz/seeds" corpus/seeds/00-signal-plain.txt > "$d/seeds.out" 2>&1
rc=$?
nseeds=$(ls "$BUILD"/fuzz/seeds | wc -l); ncases=$(grep -c '^case ' "$d/seeds.out")
[ $rc -eq 0 ] && [ "$ncases" -eq $((nseeds + 1)) ]; ok $? "replay runs a directory of $nseeds seeds and a text case ($ncases cases, exit $rc)"
grep -q '^  outcomes: frames=' "$d/seeds.out"; ok $? "replay prints outcomes by raw code"

# A JAVA_HOME with no libjvm is refused: else the build's own JDK would run in its place.
JAVA_HOME=$JAVA_HOME/bin fuzz/replay "$repro" > /dev/null 2> "$d/jh.err"; rc=$?
[ $rc -eq 2 ] && grep -qF "JAVA_HOME '$JAVA_HOME/bin' has no lib/server/libjvm.so (the JDK itself is $JAVA_HOME)" "$d/jh.err"
ok $? "replay refuses a JAVA_HOME without libjvm, exit 2 ($rc: $(head -1 "$d/jh.err"))"

# No JAVA_HOME and a java on PATH that is no JDK image (a version manager's shim): the build's
# JDK runs, and the wrapper says so.
mkdir -p "$d/shim/bin" && printf '#!/bin/sh\necho shim\n' > "$d/shim/bin/java" && chmod +x "$d/shim/bin/java"
env -u JAVA_HOME PATH="$d/shim/bin:$PATH" fuzz/replay -n 1 --record-dir "$d/rec5" "$repro" > /dev/null 2> "$d/shim.err"; rc=$?
[ $rc -eq 0 ] && grep -qF "no JAVA_HOME, and the java on PATH ($d/shim) has no lib/server/libjvm.so: running the JDK this build was made with" "$d/shim.err"
ok $? "replay with a java shim on PATH runs the build's JDK and says so ($rc: $(head -1 "$d/shim.err"))"

# A reproducer directory holds NAME.md notes beside the cases: they are skipped, not refused.
mkdir -p "$d/repdir" && cp "$repro" "$d/repdir/" && printf '# a note\n' > "$d/repdir/planted-frames.md"
fuzz/replay -n 1 --record-dir "$d/rec4" "$d/repdir" > "$d/repdir.out" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^case ' "$d/repdir.out")" = 1 ]; ok $? "replay of a directory skips its .md notes (exit $rc)"

printf '' > "$d/empty"
printf 'ASGF\001\000' > "$d/short-header"
printf 'ASGF\001\000\000\000\000\000' > "$d/short-global"
printf 'ASGF\003\000\000\000\000\000\000\000\000\000\000\000' > "$d/version-3"
printf 'ASGX\001\000\000\000\000\000\000\000\000\000\000\000' > "$d/bad-magic"
{ head -c 16 "$repro"; printf '\001\001\000\000\010\000'; } > "$d/cut-record"
check_bad() { # FILE EXPECTED-STDERR-PATTERN DESCRIPTION
  fuzz/replay --record-dir "$d/bad" "$1" > "$d/bad.out" 2> "$d/bad.err"
  local rc=$?
  [ $rc -eq 2 ] && grep -q "$(basename "$1"): offset $2" "$d/bad.err" && ! grep -q 'JVM up' "$d/bad.err"
  ok $? "replay refuses $3 with exit 2: $(head -1 "$d/bad.err")"
}
check_bad "$d/empty" "0: empty" "an empty file"
check_bad "$d/short-header" "6: truncated header" "a truncated header"
check_bad "$d/short-global" "10: truncated global" "a truncated global section"
check_bad "$d/version-3" "4: unsupported version" "a wrong version"
check_bad "$d/bad-magic" "3: bad magic" "a wrong magic"
check_bad "$d/cut-record" "16: truncated mutation record" "a cut mutation record"
fuzz/replay "$d/no-such-file" > /dev/null 2> "$d/bad.err"
[ $? -eq 2 ] && grep -q 'no-such-file' "$d/bad.err"; ok $? "replay refuses a missing file with exit 2"
fuzz/replay "$repro" "$d/empty" > "$d/mixed.out" 2> "$d/bad.err"
[ $? -eq 2 ] && [ ! -s "$d/mixed.out" ]; ok $? "one bad file among good ones: nothing runs, exit 2"
fuzz/replay --frobnicate "$repro" > /dev/null 2> "$d/bad.err"
[ $? -eq 2 ] && grep -q 'unknown option --frobnicate' "$d/bad.err"; ok $? "replay: an unknown option is an error naming it"
# ASGF_PIN=1: while cases run, the fuzzer (main) thread and the worker each
# have one CPU of their own.
if [ "$(nproc)" -ge 2 ]; then
  ASGF_PIN=1 ASGF_WARMUP_MS=100 fuzz/replay -n 100000000 "$repro" > /dev/null 2>&1 &
  rp=$!
  aff=""
  for _ in $(seq 1 100); do
    w=$(grep -l '^asgst-worker' /proc/$rp/task/*/comm 2>/dev/null | head -1)
    if [ -n "$w" ]; then
      sleep 1
      aff="main $(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/$rp/status) worker $(sed -n 's/^Cpus_allowed_list:\s*//p' "$(dirname "$w")/status")"
      break
    fi
    sleep 0.2
  done
  kill $rp 2>/dev/null; wait $rp 2>/dev/null
  set -- $aff
  [ $# -eq 4 ] && [[ $2 =~ ^[0-9]+$ ]] && [[ $4 =~ ^[0-9]+$ ]] && [ "$2" != "$4" ]
  ok $? "ASGF_PIN=1 puts the fuzzer thread and the worker on CPUs of their own (${aff:-no worker seen})"
fi

# What the finding run preloaded is one of its settings: replay-env.sh writes
# AFL_PRELOAD (afl-fuzz gives it to its target alone, so triage never has it)
# as ASGF_PRELOAD, and fuzz/replay preloads it again.
fake=$PWD/$BUILD/tests/libfake_proto.so
(unset LD_PRELOAD; . fuzz/replay-env.sh && AFL_PRELOAD=$fake ASGF_API=asgst write_replay_env "$d/replay.env")
grep -qxF "ASGF_PRELOAD=$fake" "$d/replay.env"
ok $? "an AFL++ run's replay.env names its AFL_PRELOAD ($(grep PRELOAD "$d/replay.env" | sed "s|$PWD/||"))"
# Outputs of the run are not settings of its cases: a replay must not write into them.
(. fuzz/replay-env.sh && ASGF_OUT=$d/o ASGF_WALKER_BLOCKS=$d/wb.txt ASGF_API=agct write_replay_env "$d/replay-out.env")
grep -qx 'ASGF_API=agct' "$d/replay-out.env" && ! grep -q -e '^ASGF_OUT=' -e '^ASGF_WALKER_BLOCKS=' "$d/replay-out.env"
ok $? "replay.env leaves out the run's outputs, ASGF_OUT and ASGF_WALKER_BLOCKS ($(grep -c '^ASGF_' "$d/replay-out.env") settings)"
env $(grep '^ASGF_' "$d/replay.env") fuzz/replay -n 1 --record-dir "$d/pre" "$repro" >"$d/pre.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'backend asgst' "$d/pre.out"
ok $? "a replay with those settings runs on the preloaded stand-in (exit $rc)"
ASGF_API=asgst fuzz/replay -n 1 --record-dir "$d/pre2" "$repro" >"$d/pre2.out" 2>&1; rc=$?
[ $rc -eq 3 ]; ok $? "without the preload the same replay finds no ASGST to bind (exit $rc)"
tap_done
