#!/usr/bin/env bash
# The AFL++ harness on a live JVM: a bounded 30 s campaign (deferred fork
# server, persistent shared-memory loop) executes cases; a planted fault
# becomes a crashes/id:* file that is a valid case and replays, and a second
# run on the same --out keeps it; the fork server alone (no JVM) serves
# afl-fuzz; the wrapper rejects unknown options by name and gathers only the
# run's own seeds.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export ASGF_WARMUP_MS=100
# afl_stat FILE KEY: a value from an AFL++ fuzzer_stats file (fails if there is no file).
afl_stat() { sed -n "s/^$2 *: *//p" "$1" 2>/dev/null; }
command -v afl-fuzz >/dev/null || { echo "ok 1 # SKIP afl-fuzz not installed"; tap_done; exit; }

fuzz/run-afl --duration 30 --keep-going --out "$d/afl" > "$d/afl.log" 2>&1
rc=$?
stats=$d/afl/afl/default/fuzzer_stats
execs=$(afl_stat "$stats" execs_done)
[ $rc -eq 0 ] && [ "${execs:-0}" -gt 0 ]; ok $? "AFL++: a 30 s run executes cases (execs_done ${execs:-none}, exit $rc)"
eps=$(afl_stat "$stats" execs_per_sec)
paths=$(afl_stat "$stats" corpus_count)
crashes=$(afl_stat "$stats" saved_crashes)
[ "${crashes:-1}" -eq 0 ]; ok $? "AFL++: no crashes with protection on and keep-going (corpus ${paths:-?}, ${eps:-?} execs/s)"

ASGF_TEST_PLANT=0x10 fuzz/run-afl --duration 15 --out "$d/planted" > "$d/planted.log" 2>&1
crashes=($(ls "$d"/planted/afl/default/crashes/id:* 2>/dev/null))
crash=${crashes[0]-}
[ -n "$crash" ] && $BUILD/bin/casetool check "$crash"
ok $? "AFL++, test hook: a caught fault aborts the child and AFL++ saves a valid case ($(basename "${crash:-no crash file}"))"
# Up to 20 runs, stopping at the first fault: a replay is one signal to a
# live worker, so a run can time out on a loaded machine without the case
# being wrong. A crash file whose case carries mutations may depend on the
# state the worker was in when AFL++ ran it (a clean-clone CI once replayed a
# four-mutation file to unknown_java 20 times), so up to three crash files
# are tried; the check fails when none of them replays to a fault.
rrc=none tried=0
for c in "${crashes[@]:0:3}"; do
  tried=$((tried + 1))
  ASGF_TEST_PLANT=0x10 ASGF_WARMUP_MS=200 fuzz/replay -n 20 --until-fault --fail-on-fault \
    --record-dir "$d/rec" "$c" > "$d/replay.log" 2>&1
  rrc=$?
  [ "$rrc" = 1 ] && break
done
[ "$rrc" = 1 ]; ok $? "replay takes an AFL++ crash file and the fault reproduces (exit $rrc, file $tried of ${#crashes[@]}, $(grep -m1 -o 'faults: .*' "$d/replay.log" 2>/dev/null))"
[ "$rrc" = 1 ] || sed 's/^/# /' "$d/replay.log" 2>/dev/null | tail -20

# A second run on the same --out resumes the session: afl-fuzz would
# otherwise delete a short session's crashes (or refuse a long one).
if [ -n "$crash" ]; then
  # ... with another setting: the earlier crash keeps the settings it was found with.
  ASGF_TEST_PLANT=0x10 ASGF_WARMUP_MS=150 fuzz/run-afl --duration 5 --out "$d/planted" > "$d/again.log" 2>&1
  kept=$(ls "$d"/planted/afl/default/crashes*/"$(basename "$crash")" 2>/dev/null | head -1)
  [ -n "$kept" ] && grep -q "resuming it" "$d/again.log"
  ok $? "run-afl on a used --out resumes and keeps the earlier crash (${kept:-gone: $(grep -m1 -i 'delet\|at-risk' "$d/again.log")})"
  [ -n "$kept" ] && grep -qx 'ASGF_TEST_PLANT=0x10' "$(dirname "$kept")/replay.env" &&
    grep -qx 'ASGF_WARMUP_MS=100' "$(dirname "$kept")/replay.env" && grep -qx 'ASGF_WARMUP_MS=150' "$d/planted/replay.env"
  ok $? "run-afl: the earlier session's crashes keep its replay.env when the next one's settings differ (${kept:+$(dirname "$kept")})"
else
  ok 1 "run-afl on a used --out keeps the earlier crash (no crash file to keep)"
  ok 1 "run-afl: the earlier session's crashes keep its replay.env (no crash file)"
fi

# Our fork server replaces a child after ASGF_AFL_LOOP inputs: with 300 per
# child, a 15 s run needs many children (JVMs) and must lose no input; run as
# -M main and -S sec1 (--jobs 2), each instance with its own server.
ASGF_AFL_LOOP=300 fuzz/run-afl --jobs 2 --keep-going --duration 15 --out "$d/loop" > "$d/loop.log" 2>&1
rc=$?
summary="" good=0
for inst in main sec1; do
  st=$d/loop/afl/$inst/fuzzer_stats
  execs=$(afl_stat "$st" execs_done)
  bad=$(( $(afl_stat "$st" saved_crashes || echo 1) + $(afl_stat "$st" saved_hangs || echo 1) ))
  summary="$summary $inst: execs_done ${execs:-none}, crashes+hangs $bad;"
  [ "${execs:-0}" -gt 900 ] && [ "$bad" -eq 0 ] && good=$((good + 1))
done
[ $rc -eq 0 ] && [ $good -eq 2 ]
ok $? "AFL++ -M/-S: children replaced every 300 inputs, both instances go on (exit $rc;$summary)"

ASGF_JVM_OPTS=-XX:+NoSuchOptionForTheTest fuzz/run-afl --duration 5 --out "$d/nojvm" > "$d/nojvm.log" 2>&1
[ $? -eq 3 ] && grep -q "cannot run a seed outside afl-fuzz" "$d/nojvm.log" && grep -q "NoSuchOptionForTheTest" "$d/nojvm.log"
ok $? "run-afl: a JVM that cannot start is exit 3, with the JVM's own message"

# The fork server with no JVM behind it (fuzz/bench's protocol ceiling):
# afl-fuzz accepts its hello and every input runs in the one child.
mkdir -p "$d/noop-in" && printf 'seed' > "$d/noop-in/seed"
AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
  timeout 60 afl-fuzz -V 5 -i "$d/noop-in" -o "$d/noop" -- "$BUILD/fuzz/asgf-afl-noop" > "$d/noop.log" 2>&1
rc=$?
st=$d/noop/default/fuzzer_stats
execs=$(afl_stat "$st" execs_done)
bad=$(( $(afl_stat "$st" saved_crashes || echo 1) + $(afl_stat "$st" saved_hangs || echo 1) ))
[ $rc -eq 0 ] && [ "${execs:-0}" -gt 1000 ] && [ "$bad" -eq 0 ]
ok $? "asgf-afl-noop: afl-fuzz runs inputs through the fork server without a JVM (exit $rc, execs_done ${execs:-none}, crashes+hangs $bad)"
"$BUILD/fuzz/asgf-afl-noop" soon > "$d/noop-bad.log" 2>&1
[ $? -eq 2 ] && grep -q "usage: asgf-afl-noop" "$d/noop-bad.log"
ok $? "asgf-afl-noop: a malformed NS is refused with its usage"

fuzz/run-afl --jobs 0 > "$d/bad.log" 2>&1
[ $? -eq 2 ] && grep -q -- "--jobs wants a number" "$d/bad.log"; ok $? "run-afl: a bad value is an error naming the option"
fuzz/run-afl --frobnicate > "$d/bad.log" 2>&1
[ $? -eq 2 ] && grep -q "unknown option '--frobnicate'" "$d/bad.log"; ok $? "run-afl: an unknown option is an error naming it"
fuzz/run-afl --dry-run --jobs 2 --duration 5 --out "$d/dry" > "$d/dry.log" 2>&1
grep -q -- '-M main' "$d/dry.log" && grep -q -- '-S sec1' "$d/dry.log" && grep -q -- '-V 5' "$d/dry.log"
ok $? "run-afl: --jobs 2 makes a -M and a -S instance, --duration gives -V"
mkdir -p "$d/seeds-a" "$d/seeds-b" && cp "$BUILD"/fuzz/seeds/* "$d/seeds-a/" && cp "$(ls "$BUILD"/fuzz/seeds/* | head -1)" "$d/seeds-b/only"
fuzz/run-afl --dry-run --seeds "$d/seeds-a" --out "$d/dry" > /dev/null 2>&1
fuzz/run-afl --dry-run --seeds "$d/seeds-b" --out "$d/dry" > /dev/null 2>&1
[ "$(ls "$d/dry/in")" = only ]; ok $? "run-afl: in/ holds this run's --seeds only ($(ls "$d/dry/in" | wc -l) files)"
tap_done
