#!/usr/bin/env bash
# Forged stack memory (stk records, src/stack_image.c):
#  1. a checked-in stk case replayed against a stand-in walker that reads
#     return addresses off the stack: the fault address is the forged word,
#     so the walk read the forged copy; the crash record carries the copy's
#     forged words; a control case without the stk record does not fault;
#     a second case on the same held context finds the first's words put back;
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

# The bug report of that bucket: its class, the forged words, the input.
crash-triage/writeup "$(dirname "$small")" >"$d/writeup.md" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^- reachability: forged stack words; robustness only' "$d/writeup.md" &&
  grep -q '^image_word: 8 0x00000000dead0040' "$d/writeup.md" && grep -q '^stk sp +8 abs 0xdead0040' "$d/writeup.md" &&
  grep -q 'ASGST_RunWithIterator' "$d/writeup.md"
ok $? "crash-triage/writeup: reachability class, forged words, minimized input, symbolized frame (rc $rc)"

# The standalone reproducer of that bucket: builds without the framework and walks forged stacks.
crash-triage/standalone "$(dirname "$small")" -o "$d/standalone" >/dev/null 2>&1 &&
  (cd "$d/standalone" && CC="${CC:-cc} -Werror" sh build.sh >build.log 2>&1 && timeout 60 sh run.sh 2 3 >run.log 2>&1)
rc=$?; walks=$(sed -n 's/^repro: \([0-9]*\) walks, \([0-9]*\) on a forged stack.*/\2/p' "$d/standalone/run.log")
[ $rc = 0 ] && [ "${walks:-0}" -gt 0 ]
ok $? "crash-triage/standalone: agent and workload build with -Werror and walk forged stacks (rc $rc, ${walks:-0} forged walks)"

# A case found under other JVM flags: run.sh starts the VM with them; anything but flag characters is refused.
crash-triage/standalone "$(dirname "$small")" -o "$d/standalone-xint" --jvm-flags=-Xint >/dev/null 2>&1; rc=$?
crash-triage/standalone "$(dirname "$small")" -o "$d/standalone-bad" '--jvm-flags=-Xint;touch x' >/dev/null 2>"$d/sa-bad.err"; rc2=$?
[ $rc = 0 ] && grep -q 'bin/java" -Xint -agentpath:' "$d/standalone-xint/run.sh" && [ $rc2 = 2 ] && [ ! -e "$d/standalone-bad/run.sh" ]
ok $? "crash-triage/standalone --jvm-flags: run.sh starts the VM with -Xint (rc $rc); shell characters are refused (rc $rc2)"

# verify-reproducers on a directory of one reproducer, and of one that cannot reproduce.
major=$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
mkdir -p "$d/repros" "$d/repros-bad"
"$BUILD/bin/casetool" encode tests/cases/forged-return.txt -o "$d/repros/forged.case" >/dev/null
cp "$d/repros/forged.case" "$d/repros-bad/forged.case"
echo "verify: case=forged.case jdk=$major via=replay api=asgst expect=SIGSEGV in ASGST_RunWithIterator" >"$d/repros/forged.md"
echo "verify: case=forged.case jdk=$major via=replay api=asgst expect=SIGSEGV in somewhere_else" >"$d/repros-bad/forged.md"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros" --jdk "$JAVA_HOME" -n 2 >"$d/vr.out" 2>&1; rc=$?
[ $rc = 0 ] && tail -1 "$d/vr.out" | grep -qx 'reproducers: 1 root causes, 1 reproduce'
ok $? "verify-reproducers: the stand-in reproducer reproduces (rc $rc: $(tail -1 "$d/vr.out"))"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-bad" --jdk "$JAVA_HOME" -n 1 >"$d/vr2.out" 2>&1; rc=$?
[ $rc = 1 ] && tail -1 "$d/vr2.out" | grep -qx 'reproducers: 1 root causes, 0 reproduce'
ok $? "verify-reproducers: an expectation that does not come back fails (rc $rc: $(tail -1 "$d/vr2.out"))"
echo "verify: case=forged.case jdk=$major colour=blue expect=x" >"$d/repros-bad/forged.md"
crash-triage/verify-reproducers --dir "$d/repros-bad" -n 1 >"$d/vr3.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "forged.md:1: unknown word 'colour=blue'" "$d/vr3.out"
ok $? "verify-reproducers: a malformed verify: line is named with its file and line (rc $rc)"
echo "verify: case=forged.case jdk=$major time=ten expect=x" >"$d/repros-bad/forged.md"
crash-triage/verify-reproducers --dir "$d/repros-bad" -n 1 >"$d/vr5.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "forged.md:1: time= wants a duration such as 10s or 2m, got 'ten'" "$d/vr5.out"
ok $? "verify-reproducers: a bad time= is named as the line's, not as an option (rc $rc: $(tail -1 "$d/vr5.out"))"
echo "verify: case=forged.case jdk=4 via=replay expect=x" >"$d/repros-bad/forged.md"
crash-triage/verify-reproducers --dir "$d/repros-bad" -n 1 >"$d/vr4.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q "nothing was tested" "$d/vr4.out"
ok $? "verify-reproducers: nothing tested (no JDK 4 here) is exit 3, not a pass or a fail (rc $rc)"
crash-triage/verify-reproducers --dir "$d/repros" --jdk /tmp >"$d/vr5.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- "--jdk '/tmp' has no bin/java" "$d/vr5.out"; ok $? "verify-reproducers: a --jdk that is no JDK is exit 2 (rc $rc)"

# build=: the build the case was found on. Run on that build, the line is plain; run on the
# only JDK of that version here when it is another build, the line says so; a build of
# another version is a malformed line.
build=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"$/\1/p' "$JAVA_HOME/release")
mkdir -p "$d/repros-build"; cp "$d/repros/forged.case" "$d/repros-build/"
echo "verify: case=forged.case jdk=$major build=$build via=replay api=asgst expect=SIGSEGV in ASGST_RunWithIterator" >"$d/repros-build/forged.md"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-build" --jdk "$JAVA_HOME" -n 1 >"$d/vb1.out" 2>&1; rc=$?
[ -n "$build" ] && [ $rc = 0 ] && grep -q '^ok    forged.case (JDK [0-9]*): 1/1 attempts gave SIGSEGV in ASGST_RunWithIterator$' "$d/vb1.out"
ok $? "verify-reproducers: a reproducer of this build ($build) runs here and says nothing of builds (rc $rc: $(head -1 "$d/vb1.out"))"
echo "verify: case=forged.case jdk=$major build=$major.0.0+0-elsewhere via=replay api=asgst expect=SIGSEGV in ASGST_RunWithIterator" >"$d/repros-build/forged.md"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-build" --jdk "$JAVA_HOME" -n 1 >"$d/vb2.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^ok .*1/1 attempts gave .* (found on build $major.0.0+0-elsewhere; .* is $build)$" "$d/vb2.out"
ok $? "verify-reproducers: one found on another build runs on the JDK here, and its line says which builds (rc $rc: $(head -1 "$d/vb2.out" | cut -c1-160))"
echo "verify: case=forged.case jdk=$major build=$major.0.0+0-elsewhere via=replay api=asgst expect=SIGSEGV in somewhere_else" >"$d/repros-build/forged.md"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-build" --jdk "$JAVA_HOME" -n 1 >"$d/vb4.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q "^miss  forged.case (JDK [0-9]*): 0/1 attempts gave SIGSEGV in somewhere_else (found on build $major.0.0+0-elsewhere; " "$d/vb4.out" &&
  grep -qx 'reproducers: 0 root causes, 0 reproduce; 1 missed on another build than their own (not counted)' "$d/vb4.out"
ok $? "verify-reproducers: a miss on another build than its own is listed as a miss, not a failure (rc $rc: $(tail -1 "$d/vb4.out"))"
LD_PRELOAD=$lib crash-triage/repro "$d/repros-build/forged.md" -n 1 --java-home "$JAVA_HOME" >"$d/vb5.out" 2>&1
grep -q "^repro: warning: the reproducer was found on build $major.0.0+0-elsewhere; .* is $build\$" "$d/vb5.out"
ok $? "repro --java-home of another build than the reproducer's says so ($(grep -m1 warning "$d/vb5.out" | cut -c1-120))"
echo "verify: case=forged.case jdk=$major build=4.0.1 via=replay expect=x" >"$d/repros-build/forged.md"
crash-triage/verify-reproducers --dir "$d/repros-build" -n 1 >"$d/vb3.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "forged.md:1: build= wants a build of JDK $major such as $major.0.1+2, got '4.0.1'" "$d/vb3.out"
ok $? "verify-reproducers: a build= of another version is named with its file and line (rc $rc: $(tail -1 "$d/vb3.out"))"

# jvm= reaches the replayed JVM: a flag set it starts with reproduces, one it refuses runs nothing.
mkdir -p "$d/repros-jvm" "$d/repros-jvm-bad"
cp "$d/repros/forged.case" "$d/repros-jvm/"; cp "$d/repros/forged.case" "$d/repros-jvm-bad/"
echo "verify: case=forged.case jdk=$major via=stress api=asgst scenario=spin jvm=-Xint,-XX:+UseSerialGC time=3s stress=--threads,1 expect=SIGSEGV in ASGST_RunWithIterator" >"$d/repros-jvm/forged.md"
sed 's/-XX:+UseSerialGC/-XX:+UseNoSuchGC/' "$d/repros-jvm/forged.md" >"$d/repros-jvm-bad/forged.md"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-jvm" --jdk "$JAVA_HOME" -n 1 >"$d/vr4.out" 2>&1; rc=$?
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-jvm-bad" --jdk "$JAVA_HOME" -n 1 >"$d/vr5.out" 2>&1; rc2=$?
[ $rc = 0 ] && [ $rc2 = 1 ] && grep -q '0/0 attempts' "$d/vr5.out"
ok $? "verify-reproducers: jvm= flags reach the JVM: -Xint,-XX:+UseSerialGC reproduces (rc $rc), -XX:+UseNoSuchGC runs nothing (rc $rc2)"
# stress= reaches stress/run: a thread count it refuses runs nothing.
mkdir -p "$d/repros-stress-bad"; cp "$d/repros/forged.case" "$d/repros-stress-bad/"
sed 's/stress=--threads,1/stress=--threads,0/' "$d/repros-jvm/forged.md" >"$d/repros-stress-bad/forged.md"
LD_PRELOAD=$lib crash-triage/verify-reproducers --dir "$d/repros-stress-bad" --jdk "$JAVA_HOME" -n 1 >"$d/vr6.out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "0/0 attempts.*1 did not run: .*--threads '0' is not a positive number" "$d/vr6.out"
ok $? "verify-reproducers: stress= options reach stress/run: --threads 0 runs nothing (rc $rc)"
crash-triage/repro "$d/repros/forged.case" --via replay --jvm-flags=-Xint -n 1 >"$d/repro-jvm.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- '--jvm-flags needs --via stress' "$d/repro-jvm.out"
ok $? "crash-triage/repro: --jvm-flags with --via replay is refused (rc $rc)"

LD_PRELOAD=$lib ASGF_API=asgst fuzz/replay -n 5 --record-dir "$d/rec2" tests/cases/forged-return-control.txt \
  >"$d/control.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'faults: 0/5 runs' "$d/control.out"
ok $? "control: the same context without the forged word does not fault (rc $rc)"

# One held context, two cases: the forged case, then one that forges a
# far word only. The second reuses the first's copy of the stack
# (stack_image.h) and must find the forged return address put back.
mkdir -p "$d/pair"
cp tests/cases/forged-return.txt "$d/pair/1-forged.txt"
{ grep -v '^#' tests/cases/forged-return-control.txt; echo 'stk sp +2048 abs 0x1'; } >"$d/pair/2-far-word.txt"
LD_PRELOAD=$lib ASGF_API=asgst ASGF_BATCH=32 ASGF_HOLD_US=100000 fuzz/replay -n 5 --record-dir "$d/rec3" "$d/pair" \
  >"$d/pair.out" 2>&1; rc=$?
faults=$(sed -n 's/^  faults: \([0-9]*\)\/5 runs.*/\1/p' "$d/pair.out" | tr '\n' ' ')
[ $rc = 0 ] && [ "$faults" = "5 0 " ] && grep -q 'target: 10 cases on 1 signals' "$d/pair.out"
ok $? "a held batch reuses the stack copy with the last case's words put back: faults 5/5 then 0/5 on one signal (rc $rc: ${faults:-none}; $(grep -o '[0-9]* cases on [0-9]* signals' "$d/pair.out"))"

# 2. Live JVM, the VM's own walker, forged stacks at 50 us.
stress/run --scenario spin,recursion,inline --threads 2 --time 6s --agent mutate=forge,interval=50us \
  --out "$d/live" >"$d/live.out" 2>&1; rc=$?
forged=$(sed -n 's/^asgf: forged stacks: \([0-9]*\) walks.*/\1/p' "$d/live/log" | tail -1)
[ $rc -le 1 ] && [ "${forged:-0}" -gt 1000 ]
ok $? "stock walker on forged stacks: the VM survives (rc $rc: $(tail -1 "$d/live.out")), ${forged:-0} walks on a forged copy"
blobs=$(sed -n 's/.*; \([0-9]*\) VM stubs known$/\1/p' "$d/live/log" | tail -1)
[ "${blobs:-0}" -gt 10 ]
ok $? "DynamicCodeGenerated reported the VM's stubs and blobs for region code_blob (${blobs:-0})"
csr=$(grep '^asgf: call stub return pc ' "$d/live/log" | tail -1)
printf '%s\n' "$csr" | grep -Eq 'pc 0x[0-9a-f]+ \(gHotSpotVMStructs\), inside a reported VM stub: yes$'
ok $? "region call_stub_ret: the VM's table gives the call stub's return pc, inside a stub the VM reported ($csr)"
cb=$(grep '^asgf: continuation return barrier ' "$d/live/log" | tail -1)
if [ "${major:-0}" -ge 21 ]; then
  printf '%s\n' "$cb" | grep -Eq 'barrier 0x[0-9a-f]{6,}$'
elif [ "${major:-0}" -ge 19 ]; then
  printf '%s\n' "$cb" | grep -q 'barrier '   # 19 and 20 make the stub only with --enable-preview
else
  printf '%s\n' "$cb" | grep -q 'barrier 0 (not reported: a VM without continuations)$'
fi
ok $? "region cont_barrier: the return barrier stub is known exactly on a VM with continuations (JDK $major: $cb)"
tap_done
