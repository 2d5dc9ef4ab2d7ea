#!/usr/bin/env bash
# Campaign runner without a JVM: presets, plans, the job list, make
# variables, JUnit output, unpacking returned jobs, usage errors, and the
# pre-merge check's exit 3 for an unusable JAVA_HOME.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

# Every shipped preset loads; --list names them.
out=$(ci/campaign --list 2>&1); rc=$?
ok $(( rc != 0 )) "ci/campaign --list exits 0"
for p in smoke premerge overnight; do
  printf '%s\n' "$out" | grep -q "^$p " ; ok $? "preset $p is listed"
done

py() { PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=ci python3 - "$@"; }

# The matrix: one plan job per combination, ids unique, budgets as data.
py <<'EOF' >"$d/plan.out" 2>&1; ok $? "presets expand into the expected plans"
from cilib import preset
s = preset.load('smoke'); p = preset.load('premerge'); o = preset.load('overnight')
assert s['campaign']['budget'] == 60 and p['campaign']['budget'] == 600 and o['campaign']['budget'] == 8 * 3600
# The gate's groups in the order of their yield (ci/README.md, "Yield"), each once.
groups = []
for x in p['specs']:
    if x['section'] not in groups:
        groups.append(x['section'])
assert groups == ['stress interp', 'libfuzzer', 'stress forge', 'stress lifecycle', 'stress walkers',
                  'stress oracle', 'stress flags', 'afl'], groups
interp = p['specs'][0]['params']
assert interp['jvm'] == '-Xint' and interp['mutate'] == 'forge', interp
life = [x['params'] for x in p['specs'] if x['section'] == 'stress lifecycle']
assert {x['mode'] for x in life} == {'queue', 'thread'} and all('queue_ops=all' in x['agent'] for x in life), life
assert [x['params']['role'] for x in p['specs'] if x['kind'] == 'afl'] == ['M']
# The overnight run has the same groups first, in the same order, and adapts.
og = []
for x in o['specs']:
    if x['section'] not in og:
        og.append(x['section'])
assert og[:len(groups) - 1] == groups[:-1] and o['campaign']['adapt'] == '1', og
afl = [x for x in o['specs'] if x['kind'] == 'afl']
assert [x['params']['role'] for x in afl] == ['M', 'S'] and afl[0]['params']['name'] == 'main'
# The smoke run: libFuzzer first (its figure leads the report), then stress.
assert s['specs'][0]['kind'] == 'libfuzzer', s['specs'][0]
for pr in (s, p, o):
    ids = [x['id'] for x in pr['specs']]
    assert len(ids) == len(set(ids)), ids
print('ok')
EOF

# JVM flag sets: a matrix key ('default' adds nothing), comma-joined options
# stay one alternative, fuzzers take one set; bad sets are named.
write_preset "$d/flags.preset" budget=30s <<'EOF'
[stress]
scenario = spin
jvm = default -XX:+UseParallelGC,-XX:-UseCompressedOops -Xint
jcmd = 3
[libfuzzer]
jvm = -XX:+UseG1GC
EOF
py "$d/flags.preset" <<'EOF' >"$d/flags.out" 2>&1; ok $? "jvm flag sets expand into plan jobs and job options ($(tail -1 "$d/flags.out"))"
import sys
from cilib import preset
s = preset.load(sys.argv[1])['specs']
st = [x for x in s if x['kind'] == 'stress']
assert [x['params'].get('jvm') for x in st] == [None, '-XX:+UseParallelGC,-XX:-UseCompressedOops', '-Xint'], st
assert all(x['params']['jcmd'] == '3' for x in st)
assert 'jvm=-XX:+UseParallelGC,-XX:-UseCompressedOops' in preset.opts_string(st[1]['params'])
assert 'jvm' not in preset.opts_string(st[0]['params'])
assert [x for x in s if x['kind'] == 'libfuzzer'][0]['params']['jvm'] == '-XX:+UseG1GC'
for name in ('premerge', 'overnight'):
    p = preset.load(name)['specs']
    assert any('jvmti_walk=1' in x['params'].get('agent', '') for x in p), name
    assert any(x['params'].get('jcmd') for x in p), name
    assert any('jfr' in x['params'].get('flags', '') for x in p), name
    jv = ' '.join(x['params'].get('jvm', '') for x in p)
    for f in ('-Xint', 'TieredStopAtLevel=1', '-UseCompressedOops', 'PreserveFramePointer', 'UseZGC',
              'UseParallelGC') + (('UseShenandoahGC', 'UseSerialGC') if name == 'overnight' else ()):
        assert f in jv, (name, f)
    sc = ' '.join(x['params'].get('scenario', '') for x in p)
    for w in ('nanotime', 'walkers', 'exceptions', 'classload') + (('redefine', 'vthreads') if name == 'overnight' else ()):
        assert w in sc, (name, w)
    assert any(x['params'].get('mutate') == 'forge' for x in p), name
print('ok')
EOF
printf '[campaign]\nbudget = 30s\n[stress]\njvm = UseG1GC\njcmd = often\n' >"$d/badflags.preset"
err=$(ci/campaign --preset "$d/badflags.preset" --out "$d/bf" 2>&1); rc=$?
printf '%s\n' "$err" | grep -qF "[stress] jvm: bad value 'UseG1GC'" && printf '%s\n' "$err" | grep -qF "[stress] jcmd: seconds between thread dumps, got 'often'"
ok $(( rc != 2 || $? )) "a flag set that is not JVM options, and a bad jcmd, exit 2 naming them"

# A budget short of one round shrinks every slot by one factor (none below min_attempt) so
# that the whole plan runs once; one that fits leaves the slots as they are.
py <<'EOF' >"$d/fit.out" 2>&1; ok $? "fit_one_round: 5 minutes hold one round of premerge's plan, 10 minutes keep its slots ($(tail -1 "$d/fit.out"))"
from cilib import preset, plan
p = preset.load('premerge')
s, c = p['specs'], p['campaign']
same, f = plan.fit_one_round(s, 600, 40, 2, c['min_attempt'])
assert f is None and same == s
short, f = plan.fit_one_round(s, 300, 40, 2, c['min_attempt'])
assert 0 < f < 1 and plan.round_cost(short, 2) <= (300 - 40) * 2, (f, plan.round_cost(short, 2))
assert all(c['min_attempt'] <= a['job_time'] <= b['job_time'] for a, b in zip(short, s))
assert [a['id'] for a in short] == [b['id'] for b in s] and s[0]['job_time'] == 75   # the preset's own untouched
tiny, f = plan.fit_one_round(s, 60, 15, 2, c['min_attempt'])
assert all(a['job_time'] == c['min_attempt'] for a in tiny)   # cannot fit: each at its minimum
assert plan.unfit(short) == s                                 # a resume refits from the preset's slots
print('factor %.2f, slots %s' % (plan.fit_one_round(s, 300, 40, 2, c['min_attempt'])[1], [int(a['job_time']) for a in short]))
EOF
ci/campaign --preset premerge --budget 5m --dry-run --out "$d/fit" --no-build >"$d/fit1.out" 2>&1
ci/campaign --resume --budget 10m --dry-run --out "$d/fit" --no-build >"$d/fit2.out" 2>&1
grep -q 'short of one round of the plan' "$d/fit1.out" && grep -q '01-stress-signal-forge 42s' "$d/fit1.out" &&
  grep -q '01-stress-signal-forge 75s' "$d/fit2.out"
ok $? "a campaign fitted to 5 minutes, resumed with 10, gets the preset's slots back ($(grep -o '01-stress-signal-forge [0-9]*s' "$d/fit1.out" "$d/fit2.out" | tr '\n' ' '))"
# The start line says when jobs that keep every CPU busy run one at a time on the slots.
n=$(nproc)
write_preset "$d/wide.preset" budget=2m job_time=10s <<EOF
[stress wide]
scenario = spin
cores = $n
[stress narrow]
scenario = spin
cores = 1
EOF
ci/campaign --preset "$d/wide.preset" --dry-run --out "$d/wide" --no-build -j 2 >"$d/wide.out" 2>&1
if [ "$n" -ge 2 ]; then
  grep -q "2 plan jobs x [0-9]* rounds on 2 slots (1 of the plan jobs keep all $n CPUs busy: each runs alone)" "$d/wide.out"
else
  grep -q "2 plan jobs x [0-9]* rounds on 1 slots, budget" "$d/wide.out"
fi
ok $? "the start line names the jobs that keep every CPU busy ($(grep -o 'rounds on [^,]*' "$d/wide.out"))"
# Job list: deterministic, and a bigger budget only appends rounds.
py <<'EOF' >"$d/jobs.out" 2>&1; ok $? "job list is stable and grows by appending"
from cilib import preset, plan
s = preset.load('premerge')['specs']
r1 = plan.rounds_for(s, 600, 15, 2)
a = plan.jobs(s, r1, 42)
b = plan.jobs(s, r1, 42)
c = plan.jobs(s, plan.rounds_for(s, 3600, 15, 2), 42)
assert a == b and len(c) > len(a) and c[:len(a)] == a
assert len({j[0] for j in c}) == len(c)                       # ids unique
assert len({j[3] for j in c}) == len(c)                       # seeds differ
assert plan.jobs(s, 1, 43)[0][3] != a[0][3]                   # campaign seed matters
print('ok')
EOF

# Preset errors name the section and key, exit 2.
write_preset "$d/bad.preset" budget=1x <<'EOF'
[stress]
scenario = spin
mode = signal sideways
colour = blue
[libfuzzer]
instances = two
EOF
err=$(ci/campaign --preset "$d/bad.preset" --out "$d/bad" 2>&1); rc=$?
ok $(( rc != 2 )) "a bad preset exits 2 (got $rc)"
for want in "budget" "mode: bad value 'sideways' (expected one of signal, thread, queue)" "unknown key 'colour'" "instances: 'two'"; do
  printf '%s\n' "$err" | grep -qF "$want"; ok $? "bad preset error names: $want"
done
ci/campaign --preset nosuch --out "$d/x" >/dev/null 2>&1; ok $(( $? != 2 )) "unknown preset name exits 2"
# Preset syntax errors name the line; a bad agent option is counted in the user's own list.
printf 'budget = 1m\n[stress]\n' >"$d/nohead.preset"
printf '[stress]\nscenario\n' >"$d/badline.preset"
printf '[stress]\nscenario = spin\nagent = stats=0,bogus=1\n' >"$d/badagent.preset"
for c in "nohead:line 1: 'budget = 1m' comes before any [section]" \
         "badline:line 2: 'scenario' is neither 'key = value' nor a [section]" \
         "badagent:[stress] agent: bad agent options: option 2 of agent \"bogus=1\""; do
  err=$(ci/campaign --preset "$d/${c%%:*}.preset" --dry-run --out "$d/${c%%:*}" 2>&1); rc=$?
  [ $rc = 2 ] && printf '%s\n' "$err" | grep -qF -- "${c#*:}"
  ok $? "preset ${c%%:*}: exit 2, '${c#*:}' ($rc: $(printf '%s' "$err" | tail -1 | cut -c1-120))"
done
# A scenario the workload lacks is refused before any job starts (each job would exit at
# once); a fuzzer section may name the harness's own loop or mixed, but only alone.
write_preset "$d/scen.preset" jobs=abc <<'EOF'
[stress]
scenario = spin,nosuch
[libfuzzer]
scenario = mixed
[afl]
scenario = mixed,spin
EOF
err=$(ci/campaign --preset "$d/scen.preset" --dry-run --out "$d/scen" 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$err" | grep -qF "[campaign] jobs: expected N, N%, +N or -N"
ok $? "a preset's jobs = abc is an error naming the key (exit $rc)"
sed -i '/^jobs = /d' "$d/scen.preset"
err=$(ci/campaign --preset "$d/scen.preset" --dry-run --out "$d/scen" 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$err" | grep -qF "[stress] scenario: unknown scenario 'nosuch' (known: blocking," &&
  printf '%s\n' "$err" | grep -qF "[afl] scenario: unknown scenario 'mixed'" && ! printf '%s\n' "$err" | grep -qF "[libfuzzer]" &&
  [ ! -e "$d/scen" ]
ok $? "unknown scenarios are refused by section and name before OUT is made (exit $rc)"
for tool in campaign premerge; do
  err=$(ci/$tool -j abc --out "$d/j-$tool" 2>&1); rc=$?
  [ $rc = 2 ] && printf '%s\n' "$err" | grep -qF "argument -j/--jobs: expected N, N%, +N or -N" && [ ! -e "$d/j-$tool" ]
  ok $? "ci/$tool -j abc: exit 2 naming -j, before anything is built or written (exit $rc)"
done
# -j -N beyond the cores: the plan counts one slot, and GNU Parallel must be given that one,
# not '-j -N' (which it refuses: "Cannot run any jobs", and no job ran).
many=$(( $(nproc) + 3 ))
ci/campaign -j "-$many" --dry-run --no-build --out "$d/jneg" >"$d/jneg.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "on 1 slots" "$d/jneg.out" && grep -q "^parallel .* -j 1 " "$d/jneg.out" &&
  grep -q "warning: -j -$many leaves no job slot on [0-9]* cores: the campaign runs 1" "$d/jneg.out"
ok $? "ci/campaign -j -$many: one slot, said as a warning, and parallel is told -j 1 (exit $rc: $(grep -o -- ' -j [^ ]*' "$d/jneg.out" | head -1))"
# argparse takes '-5m' for an option; the error says how to give such a value.
for tool in campaign premerge census; do
  err=$(ci/$tool --budget -5m --out "$d/neg-$tool" 2>&1); rc=$?
  [ $rc = 2 ] && printf '%s\n' "$err" | grep -q "^$tool: error: argument --budget: expected one argument (a value" &&
    printf '%s\n' "$err" | grep -qF "(a value that starts with '-' is read as an option: write --budget=VALUE)" && [ ! -e "$d/neg-$tool" ]
  ok $? "ci/$tool --budget -5m: exit 2, saying to write --budget=VALUE (exit $rc)"
done
err=$(ci/campaign --out "$d/neg-last" --budget 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$err" | grep -q "^campaign: error: argument --budget: expected one argument$"
ok $? "ci/campaign --budget with no value: exit 2, and no hint about '-' values (exit $rc)"
err=$(ci/premerge --budget=-5m --out "$d/neg-eq" 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$err" | grep -qF "'-5m' is not a duration"
ok $? "ci/premerge --budget=-5m: exit 2, not a duration (exit $rc)"

# triage_every = off leaves only the final triage; it cannot be 0, nor off
# beside adapt = 1 (adapt weighs the groups at each triage while jobs run).
write_preset "$d/tri0.preset" triage_every=0 <<'EOF'
[stress]
EOF
write_preset "$d/trioff.preset" triage_every=off adapt=1 <<'EOF'
[stress]
EOF
err=$(ci/campaign --preset "$d/tri0.preset" --out "$d/t0" 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$err" | grep -qF "triage_every: 0 would triage without pause"
ok $? "triage_every = 0 is an error naming the key (exit $rc)"
err=$(ci/campaign --preset "$d/trioff.preset" --out "$d/t1" 2>&1); rc=$?
[ $rc = 2 ] && printf '%s\n' "$err" | grep -qF "adapt = 1 weighs the groups at each triage"
ok $? "triage_every = off with adapt = 1 is an error naming both (exit $rc)"

# A triage started while jobs run takes only the CPU the jobs leave
# (SCHED_IDLE); with triage_every = off none starts before the final one.
py "$d/tick" <<'EOF' >"$d/tick.out" 2>&1; ok $? "a triage while jobs run starts at SCHED_IDLE; off starts none ($(tail -1 "$d/tick.out"))"
import os, subprocess, sys
from cilib import runner
child = subprocess.run([sys.executable, '-c', 'import os; print(os.sched_getscheduler(0))'],
                       preexec_fn=runner._idle_priority, capture_output=True, text=True)
assert child.stdout.strip() == str(os.SCHED_IDLE), (child.stdout, child.stderr)
started = []
class FakeProc:
    def poll(self): return None
def fake_popen(argv, **kw):
    started.append(kw.get('preexec_fn'))
    return FakeProc()
runner.subprocess.Popen = fake_popen
for every, want in ((5.0, [runner._idle_priority]), (None, [])):
    started.clear()
    c = runner.Campaign(sys.argv[1])
    c.cfg = {'triage_every': every, 'known': None}
    os.makedirs(c.out, exist_ok=True)
    c.next_triage = c._after(100.0)
    for now in (101.0, 106.0, 200.0):
        c._triage_tick(now, final=False)
    assert started == want, (every, started)
print('interim triage policy', os.SCHED_IDLE, '(SCHED_IDLE); off: none started')
EOF
ci/campaign --resume >/dev/null 2>&1; ok $(( $? != 2 )) "--resume without --out exits 2"

# --dry-run writes the plan and shows the GNU Parallel command.
write_preset "$d/tiny.preset" budget=30s job_time=10s <<'EOF'
[stress]
scenario = spin recursion
mode = signal thread
EOF
out=$(ci/campaign --preset "$d/tiny.preset" --out "$d/dry" --dry-run --no-build --seed 7 -j 2 2>&1); rc=$?
ok $rc "--dry-run exits 0"
n=$(wc -l <"$d/dry/jobs.txt")
ok $(( n < 4 )) "dry run wrote jobs.txt (4 plan jobs x rounds: $n lines)"
for w in --joblog --halt --timeout "-j 2"; do
  printf '%s\n' "$out" | grep -q -- "$w"; ok $? "parallel command has $w"
done
ci/campaign --preset "$d/tiny.preset" --out "$d/dry" --no-build >/dev/null 2>&1
ok $(( $? != 2 )) "a second campaign in the same --out is refused (use --resume)"

# make: only variables the user gave reach the runner; default goal kept.
mk=(make -s -f Makefile)
grep -q 'ci/ci.mk' Makefile || mk+=(-f ci/ci.mk)
[ -f fuzz/fuzz.mk ] && ! grep -q 'fuzz/fuzz.mk' Makefile && mk+=(-f fuzz/fuzz.mk)
cmd=$("${mk[@]}" -n campaign 2>&1)
printf '%s\n' "$cmd" | grep -q 'ci/campaign --preset smoke' && ! printf '%s\n' "$cmd" | grep -q -- '--budget\|--out'
ok $? "make campaign passes no budget or out unless given (fuzz.mk defaults ignored)"
cmd=$("${mk[@]}" -n campaign PRESET=overnight DURATION=8h OUT=o JOBS=4 2>&1)
printf '%s\n' "$cmd" | grep -q -- '--preset overnight .*--budget 8h --out "o" -j 4'
ok $? "make campaign DURATION/OUT/JOBS reach the runner"
cmd=$("${mk[@]}" -n premerge JAVA_HOME=/vm BUDGET=10m KNOWN=k.txt 2>&1)
printf '%s\n' "$cmd" | tr -s ' \\\n' ' ' | grep -q -- 'ci/premerge --java-home "/vm" --budget 10m --known "k.txt"'
ok $? "make premerge JAVA_HOME/BUDGET/KNOWN reach ci/premerge"
cmd=$("${mk[@]}" -n premerge JAVA_HOME=/vm PRESET=mine SEED=7 2>&1 | tr -s ' \\\n' ' ')
printf '%s\n' "$cmd" | grep -q -- '--preset "mine" --seed 7' && ! "${mk[@]}" -n premerge JAVA_HOME=/vm 2>&1 | grep -q -- '--preset'
ok $? "make premerge passes PRESET and SEED when given, and no --preset otherwise (premerge's own default)"
goal=$(make -s -f ci/ci.mk -f Makefile -n 2>&1 | head -1)
printf '%s\n' "$goal" | grep -q 'ci/campaign'; ok $(( $? == 0 )) "including ci/ci.mk first keeps the default goal"

# JUnit writer: well-formed, counts match, control characters dropped.
py <<'EOF' >"$d/junit.out" 2>&1; ok $? "JUnit XML parses with the expected counts"
import xml.etree.ElementTree as ET
from cilib import junit
s = junit.Suite('t.plan', properties={'k': 'v'})
s.add(junit.Case('t.plan', 'passes', 1.5))
s.add(junit.Case('t.plan', 'fails\x01')).fail('new bucket: a < b', 'new-bucket', 'text\x07')
s.add(junit.Case('t.plan', 'errs')).error('not run', 'not-run')
s.add(junit.Case('t.plan', 'skips')).skip('budget')
root = ET.fromstring(junit.to_xml([s, junit.Suite('empty')]))
assert root.tag == 'testsuites' and root.get('tests') == '4' and root.get('failures') == '1'
suite = root.find('testsuite')
assert (suite.get('errors'), suite.get('skipped')) == ('1', '1')
cases = suite.findall('testcase')
assert [c.get('name') for c in cases] == ['passes', 'fails', 'errs', 'skips']
assert cases[1].find('failure').get('type') == 'new-bucket'
assert cases[2].find('error') is not None and cases[3].find('skipped') is not None
assert root.findall('testsuite')[1].get('tests') == '0'
print('ok')
EOF

# A job directory returned from another host is unpacked and merged with
# what this host had for the same job (an interrupted local attempt).
mkdir -p "$d/u/results/jobs/r001-x/g0a1" "$d/pack/r001-x/g1a1"
printf 'gen\tattempt\tseed\tverdict\trc\tstart\tsecs\texecs\tdir\n0\t1\t5\tinterrupted\t143\t1\t2\t3\tg0a1\n' >"$d/u/results/jobs/r001-x/attempts.tsv"
echo local >"$d/u/results/jobs/r001-x/job.log"
printf 'gen\tattempt\tseed\tverdict\trc\tstart\tsecs\texecs\tdir\n1\t1\t6\tcrashed\t2\t9\t2\t0\tg1a1\n' >"$d/pack/r001-x/attempts.tsv"
echo remote >"$d/pack/r001-x/job.log"; echo x >"$d/pack/r001-x/g1a1/hs_err_pid1.log"
tar czf "$d/u/results/jobs/r001-x.tgz" -C "$d/pack" r001-x
py "$d/u" <<'EOF' >"$d/unpack.out" 2>&1; ok $? "returned job packs are unpacked and merged"
import os, sys
from cilib import scan
out = sys.argv[1]
assert scan.unpack_returned(out) == 1
jd = os.path.join(out, 'results', 'jobs', 'r001-x')
rows = scan.read_attempts(os.path.join(jd, 'attempts.tsv'))
assert [(r['gen'], r['verdict']) for r in rows] == [('0', 'interrupted'), ('1', 'crashed')], rows
assert open(os.path.join(jd, 'job.log')).read() == 'local\nremote\n'
assert os.path.isfile(os.path.join(jd, 'g1a1', 'hs_err_pid1.log'))
assert not os.path.exists(jd + '.tgz')
print('ok')
EOF

# corpus-merge never writes into the hand-written seeds.
ci/corpus-merge --out corpus/seeds "$d" >/dev/null 2>&1; ok $(( $? != 2 )) "corpus-merge refuses corpus/seeds"
# corpus-merge takes text seeds (encoded) and names every file it leaves out.
mkdir -p "$d/cm-in"; cp corpus/seeds/00-signal-plain.txt "$d/cm-in/"; printf 'ASGF\002' >"$d/cm-in/cut.case"
ci/corpus-merge --out "$d/cm" --no-libfuzzer --no-afl --no-reproducers "$d/cm-in" >"$d/cm.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'Inputs: 1 valid cases (2 corpus files' "$d/cm/MERGE.md" &&
  grep -q "^  $d/cm-in/cut.case: offset 5: truncated header" "$d/cm.out" && grep -q 'cut.case: offset 5' "$d/cm/MERGE.md"
ok $? "corpus-merge encodes a text seed and names the file it leaves out ($rc: $(grep -m1 'left out' "$d/cm.out"))"

# known-list: a --from with no triage report, or an -o that cannot be written, is exit 2; a
# triage --out directory is read as well as a campaign's.
mkdir -p "$d/kl-empty"
ci/known-list --java-home "$JAVA_HOME" --from "$d/kl-empty" >"$d/kl1.out" 2>&1; rc1=$?
ci/known-list --java-home "$JAVA_HOME" --from "$d/kl-empty" -o "$d/no-dir/k.known" >"$d/kl2.out" 2>&1; rc2=$?
mkdir -p "$d/kl-triage"
printf '{"buckets": [{"signature": "0123456789ab", "title": "SIGSEGV in f", "module": "libjvm.so"}]}\n' >"$d/kl-triage/report.json"
ci/known-list --java-home "$JAVA_HOME" --from "$d/kl-triage" >"$d/kl3.out" 2>&1; rc3=$?
[ $rc1 = 2 ] && grep -q "holds no triage report" "$d/kl1.out" && [ $rc2 = 2 ] && grep -q "no-dir is not a writable" "$d/kl2.out" &&
  [ $rc3 = 0 ] && grep -q '^0123456789ab  # SIGSEGV in f$' "$d/kl3.out"
ok $? "known-list: no report under --from and a bad -o are exit 2; a triage --out is read ($rc1 $rc2 $rc3)"
# ... a report.json that is not a triage report (cut, a list, a bucket without a title) is
# exit 2 naming the file, never a traceback; the shallower unwinds folded into a bucket
# are listed with it, and the header says whether libjvm's debug info was there.
bad=""
for body in '{"buckets": [' '[1, 2]' '{"buckets": [{"signature": "0123456789ab"}]}'; do
  mkdir -p "$d/kl-bad"; printf '%s\n' "$body" >"$d/kl-bad/report.json"
  ci/known-list --java-home "$JAVA_HOME" --from "$d/kl-bad" >"$d/kl4.out" 2>&1; rc=$?
  { [ $rc = 2 ] && grep -q "^known-list: $d/kl-bad/report.json: " "$d/kl4.out" && ! grep -q Traceback "$d/kl4.out"; } || bad="$bad [$body: $rc]"
done
printf '{"buckets": [{"signature": "0123456789ab", "title": "SIGSEGV in f < g", "module": "libjvm.so", "folded": [{"signature": "ba9876543210", "title": "SIGSEGV in f"}]}]}\n' >"$d/kl-triage/report.json"
ci/known-list --java-home "$JAVA_HOME" --from "$d/kl-triage" >"$d/kl5.out" 2>&1
[ -z "$bad" ] && grep -q '^ba9876543210  # SIGSEGV in f$' "$d/kl5.out" && grep -q '^# debug-info: \(yes\|no\)$' "$d/kl5.out"
ok $? "known-list: a bad report.json is exit 2 naming it${bad:+ (not:$bad)}; folded signatures and the debug-info header are written"
# --reproducers: every checked-in reproducer of this major version, by its verify: line.
major=$("$JAVA_HOME/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
want=$(sed -n "s/^verify: .* jdk=$major .*expect=\([0-9a-f]\{12\}\)\$/\1/p" corpus/reproducers/*.md | sort -u)
ci/known-list --java-home "$JAVA_HOME" --reproducers >"$d/kl6.out" 2>&1; rc=$?
got=$(grep -o '^[0-9a-f]\{12\}' "$d/kl6.out" | sort -u)
[ $rc = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]
ok $? "known-list --reproducers lists the $(echo "$want" | wc -w) reproducers of JDK $major (rc $rc, $(echo "$got" | wc -w) listed)"
mkdir -p "$d/kl-repro"; : >"$d/kl-repro/x.case"
printf 'verify: case=x.case jdk=17 colour=blue expect=0123456789ab\n\n# SIGSEGV in x\n' >"$d/kl-repro/x.md"
python3 - "$PWD" "$d/kl-repro" >"$d/kl7.out" 2>&1 <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader('known_list', sys.argv[1] + '/ci/known-list')
spec = importlib.util.spec_from_loader('known_list', loader)
m = importlib.util.module_from_spec(spec); loader.exec_module(m)
try:
    m.reproducers('17', sys.argv[2])
except m.BadLine as e:
    print('BadLine: %s' % e)
PY
grep -q "^BadLine: $d/kl-repro/x.md:1: unknown word 'colour=blue'" "$d/kl7.out"
ok $? "known-list --reproducers: a malformed verify: line is named with its file and line ($(head -c 150 "$d/kl7.out"))"

# premerge: an unusable JAVA_HOME is exit 3 (nothing tested), with JUnit saying why.
ci/premerge --java-home "$d/no-such-vm" --out "$d/pm" -q >"$d/pm.out" 2>&1; rc=$?
ok $(( rc != 3 )) "premerge with a missing JAVA_HOME exits 3 (got $rc)"
mkdir -p "$d/broken/bin"; printf '#!/bin/sh\necho "Error: broken VM" >&2\nexit 1\n' >"$d/broken/bin/java"; chmod +x "$d/broken/bin/java"
ci/premerge --java-home "$d/broken" --out "$d/pm2" -q >"$d/pm2.out" 2>&1; rc=$?
ok $(( rc != 3 )) "premerge with a VM whose java fails exits 3 (got $rc)"
python3 - "$d/pm2/junit.xml" <<'EOF'; ok $? "premerge exit-3 JUnit has one errored setup test case"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
cases = r.findall('./testsuite/testcase')
assert len(cases) == 1 and cases[0].find('error') is not None and r.get('errors') == '1'
assert 'broken VM' in cases[0].find('error').get('message')
EOF
# Jobs made only of workloads a VM is too old for leave the plan, said so;
# a job with one runnable scenario stays. On 21 the census keeps its group.
py <<'EOF' >"$d/too-new.out" 2>&1; ok $? "jobs whose every scenario needs a newer JDK are dropped, with a warning; none left is an error"
from cilib import preset
from cilib.preflight import drop_too_new
specs = [{'section': 'a', 'params': {'scenario': 'vthreads'}},
         {'section': 'a', 'params': {'scenario': 'vthreads,spin'}},
         {'section': 'b', 'params': {}}]
kept, w = drop_too_new(specs, 'openjdk version "17.0.21" 2025-10-21')
assert kept == specs[1:] and w == ['[a]: 1 job dropped from the plan: scenario vthreads needs JDK 21+, this is JDK 17'], (kept, w)
assert drop_too_new(specs, 'openjdk version "11.0.24"')[0] == specs[1:]
assert drop_too_new(specs, 'openjdk version "21.0.13"') == (specs, [])
assert drop_too_new(specs, 'no version here') == (specs, [])
from cilib.preflight import NotRunnable
try:
    drop_too_new(specs[:1], 'openjdk version "17.0.21"')
    raise AssertionError('a plan of vthreads only on 17 ran')
except NotRunnable as e:
    assert 'no job of the plan can run' in str(e) and 'needs JDK 21+' in str(e), e
census = preset.load('census-best')['specs']
vt = [x for x in census if x['section'] == 'stress vthreads']
assert {x['params']['mode'] for x in vt} == {'signal', 'queue', 'thread'}, vt
assert len(drop_too_new(census, 'openjdk version "17.0.21"')[0]) == len(census) - len(vt)
assert len(drop_too_new(census, 'openjdk version "21.0.13"')[0]) == len(census)
print('ok')
EOF
grep -v '^ok$' "$d/too-new.out" | sed 's/^/# /'

tap_done
