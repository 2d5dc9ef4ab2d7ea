#!/usr/bin/env bash
# Forged stack memory (stk records, src/stack_image.c):
#  1. a checked-in stk case replayed against a stand-in walker that reads
#     return addresses off the stack: the fault address is the forged word,
#     so the walk read the forged copy; the crash record carries the copy's
#     forged words; a control case without the stk record does not fault;
#  2. on the live JVM (stock AGCT), mutate=forge walks forged copies and the
#     VM survives under crash protection (faults are recorded, not fatal).
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
lib=$PWD/$BUILD/tests/libstandin_stackread.so

LD_PRELOAD=$lib ASGF_API=asgst fuzz/replay -n 5 --record-dir "$d/rec" tests/cases/forged-return.txt \
  >"$d/forged.out" 2>&1; rc=$?
grep -q 'faults: 5/5 runs' "$d/forged.out" && grep -q 'addr 0xdead0040 ' "$d/forged.out"
ok $? "the stand-in walker faults at the forged return address 0xdead0040 in 5 of 5 runs (rc $rc: $(grep -m1 'fault:' "$d/forged.out"))"
rec=$(ls "$d/rec"/record-*.txt 2>/dev/null | head -1)
[ -n "$rec" ] && grep -q '^image: copy 0x[0-9a-f]* sp 0x[0-9a-f]* bytes [0-9]' "$rec" && grep -q '^image_word: 8 0x00000000dead0040 ' "$rec"
ok $? "the crash record carries the forged copy and the word the walker read (image_word: 8 0x...dead0040)"
crash-triage/triage --out "$d/t" --no-symbolize -q "$d/rec" >/dev/null 2>&1
small=$(ls "$d"/t/buckets/*/smallest.case 2>/dev/null | head -1)
c_text=$("$BUILD/bin/casetool" decode "$small" 2>&1 | grep '^stk')
py_text=$(python3 -c 'import sys; sys.path.insert(0, "crash-triage"); from ctlib import case
print(case.load(sys.argv[1])[0].text())' "$small" 2>&1 | grep '^stk')
[ "$c_text" = "stk sp +8 abs 0xdead0040" ] && [ "$py_text" = "$c_text" ]
ok $? "the bucket's case keeps the stk record, read alike by C and Python ('$c_text' / '$py_text')"

LD_PRELOAD=$lib ASGF_API=asgst fuzz/replay -n 5 --record-dir "$d/rec2" tests/cases/forged-return-control.txt \
  >"$d/control.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'faults: 0/5 runs' "$d/control.out"
ok $? "control: the same context without the forged word does not fault (rc $rc)"

# 2. Live JVM, the VM's own walker, forged stacks at 50 us.
stress/run --scenario spin,recursion,inline --threads 2 --time 6s --agent mutate=forge,interval=50us \
  --out "$d/live" >"$d/live.out" 2>&1; rc=$?
forged=$(sed -n 's/^asgf: forged stacks: \([0-9]*\) walks.*/\1/p' "$d/live/log" | tail -1)
[ $rc -le 1 ] && [ "${forged:-0}" -gt 1000 ]
ok $? "stock walker on forged stacks: the VM survives (rc $rc: $(tail -1 "$d/live.out")), ${forged:-0} walks on a forged copy"
blobs=$(sed -n 's/.*; \([0-9]*\) VM stubs known$/\1/p' "$d/live/log" | tail -1)
[ "${blobs:-0}" -gt 10 ]
ok $? "DynamicCodeGenerated reported the VM's stubs and blobs for region code_blob (${blobs:-0})"
tap_done
