#!/usr/bin/env bash
# The libFuzzer harnesses on a live JVM: 2000 inputs with crash protection
# on complete without a VM crash; planted faults are caught and recorded
# (keep going) or abort into a crash file that is a valid case; a hung walk
# leaves libFuzzer's timeout file, a valid case too; the ASan
# build starts the JVM and runs 500 inputs; the wrapper rejects unknown
# options by name.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export ASGF_WARMUP_MS=100
casetool=$BUILD/bin/casetool

# valid_records DIR: every record parses and carries a valid case.
valid_records() {
  local r hex n=0
  for r in "$1"/record-*.txt; do
    [ -f "$r" ] || return 1
    head -1 "$r" | grep -q '^ASGF-RECORD 1$' && tail -1 "$r" | grep -q '^END$' || return 1
    hex=$(sed -n 's/^case: //p' "$r")
    python3 -c 'import sys; open(sys.argv[2],"wb").write(bytes.fromhex(sys.argv[1]))' "$hex" "$d/rec.case" &&
      "$casetool" check "$d/rec.case" || return 1
    n=$((n + 1))
  done
  [ $n -gt 0 ]
}

fuzz/run-libfuzzer --runs 2000 --keep-going --out "$d/plain" > "$d/plain.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^Done 2000 runs' "$d/plain.log" && ! ls "$d"/plain/records/hs_err* >/dev/null 2>&1
ok $? "libFuzzer: -runs=2000 with protection on completes, no VM crash (exit $rc)"
grep -q 'asgf: JVM up .*guard primary, protection on' "$d/plain.log"; ok $? "libFuzzer: the guard runs in primary mode"
runs=$(sed -n 's/^asgf: runs \([0-9]*\), rejected \([0-9]*\).*/\1 \2/p' "$d/plain.log")
set -- $runs
[ "${1:-0}" -gt 1500 ]; ok $? "libFuzzer: inputs reach the JVM (runs ${1:-?}, rejected ${2:-?}: mutations are kept valid)"

# Structure-aware mutations (fuzz/casefix.h): the kept corpus holds inputs
# with more forged stack records than any seed has, which byte mutations of
# 12-byte record heads alone practically never build.
stk_max() { local f m=0 n; for f in "$@"; do n=$("$casetool" decode "$f" 2>/dev/null | grep -c '^stk '); [ "$n" -gt $m ] && m=$n; done; echo $m; }
seed_max=$(stk_max $BUILD/fuzz/seeds/*.bin)
kept_max=$(stk_max "$d"/plain/corpus/*)
[ "$kept_max" -gt "$seed_max" ]; ok $? "libFuzzer: structure-aware mutations build deeper forgeries (kept inputs: up to $kept_max stk records; seeds: $seed_max)"
ASGF_STRUCT_MUTATE=lots fuzz/run-libfuzzer --runs 10 --out "$d/badshare" > "$d/badshare.log" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q 'ASGF_STRUCT_MUTATE: expected a percentage 0..100, got "lots"' "$d/badshare.log"
ok $? "libFuzzer: a bad ASGF_STRUCT_MUTATE stops the harness, naming the variable (exit $rc)"

ASGF_TEST_PLANT=0x10 fuzz/run-libfuzzer --runs 300 --keep-going --out "$d/planted" > "$d/planted.log" 2>&1
rc=$?
caught=$(sed -n 's/^asgf: runs .*faults caught \([0-9]*\).*/\1/p' "$d/planted.log")
[ $rc -eq 0 ] && [ "${caught:-0}" -gt 0 ]; ok $? "libFuzzer, test hook: planted faults are caught and the VM keeps going (${caught:-0} caught, exit $rc)"
valid_records "$d/planted/records"; ok $? "libFuzzer, test hook: crash records are complete and carry valid cases"

ASGF_TEST_PLANT=0x10 fuzz/run-libfuzzer --runs 300 --out "$d/abort" > "$d/abort.log" 2>&1
rc=$?
crash=$(ls "$d"/abort/crashes/crash-* 2>/dev/null | head -1)
[ $rc -ne 0 ] && [ -n "$crash" ] && grep -q 'asgf: aborting so the fuzzer saves this input' "$d/abort.log"
ok $? "libFuzzer, test hook, no keep-going: a caught fault aborts and libFuzzer saves $(basename "${crash:-no-crash-file}")"
[ -n "$crash" ] && "$casetool" check "$crash"; ok $? "libFuzzer: the saved crash file is a valid case"
# Another run into the same --out with other settings: the crash keeps the
# settings it was found with (its replay.env), the new run writes its own.
fuzz/run-libfuzzer --runs 10 --keep-going --out "$d/abort" > "$d/abort2.log" 2>&1
moved=$(ls "$d"/abort/crashes/earlier-*/"$(basename "${crash:-none}")" 2>/dev/null | head -1)
[ -n "$moved" ] && grep -qx 'ASGF_TEST_PLANT=0x10' "$(dirname "$moved")/replay.env" &&
  grep -qx 'ASGF_KEEP_GOING=0' "$(dirname "$moved")/replay.env" && grep -qx 'ASGF_KEEP_GOING=1' "$d/abort/replay.env" &&
  ! grep -q 'ASGF_TEST_PLANT' "$d/abort/replay.env"
ok $? "libFuzzer: a run with other settings moves an earlier crash aside with its own replay.env (${moved:-not moved: $(ls "$d/abort/crashes" | tr '\n' ' ')})"

fuzz/run-libfuzzer --asan --runs 500 --keep-going --out "$d/asan" > "$d/asan.log" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^Done 500 runs' "$d/asan.log" && ! grep -q 'ERROR: AddressSanitizer' "$d/asan.log"
ok $? "libFuzzer+ASan: the JVM starts and 500 inputs run clean (exit $rc)"
# ASan's fake stack for use-after-return once put the image off the thread's
# stack, and every stk case ran unforged.
built=$(sed -n 's/^asgf: stack images: built \([0-9]*\).*/\1/p' "$d/asan.log")
[ "${built:-0}" -gt 0 ]; ok $? "libFuzzer+ASan: stk cases forge on a stack image ($(grep '^asgf: stack images' "$d/asan.log"))"

ASGF_TEST_PLANT=0x10 fuzz/run-libfuzzer --asan --runs 300 --keep-going --out "$d/asan-planted" > "$d/asan-planted.log" 2>&1
rc=$?
caught=$(sed -n 's/^asgf: runs .*faults caught \([0-9]*\).*/\1/p' "$d/asan-planted.log")
[ $rc -eq 0 ] && [ "${caught:-0}" -gt 0 ] && ! grep -q 'ERROR: AddressSanitizer' "$d/asan-planted.log"
ok $? "libFuzzer+ASan, test hook: planted faults are caught under ASan too (${caught:-0} caught, exit $rc)"

fuzz/run-libfuzzer --frobnicate > "$d/bad.log" 2>&1
[ $? -eq 2 ] && grep -q "unknown option '--frobnicate'" "$d/bad.log"; ok $? "run-libfuzzer: an unknown option is an error naming it"
for bad in "--duration 0" "--workers abc"; do
  fuzz/run-libfuzzer $bad --dry-run > "$d/bad.log" 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q -- "${bad%% *} wants" "$d/bad.log"
  ok $? "run-libfuzzer $bad: exit 2 naming it; a 0 s run would be libFuzzer's no limit ($rc: $(cat "$d/bad.log"))"
done
# A walk that hangs (the stand-in's 3000th in a signal handler sleeps for
# good): libFuzzer's -timeout takes the input, which must be on disk.
fake=$PWD/$BUILD/tests/libfake_proto.so
ASGF_API=asgst LD_PRELOAD=$fake ASGF_FAKE_HANG='RunWithIterator@signal:3000:1' ASGF_FAKE_FAULT_LOG=$d/knob.log \
  fuzz/run-libfuzzer --duration 60 --keep-going --out "$d/hang" -- -timeout=3 > "$d/hang.log" 2>&1; rc=$?
t=$(ls "$d"/hang/crashes/timeout-* 2>/dev/null | head -1)
planted=$(knob_planted "$d/knob.log" RunWithIterator@signal)
[ $rc -ne 0 ] && [ "$planted" = 1 ] && [ -n "$t" ] && $casetool check "$t" > /dev/null 2>&1 &&
  grep -q 'libFuzzer: timeout' "$d/hang.log"
ok $? "a hung walk ends in libFuzzer's timeout with the input saved as a valid case (exit $rc, ${planted:-no} hang planted, ${t:+${t##*/}})"
ASGF_FEEDBAK=0 fuzz/run-libfuzzer --runs 10 --out "$d/typo" > "$d/typo.log" 2>&1
grep -q 'unknown environment variable ASGF_FEEDBAK' "$d/typo.log"; ok $? "harness: a misspelt ASGF_ variable is reported"
tap_done
