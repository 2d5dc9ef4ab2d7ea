#!/usr/bin/env bash
# crash-triage: repro and minimize. Most checks use a stand-in replay tool
# (crash-triage/testdata-gen/fake-replay: faults decided by the case bytes) so they are
# deterministic and need no JVM; the last ones run the real build/fuzz/asgf-replay with
# the test hook ASGF_TEST_PLANT (every AGCT walk faults) and are skipped without it.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
REAL_BUILD=${BUILD:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
is() { [ "$1" = "$2" ]; ok $? "$3 (got $1)"; }
RP=crash-triage/repro MIN=crash-triage/minimize
mkdir -p "$tmp/build/fuzz"
ln -s "$PWD/crash-triage/testdata-gen/fake-replay" "$tmp/build/fuzz/asgf-replay"
export BUILD=$tmp/build
enc() { python3 -c 'import sys; sys.path.insert(0, "crash-triage")
from ctlib import case
open(sys.argv[2], "wb").write(case.parse_text(open(sys.argv[1]).read()).encode())' "$1" "$2"; }
printf 'asgf-case 1\nmut rax delta 5\nmut sp region code_cache 0x12345\nmut rbx abs 7\nflags rewind\ndepth 40\n' >"$tmp/three.txt"
enc "$tmp/three.txt" "$tmp/three.case"
printf 'asgf-case 1\nmut rax delta 5\n' >"$tmp/bugb.txt"; enc "$tmp/bugb.txt" "$tmp/bugb.case"
printf 'asgf-case 1\nmut rbx delta 5\n' >"$tmp/none.txt"

# -- usage and bad input: exit 2 ------------------------------------------------------
$RP >/dev/null 2>&1; is $? 2 "repro without TARGET exits 2"
$RP "$tmp/nope" >/dev/null 2>"$tmp/e"; rc=$?; [ $rc = 2 ] && grep -q 'no such file' "$tmp/e"; ok $? "repro on a missing file exits 2 with a reason"
$RP "$tmp" >/dev/null 2>"$tmp/e"; rc=$?; [ $rc = 2 ] && grep -q 'without bucket.json' "$tmp/e"; ok $? "repro on a directory that is no bucket exits 2"
echo hello >"$tmp/junk.case"
$RP "$tmp/junk.case" >/dev/null 2>"$tmp/e"; rc=$?; [ $rc = 2 ] && grep -q 'not a case file' "$tmp/e"; ok $? "repro on a non-case file exits 2"
$RP "$tmp/three.case" --shared --via stress >/dev/null 2>&1; is $? 2 "--shared with --via stress exits 2"
$RP "$tmp/three.case" -n 0 >/dev/null 2>&1; is $? 2 "-n 0 exits 2"
$MIN "$tmp/three.case" >/dev/null 2>&1; is $? 2 "minimize without -o exits 2"

# -- repro -------------------------------------------------------------------------------
$RP "$tmp/three.case" -n 3 >"$tmp/r1" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'reproduced with the same signature in 3/3 attempts' "$tmp/r1" && grep -q 'REPRODUCED (a fault; nothing expected)' "$tmp/r1"
ok $? "repro of a case with no expectation: any fault counts, 3/3, exit 0 (rc $rc)"
grep -q 'via replay' "$tmp/r1"; ok $? "replay is the default when the replay binary exists"
$RP "$tmp/none.txt" -n 2 >"$tmp/r2" 2>&1; rc=$?
[ $rc = 1 ] && grep -q 'NOT REPRODUCED' "$tmp/r2" && grep -q 'any fault in 0/2' "$tmp/r2"; ok $? "a text case that never faults: 0/2, exit 1 (rc $rc)"

# a bucket made by triage from a record of bug A
mkdir -p "$tmp/tree"
crash-triage/testdata-gen/fake-replay --record-dir "$tmp/tree" "$tmp/three.case" >/dev/null
crash-triage/testdata-gen/fake-replay --record-dir "$tmp/tree/b" "$tmp/bugb.case" >/dev/null
crash-triage/triage -q --out "$tmp/out" "$tmp/tree" >/dev/null 2>&1
sigA=$(python3 -c 'import json,sys; print([b["signature"] for b in json.load(open(sys.argv[1]))["buckets"] if "0x1000" in b["title"]][0])' "$tmp/out/report.json")
$RP "$tmp/out/buckets/$sigA" -n 3 --json "$tmp/r3.json" >"$tmp/r3" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "expected: $sigA" "$tmp/r3" && grep -q 'same signature in 3/3' "$tmp/r3" && grep -q 'REPRODUCED (same signature)' "$tmp/r3"
ok $? "repro BUCKET replays smallest.case and finds the bucket's signature (rc $rc)"
python3 - "$tmp/r3.json" "$sigA" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ok = s['same_signature'] == 3 and s['rate'] == 1.0 and s['signatures'][0]['signature'] == sys.argv[2] \
    and s['signatures'][0]['expected'] and len(s['attempt_list']) == 3 and s['mode'] == 'fresh'
print(('ok' if ok else 'not ok') + ' - --json carries the rate, the signatures seen and every attempt')
PY
$RP "$sigA" --out "$tmp/out" -n 1 >/dev/null 2>&1; is $? 0 "repro SIGNATURE --out DIR finds the bucket"
$RP "$tmp/out/buckets/$sigA/bucket.json" -n 1 >/dev/null 2>&1; is $? 0 "repro accepts the bucket.json path"
$RP "$tmp/bugb.case" --expect "$sigA" -n 2 >"$tmp/r4" 2>&1; rc=$?
[ $rc = 1 ] && grep -q 'fault, OTHER signature: SIGSEGV in libfake.so+0x2000' "$tmp/r4" && grep -q 'any fault in 2/2' "$tmp/r4"
ok $? "a fault with another signature does not count as reproduced (rc $rc)"
cp "$tmp/bugb.case" "$tmp/out/buckets/$sigA/cases/zz-other.case"
$RP "$tmp/out/buckets/$sigA/cases/zz-other.case" -n 1 >"$tmp/r5" 2>&1
grep -q "expected: $sigA" "$tmp/r5"; ok $? "a case inside a bucket directory expects that bucket's signature"
FAKE_REPLAY_RATE=1/3 FAKE_REPLAY_STATE=$tmp/state1 $RP "$tmp/three.case" -n 6 --expect "$sigA" --json "$tmp/r6.json" >"$tmp/r6" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'same signature in 2/6 attempts (33%, 95% interval 10%-70%)' "$tmp/r6"
ok $? "a statistical bug: rate 2/6 with its 95% interval (rc $rc)"
$RP "$tmp/three.case" --shared -n 50 >"$tmp/r7" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'ONE JVM runs the case 50 times' "$tmp/r7" && grep -q 'walks faulted 50/50' "$tmp/r7" && grep -q 'per-walk rate in one JVM: 100%' "$tmp/r7"
ok $? "--shared: one replay with -n N, per-walk rate (rc $rc)"

# -- minimize ----------------------------------------------------------------------------
$MIN "$tmp/three.case" -o "$tmp/m1.case" --expect "$sigA" --json "$tmp/m1.json" >"$tmp/m1" 2>&1; rc=$?
python3 - "$tmp/m1.case" "$tmp/m1.json" $rc <<'PY'
import json, sys
sys.path.insert(0, 'crash-triage')
from ctlib import case
c = case.decode(open(sys.argv[1], 'rb').read())
j = json.load(open(sys.argv[2]))
def tap(ok, name):
    print(('ok - ' if ok else 'not ok - ') + name)
tap(sys.argv[3] == '0', 'minimize exits 0')
tap([m.text() for m in c.muts] == ['mut rsp region code_cache 0x123'],
    'only the record that matters is left, its value halved as far as it still reproduces (%s)' % [m.text() for m in c.muts])
tap(c.flags == 0 and c.depth == 0, 'flags and depth cleared')
tap(any(s['what'].startswith('drop record 1') and not s['reproduced'] and s['other'] for s in j['steps']),
    'dropping the needed record gave another signature and was not kept')
tap(j['records_before'] == 3 and j['records_after'] == 1 and j['bytes_after'] == 28, 'json: 3 -> 1 records, 28 bytes')
PY
FAKE_REPLAY_RATE=1/3 FAKE_REPLAY_STATE=$tmp/state2 $MIN "$tmp/three.case" -o "$tmp/m2.case" --expect "$sigA" --tries 3 >"$tmp/m2" 2>&1; rc=$?
[ $rc = 0 ] && cmp -s "$tmp/m1.case" "$tmp/m2.case"; ok $? "statistical (1 in 3 attempts reproduces), --tries 3: same result (rc $rc)"
$MIN "$tmp/none.txt" -o "$tmp/m3.case" >"$tmp/m3" 2>&1; rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/m3.case" ] && grep -q 'does not reproduce' "$tmp/m3"; ok $? "a case that does not reproduce: exit 1, nothing written (rc $rc)"
$MIN "$tmp/out/buckets/$sigA" -o "$tmp/m4.case" --max-steps 2 >"$tmp/m4" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'stopped at --max-steps 2' "$tmp/m4"; ok $? "--max-steps bounds the work and says so (rc $rc)"

# A replay tool that cannot load (a JDK's libjvm that wants a newer glibc than the tool's)
# exits 1 without its faults line: that attempt did not run (exit 3); it is no clean run.
# The loader's own status for a missing library is 127.
mkdir -p "$tmp/noload/fuzz"
for st in 1 127; do
  printf '#!/bin/sh\necho "asgf-replay: libc.so.6: version GLIBC_2.99 not found" >&2\nexit %d\n' $st >"$tmp/noload/fuzz/asgf-replay"
  chmod +x "$tmp/noload/fuzz/asgf-replay"
  BUILD=$tmp/noload env -u JAVA_HOME $RP "$tmp/three.case" -n 2 >"$tmp/r9" 2>&1; rc=$?
  [ $rc = 3 ] && grep -q "attempt 2/2: did not run: replay exit $st without a result: .*GLIBC_2.99" "$tmp/r9" \
    && ! grep -q 'no fault\|crashed' "$tmp/r9"
  ok $? "a replay that never walked (exit $st) is 'did not run', exit 3, not a clean or crashed run (rc $rc)"
done

# A bucket a stress job found runs through stress/run by default, with that job's workload and
# flags: its case acts on the thread state of that workload. A stand-in java that never starts a
# VM keeps this to the choice of route.
mkdir -p "$tmp/stree/a1" "$tmp/fakejdk/bin"
printf '#!/bin/sh\necho "stand-in java: no VM" >&2; exit 1\n' >"$tmp/fakejdk/bin/java"; chmod +x "$tmp/fakejdk/bin/java"
mkdir -p "$tmp/fakejdk/lib/server"; : >"$tmp/fakejdk/lib/server/libjvm.so" # where a replay loads it from
crash-triage/testdata-gen/fake-replay --record-dir "$tmp/stree/a1" "$tmp/three.case" >/dev/null
echo "$PWD/stress/run --out o --time 42s --scenario deopt --threads 3 --jvm-flags -Xint --agent mode=thread,interval=50us,mutate=forge,seed=3 --jfr" >"$tmp/stree/a1/cmd"
crash-triage/triage -q --out "$tmp/sout" "$tmp/stree" >/dev/null 2>&1
sb=$(ls -d "$tmp"/sout/buckets/*/ | head -1)
$RP "$sb" -n 1 --time 1s --java-home "$tmp/fakejdk" >"$tmp/r12" 2>&1
grep -q 'a stress job found this bucket' "$tmp/r12" \
  && grep -q "via stress (stress/run --scenario deopt --time 1s --jvm-flags '-Xint' --threads 3 --jfr, agent mutate=corpus:<the case>,mode=thread,interval=50us)" "$tmp/r12"
ok $? "a stress job's bucket goes through stress/run with its scenario, flags, threads and sampling by default"
$RP "$sb" -n 1 --stress-args '--threads 2 --bogus' >"$tmp/r14" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "stress-args: word 3, '--bogus', is not one of" "$tmp/r14"
ok $? "--stress-args names a word it does not take, exit 2 (rc $rc)"
$RP "$sb" -n 1 --stress-args='--heap' >"$tmp/r15" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "stress-args: --heap (word 1) needs a value" "$tmp/r15"
ok $? "--stress-args: an option without its value, exit 2 (rc $rc)"
$RP "$sb" -n 1 --via replay --java-home "$tmp/fakejdk" >"$tmp/r13" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'via replay' "$tmp/r13" && ! grep -q 'a stress job found' "$tmp/r13"
ok $? "--via replay still replays it alone (rc $rc)"
$RP "$sb" -n 3 --shared >"$tmp/r16" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'ONE JVM runs the case 3 times' "$tmp/r16"
ok $? "--shared asks for the replay tool, and gets it for a stress job's bucket too (rc $rc)"
# A checked-in reproducer run on another major version says a miss there says little.
mkdir -p "$tmp/jdk99/bin" "$tmp/jdk99/lib/server"
printf '#!/bin/sh\necho "openjdk version \\"99.0.1\\" 2099-01-01" >&2; exit 1\n' >"$tmp/jdk99/bin/java"; chmod +x "$tmp/jdk99/bin/java"
r=$(grep -l "^verify: .*jdk=17 " corpus/reproducers/jdk17-*.md | head -1)
$RP "$r" -n 1 --time 1s --java-home "$tmp/jdk99" >"$tmp/r18" 2>&1
grep -q "^repro: warning: the reproducer was written for JDK 17; --java-home is JDK 99" "$tmp/r18"
ok $? "a reproducer for 17 run on 99 warns that a miss says little ($(grep -m1 warning "$tmp/r18" | cut -c1-100))"
crash-triage/minimize "$r" --tries 1 --max-steps 1 --time 1s --java-home "$tmp/jdk99" -o "$tmp/min99.bin" >"$tmp/r19" 2>&1
grep -q "^minimize: warning: the reproducer was written for JDK 17" "$tmp/r19" && grep -q "^minimize: reproducer " "$tmp/r19" \
  && ! grep -q "^repro:" "$tmp/r19"
ok $? "minimize says the same in its own name ($(grep -m1 warning "$tmp/r19" | cut -c1-60))"
# Of two JDKs of one version, a reproducer runs on the build its build= names; the first
# when it names none, or one that is not here (and then says which builds).
for b in 99.0.1+1-a 99.0.2+7-b; do
  mkdir -p "$tmp/jdk-$b/bin"; cp "$tmp/jdk99/bin/java" "$tmp/jdk-$b/bin/"
  echo "JAVA_RUNTIME_VERSION=\"$b\"" >"$tmp/jdk-$b/release"
done
python3 - "$PWD" "$tmp" >"$tmp/pick.out" 2>&1 <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1] + '/crash-triage')
from ctlib import reproducers as r
t = sys.argv[2]
jdks = r.find_jdks([t + '/jdk-99.0.1+1-a', t + '/jdk-99.0.2+7-b'])
for build in (None, '99.0.2+7-b', '99.0.1+1-a', '99.0.3+1'):
    home, note = r.jdk_for(dict({'jdk': '99'}, **({'build': build} if build else {})), jdks)
    print(build, os.path.basename(home), note)
print(r.jdk_for({'jdk': '98'}, jdks))
PY
[ "$(sed -n 1,4p "$tmp/pick.out" | cut -d' ' -f1-2)" = "None jdk-99.0.1+1-a
99.0.2+7-b jdk-99.0.2+7-b
99.0.1+1-a jdk-99.0.1+1-a
99.0.3+1 jdk-99.0.1+1-a" ] && [ "$(sed -n 1,3p "$tmp/pick.out" | cut -d' ' -f3)" = "None
None
None" ] && grep -qx "99.0.3+1 jdk-99.0.1+1-a found on build 99.0.3+1; $tmp/jdk-99.0.1+1-a is 99.0.1+1-a" "$tmp/pick.out" \
  && sed -n 5p "$tmp/pick.out" | grep -qx '(None, None)'
ok $? "of two JDKs of one version, build= picks its own; none or an absent one takes the first and says so ($(tr '\n' '|' <"$tmp/pick.out" | cut -c1-200))"
# A finding run that named no scenario ran stress/run's default one, not repro's.
sed -i 's/ --scenario deopt//' "$tmp/stree/a1/cmd"
$RP "$sb" -n 1 --time 1s --java-home "$tmp/fakejdk" >"$tmp/r17" 2>&1
grep -q "via stress (stress/run --scenario (stress/run's default) --time 1s" "$tmp/r17"
ok $? "a stress job that named no scenario is run again with stress/run's default one"
# writeup's repro command for a stress find parses, even when its workload options are one flag.
python3 - "$PWD" <<'PY'
import importlib.machinery, importlib.util, shlex, sys
root = sys.argv[1]
sys.path.insert(0, root + '/crash-triage')
def load(name, path):
    spec = importlib.util.spec_from_loader(name, importlib.machinery.SourceFileLoader(name, path))
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
writeup, repro = load('writeup', root + '/crash-triage/writeup'), load('repro_cli', root + '/crash-triage/repro')
opts = writeup.replay_options('/r/stress/run --out o --scenario gc --jfr --jvm-flags -Xint')
a = repro.build_parser().parse_args(['x'] + shlex.split(opts))
ok = a.via == 'stress' and a.scenario == 'gc' and a.stress_args == '--jfr' and a.jvm_flags == '-Xint'
print(('ok' if ok else 'not ok') + ' - writeup prints repro options that parse back to the same workload (%s)' % opts.strip())
# Frames are numbered as a debugger does (an inlined function is a frame of its own, marked), and
# a run of frames nothing names is one line.
from ctlib.model import Frame
fr = [Frame(function='inner', module='/j/libjvm.so', offset=16, inlined=True), Frame(function='outer', module='/j/libjvm.so', offset=16)]
fr += [Frame() for _ in range(5)] + [Frame(function='main', module='/j/libjvm.so', offset=32)]
got = [l.split()[0] for l in writeup.frame_lines(fr)]
lines = writeup.frame_lines(fr)
ok = got == ['0', '1', '2-6', '7'] and '[inlined]' in lines[0] and '[inlined]' not in lines[1] and '5 frames' in lines[2]
print(('ok' if ok else 'not ok') + ' - writeup numbers every frame, marks inlined ones, folds 5 nameless ones (%s)' % got)
PY

# -- the real replay tool with the test hook ------------------------------------------------
export BUILD=$REAL_BUILD
if [ ! -x "$REAL_BUILD/fuzz/asgf-replay" ]; then
    echo "ok - real replay # SKIP $REAL_BUILD/fuzz/asgf-replay not built (make -f Makefile -f fuzz/fuzz.mk fuzz-build)"
    exit 0
fi
printf 'asgf-case 1\nflags method_info\ndepth 300\nmut rax delta 0x1000\nmut rbx abs 0x12345678\nmut rcx region java_heap 0x4444\nmut r12 delta -0x80\nmut r13 region own_stack 0x40\n' >"$tmp/five.txt"
t0=$(date +%s)
$MIN "$tmp/five.txt" -o "$tmp/five.min" --test-plant 0x10 >"$tmp/m5" 2>&1; rc=$?
python3 - "$tmp/five.min" $rc "$(( $(date +%s) - t0 ))" <<'PY'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import case
try:
    c = case.decode(open(sys.argv[1], 'rb').read())
except Exception as e:
    c = None
ok = sys.argv[2] == '0' and c is not None and not c.muts and c.flags == 0 and c.depth == 0
print(('ok' if ok else 'not ok') + ' - real JVM, test hook: 5 irrelevant records shrink to 0 (16 bytes) in %ss' % sys.argv[3])
PY
grep -q 'expected signature taken from the unmodified case: 0ccd219a2649 SIGSEGV in forte_fill_call_trace_given_top$' "$tmp/m5" \
  || grep -q 'expected signature taken from the unmodified case' "$tmp/m5"
ok $? "minimize names the signature it keeps"
$RP "$tmp/five.min" -n 2 --test-plant 0x10 >"$tmp/r8" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'in 2/2 attempts' "$tmp/r8"; ok $? "real JVM, test hook: repro 2/2 fresh JVMs (rc $rc)"
# In a JDK's root the JVM's hs_err cannot say where its modules are: the harness leaves the
# root's name beside it, as stress/run does, for triage to symbolize them there.
ASGF_SYSROOT=$tmp/a-root fuzz/replay -n 1 --record-dir "$tmp/sr" "$tmp/five.min" >"$tmp/r10" 2>&1; rc=$?
[ "$(cat "$tmp/sr/sysroot" 2>/dev/null)" = "$tmp/a-root" ]; ok $? "the replay tool names ASGF_SYSROOT in its record directory (rc $rc)"
env -u ASGF_SYSROOT fuzz/replay -n 1 --record-dir "$tmp/sr" "$tmp/five.min" >"$tmp/r11" 2>&1; rc=$?
[ ! -e "$tmp/sr/sysroot" ]; ok $? "a later run outside a root in the same directory removes it (rc $rc)"

# A stress find replays with its workload, its JVM flags and the agent options that make the VM
# it acted on (vthread_warmup=0: a VM that never entered a continuation), not the others.
python3 - <<'PY'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import reproduce as R
cmd = 'x\n/r/stress/run --out o --time 42s --scenario spin,inline --agent mode=signal,mutate=forge,vthread_warmup=0,seed=3 --jvm-flags -Xint'
got = [R.stress_settings(cmd), R.stress_settings('/r/stress/run --scenario spin --agent mutate=forge'),
       R.stress_settings('/r/fuzz/run-libfuzzer --out o')]
want = [('spin,inline', '-Xint', 'mode=signal,vthread_warmup=0'), ('spin', None, None), (None, None, None)]
print(('ok' if got == want else 'not ok') + ' - stress_settings keeps scenario, JVM flags and state options only (%r)' % (got,))
cmd = '/r/stress/run --out o --threads 4 --scenario gc --heap 1g --jfr --agent interval=50us --jcmd 5'
got = [R.workload_args(cmd), R.workload_args('/r/stress/run --scenario gc'), R.workload_args('/r/fuzz/run-libfuzzer --jfr')]
want = ['--threads 4 --heap 1g --jfr --jcmd 5', None, None]
print(('ok' if got == want else 'not ok') + ' - workload_args keeps threads, heap and the VM walkers of a stress run (%r)' % (got,))
PY


# An attempt whose backtrace ended early on the bucket's first frames is the bucket's fault (triage
# would fold it in), as is one with a signature folded into the bucket; a complete shallower
# backtrace, or one of another signal class, is not.
python3 - <<'PY'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import reproduce as R
t = R.Target(label='b', case=None, data=b'', case_path='', title='SIGSEGV in f < g < h', signature='aaaaaaaaaaaa',
             also={'bbbbbbbbbbbb', 'SIGSEGV in f < x'}, frames=['f', 'g', 'h'], signal='SIGSEGV')
found = lambda title, sig, frames, early, signal='SIGSEGV': R.Found(title, sig, 'record', 'p', [], frames, early, signal)
got = [t.matches('SIGSEGV in f < g', 'cccccccccccc', found('SIGSEGV in f < g', 'cccccccccccc', ['f', 'g'], True)),
       t.matches('SIGSEGV in f < g', 'cccccccccccc', found('SIGSEGV in f < g', 'cccccccccccc', ['f', 'g'], False)),
       t.matches('SIGBUS in f < g', 'dddddddddddd', found('SIGBUS in f < g', 'dddddddddddd', ['f', 'g'], True, 'SIGBUS')),
       t.matches('SIGSEGV in f < x', 'eeeeeeeeeeee'), t.matches('SIGSEGV in q', 'bbbbbbbbbbbb'),
       t.matches('SIGSEGV in g', 'ffffffffffff', found('SIGSEGV in g', 'ffffffffffff', ['g'], True))]
want = [True, False, False, True, True, False]
print(('ok' if got == want else 'not ok') + ' - repro counts an early-ended unwind of the bucket and its folded names, nothing else (%r)' % (got,))
PY

# ... unless another bucket of the same run also starts with those frames: triage then folds the
# shallow unwind into neither, and repro must not count it as this bucket's.
python3 - "$tmp/rivals" <<'PY'
import json, os, sys
sys.path.insert(0, 'crash-triage')
from ctlib import reproduce as R
base = os.path.join(sys.argv[1], 'buckets')
os.makedirs(base)
open(os.path.join(sys.argv[1], '.asgf-triage'), 'w').write('crash-triage output directory\n')
for sig, frames, signal, folded in (('aaaaaaaaaaaa', ['f', 'g', 'h'], 'SIGSEGV', [{'signature': 'bbbbbbbbbbbb'}]),
                                    ('bbbbbbbbbbbb', ['f', 'g', 'w'], 'SIGSEGV', None),  # folded into a: no rival
                                    ('cccccccccccc', ['f', 'g', 'z'], 'SIGBUS', None),   # another signal class
                                    ('dddddddddddd', ['f', 'q'], 'SIGSEGV', None)):
    os.makedirs(os.path.join(base, sig))
    with open(os.path.join(base, sig, 'bucket.json'), 'w') as f:
        json.dump({'signature': sig, 'title': 'SIGSEGV in ' + ' < '.join(frames), 'frames': frames,
                   'signal': signal, 'members': [], **({'folded': folded} if folded else {})}, f)
t = R.Target(label='b', case=None, data=b'', case_path='', bucket_dir=os.path.join(base, 'aaaaaaaaaaaa'),
             title='SIGSEGV in f < g < h', signature='aaaaaaaaaaaa', also={'bbbbbbbbbbbb'},
             frames=['f', 'g', 'h'], signal='SIGSEGV')
t.rivals, t.siblings = R._rivals(t.bucket_dir, t)
early = R.Found('SIGSEGV in f < g', 'eeeeeeeeeeee', 'record', 'p', [], ['f', 'g'], True, 'SIGSEGV')
# an early unwind whose own signature is a bucket standing beside the target: triage files it there
own = R.Found('SIGSEGV in f < g', 'dddddddddddd', 'record', 'p', [], ['f', 'g'], True, 'SIGSEGV')
got = [sorted(f[-1] for f, _ in t.rivals), t.matches(early.title, early.signature, early),
       t.matches(own.title, own.signature, own)]
os.makedirs(os.path.join(base, 'ffffffffffff'))
with open(os.path.join(base, 'ffffffffffff', 'bucket.json'), 'w') as f:
    json.dump({'signature': 'ffffffffffff', 'title': 'SIGSEGV in f < g < k', 'frames': ['f', 'g', 'k'],
               'signal': 'SIGSEGV', 'members': []}, f)
t.rivals, t.siblings = R._rivals(t.bucket_dir, t)
got.append(t.matches(early.title, early.signature, early))
want = [['q', 'z'], True, False, False]
print(('ok' if got == want else 'not ok') + ' - a second deeper bucket of the same run keeps an early-ended unwind from counting (%r)' % (got,))
# The same buckets gathered by hand (a directory triage did not write): they come from other
# runs, and the early unwind is the target's again.
import shutil
for gathered in (os.path.join(sys.argv[1], 'by-hand'), os.path.join(sys.argv[1], 'unmarked', 'buckets')):
    shutil.copytree(base, gathered)
    t.bucket_dir = os.path.join(gathered, 'aaaaaaaaaaaa')
    t.rivals, t.siblings = R._rivals(t.bucket_dir, t)
    got = [t.rivals, sorted(t.siblings), t.matches(early.title, early.signature, early)]
    print(('ok' if got == [[], [], True] else 'not ok') + ' - buckets gathered outside a triage output (%s) are no rivals (%r)'
          % (os.path.relpath(gathered, sys.argv[1]), got))
PY
[ $? = 0 ] || echo "not ok - the rival-bucket check crashed"

# A JDK whose libjvm cannot load (cut short: the loader dies of SIGBUS before the
# JVM is up) never ran the case: "did not run", exit 3, not a crash or a clean run.
bad=$tmp/badjdk
mkdir -p "$bad/bin" "$bad/lib/server"
cp -r "$JAVA_HOME/release" "$bad/" 2>/dev/null; printf '#!/bin/sh\nexec %s "$@"\n' "$JAVA_HOME/bin/java" >"$bad/bin/java"; chmod +x "$bad/bin/java"
head -c 4096 "$JAVA_HOME/lib/server/libjvm.so" >"$bad/lib/server/libjvm.so"
$RP "$tmp/five.min" -n 1 --test-plant 0x10 --java-home "$bad" >"$tmp/r11" 2>&1; rc=$?
[ $rc = 3 ] && grep -q 'did not run: replay killed by signal' "$tmp/r11" && ! grep -q 'crashed' "$tmp/r11"
ok $? "a libjvm that cannot load: the attempt did not run, exit 3 (rc $rc: $(grep -m1 'attempt 1/1' "$tmp/r11"))"
# A library the finding run preloaded that is gone: the replay refuses to run
# the case on something else.
ASGF_PRELOAD=$tmp/gone/libprovider.so $RP "$tmp/five.min" -n 1 --test-plant 0x10 >"$tmp/r12" 2>&1; rc=$?
[ $rc = 3 ] && grep -q "ASGF_PRELOAD names $tmp/gone/libprovider.so, which is not here" "$tmp/r12"
ok $? "a preloaded library that is gone stops the replay: exit 3, naming it (rc $rc)"
