#!/usr/bin/env bash
# Held batches (src/target.h) on a live JVM: a signalled worker stays in its
# handler and runs several cases, each from its real interrupted context.
# Checked here through the harness's own exit line
#   asgf: target: N cases on S signals (...); from Java code J (P %)
# - by default there are fewer signals than cases, and walks still start in
#   Java code; ASGF_BATCH=1 sends one signal per case;
# - a fault caught inside a batch does not end it (more faults than signals);
# - thread-mode cases run on the fuzzer thread against a held worker;
# - a workload that allocates (GC safepoints) is never stalled into a
#   time-out by a held worker;
# - asgf-replay stays one signal per attempt unless ASGF_BATCH says otherwise;
# - bad values are refused by name.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export ASGF_WARMUP_MS=100
seeds=$BUILD/fuzz/seeds

# fields LOG: "cases signals from_java" from the exit line, or nothing.
fields() { sed -n 's/^asgf: target: \([0-9]*\) cases on \([0-9]*\) signals.*from Java code \([0-9]*\) .*/\1 \2 \3/p' "$1" | tail -1; }
# stat LOG NAME: a number from the "asgf: runs ..." line.
stat() { sed -n "s/^asgf: runs .*$2 \([0-9]*\).*/\1/p" "$1" | tail -1; }

fuzz/run-libfuzzer --runs 5000 --keep-going --out "$d/batch" > "$d/batch.log" 2>&1
rc=$?
set -- $(fields "$d/batch.log") 
cases=${1:-0} signals=${2:-0} java=${3:-0}
[ $rc -eq 0 ] && grep -q '^Done 5000 runs' "$d/batch.log" && ! ls "$d"/batch/records/hs_err* > /dev/null 2>&1
ok $? "batched libFuzzer: 5000 inputs complete without a VM crash (exit $rc)"
[ "$cases" -ge 4000 ] && [ "$signals" -gt 0 ] && [ $((signals * 2)) -lt "$cases" ]
ok $? "batched libFuzzer: fewer than half as many signals as cases ($cases cases on $signals signals)"
[ $((java * 2)) -gt "$cases" ]
ok $? "batched libFuzzer: most walks start from a context interrupted in Java code ($java of $cases)"

ASGF_BATCH=1 fuzz/run-libfuzzer --runs 1000 --keep-going --out "$d/single" > "$d/single.log" 2>&1
set -- $(fields "$d/single.log")
[ "${1:-0}" -ge 900 ] && [ "${1:-0}" = "${2:-x}" ]
ok $? "ASGF_BATCH=1: one signal per case (${1:-?} cases on ${2:-?} signals)"

# Every walk that finds frames faults in the planted hook: a batch that ended
# at its first fault would give at most one fault per signal. A hold of 20 ms
# lets each batch reach its full count even when other work on the machine takes
# the fuzzer thread's CPU for a while (at the default 200 us, a loaded machine
# made batches of 3.5 cases, and a quarter of the cases fault).
ASGF_HOLD_US=20000 ASGF_TEST_PLANT=0x10 fuzz/run-libfuzzer --runs 2000 --keep-going --out "$d/planted" > "$d/planted.log" 2>&1
rc=$?
caught=$(stat "$d/planted.log" "faults caught")
set -- $(fields "$d/planted.log")
[ $rc -eq 0 ] && [ "${caught:-0}" -gt "${2:-0}" ] && [ "${2:-0}" -gt 0 ]
ok $? "a fault caught in a held handler does not end the batch (${caught:-0} faults on ${2:-?} signals, exit $rc)"

out=$(ASGF_BATCH=32 "$BUILD/fuzz/asgf-replay" -n 400 --mode thread -v --record-dir "$d/thread" "$seeds/00-signal-plain.bin" 2>&1)
rc=$?
printf '%s\n' "$out" > "$d/thread.log"
set -- $(fields "$d/thread.log")
[ $rc -eq 0 ] && [ "${1:-0}" -eq 400 ] && [ $(( ${2:-0} * 2 )) -lt 400 ]
ok $? "thread mode: 400 walks of held workers from the caller, batched (${1:-?} cases on ${2:-?} signals, exit $rc)"

ASGF_SCENARIO=mixed fuzz/run-libfuzzer --runs 4000 --keep-going --out "$d/mixed" > "$d/mixed.log" 2>&1
rc=$?
notrun=$(stat "$d/mixed.log" "not run")
timeouts=$(sed -n 's/.*target: timeouts \([0-9]*\).*/\1/p' "$d/mixed.log" | tail -1)
[ $rc -eq 0 ] && [ "${notrun:-x}" = 0 ] && [ "${timeouts:-x}" = 0 ]
ok $? "an allocating workload (mixed) under batches: every case ran, no time-out (not run ${notrun:-?}, timeouts ${timeouts:-?})"

out=$("$BUILD/fuzz/asgf-replay" -n 60 -v --record-dir "$d/replay" "$seeds/00-signal-plain.bin" 2>&1)
printf '%s\n' "$out" > "$d/replay.log"
set -- $(fields "$d/replay.log")
[ "${1:-0}" -eq 60 ] && [ "${2:-0}" -eq 60 ]
ok $? "asgf-replay: one signal per attempt by default (${1:-?} cases on ${2:-?} signals)"

# Confined to one CPU (as a campaign job with cores=1), the two sides of the
# hand-off take turns on it: nobody spins, and every case still runs.
taskset -c 0 fuzz/run-libfuzzer --runs 20000 --keep-going --out "$d/onecpu" > "$d/onecpu.log" 2>&1
rc=$?
set -- $(fields "$d/onecpu.log")
[ $rc = 0 ] && grep -q ', 1 CPUs, spin 0 us,' "$d/onecpu.log" && [ "${1:-0}" -ge 19000 ] && grep -q "not run 0," "$d/onecpu.log"
ok $? "on one CPU: no spinning, every case ran (exit $rc, $(grep -o '[0-9]* CPUs, spin [0-9]* us' "$d/onecpu.log"), ${1:-?} cases on ${2:-?} signals)"

ASGF_BATCH=0 fuzz/run-libfuzzer --runs 10 --out "$d/bad" > "$d/bad.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'ASGF_BATCH' "$d/bad.log"; ok $? "ASGF_BATCH=0 is refused by name (exit $rc)"
ASGF_HOLD_US=soon fuzz/run-libfuzzer --runs 10 --out "$d/bad2" > "$d/bad2.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'ASGF_HOLD_US: .*"soon"' "$d/bad2.log"; ok $? "ASGF_HOLD_US=soon is refused by name (exit $rc)"
tap_done
