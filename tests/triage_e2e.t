#!/usr/bin/env bash
# crash-triage end to end (about a minute): crash-triage/e2e-long --quick runs a stress
# batch of short JVMs with mutate=random,protect=0 plus a libFuzzer run, triages what they
# left into buckets, runs repro on every bucket and minimize on a case.
#
# Random mutation rarely faults in runs this short, so the batch includes test-hook runs
# (agent test_plant=0x10, protect=0 and protect=1; the fuzzer run uses ASGF_TEST_PLANT):
# every AGCT walk then faults in libjvm's forte_fill_call_trace_given_top, and the buckets,
# reproduction and minimization are deterministic. The full-size version (10 JVM runs,
# a 60 s real fuzzing run) is `crash-triage/e2e-long` without --quick.
cd "$(dirname "$0")/.." || exit 1
unset TRIAGE_REPLAY     # fuzzer artifacts are replayed by fuzz/replay when it is built
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in build/lib/libasgfagent.so build/stress/classes.stamp; do
    [ -e "$f" ] || { echo "ok - e2e # SKIP $f missing (make)"; exit 0; }
done
t0=$(date +%s)
crash-triage/e2e-long --quick --out "$tmp/e2e" >"$tmp/log" 2>&1; rc=$?
sed 's/^/# /' "$tmp/log"
secs=$(( $(date +%s) - t0 ))
python3 - "$tmp/e2e/e2e.json" "$rc" "$secs" <<'PY'
import json, sys
def tap(ok, name):
    print(('ok - ' if ok else 'not ok - ') + name)
try:
    S = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    tap(False, 'e2e-long wrote e2e.json (%s)' % e)
    sys.exit(0)
tap(sys.argv[2] == '0' and S['ok'], 'e2e-long --quick exits 0 (rc %s, %ss; problems: %s)' % (sys.argv[2], sys.argv[3], S['problems']))
st = S['stress']
tap(len(st) == 4 and all(r['verdict'] != 'not run' for r in st),
    'stress batch: %d JVM runs: %s' % (len(st), ', '.join('%s %s' % (r['name'], r['verdict']) for r in st)))
rnd = [r for r in st if 'test_plant' not in r['agent']]
tap(len(rnd) >= 2 and all('mutate=random,protect=0' in r['agent'] for r in rnd),
    'the batch has mutate=random,protect=0 runs (%d; report files from them: %d)' % (len(rnd), sum(len(r['reports']) for r in rnd)))
if S.get('fuzz_skipped'):
    print('ok - fuzzer run # SKIP ' + S['fuzz_skipped'])
else:
    fz = S['fuzz']
    tap(fz and all(f['crashes'] for f in fz if f['name'] == 'fuzz-plant'),
        'libFuzzer run (fuzz/run-libfuzzer) left a crash artifact: %s' % [(f['name'], len(f['crashes'])) for f in fz])
b = S['buckets']
plant = [x for x in b if x['title'] == 'SIGSEGV in forte_fill_call_trace_given_top']
tap(len(plant) == 1, 'triage made the test-hook bucket (%d buckets)' % len(b))
if plant:
    src = plant[0]['sources']
    want = src.get('hs_err', 0) >= 1 and src.get('record', 0) >= 1 and (S.get('fuzz_skipped') or src.get('fuzzer', 0) >= 1)
    tap(bool(want), 'its members come from hs_err, records%s: %s' % ('' if S.get('fuzz_skipped') else ' and the fuzzer', src))
rp = S['repro']
tap(len(rp) == len(b) and all('rate' in r or r.get('result', '').startswith('no case') for r in rp),
    'repro gave every bucket a rate: %s' % ['%s %s/%s' % (r['signature'], r.get('same_signature'), r.get('attempts')) for r in rp])
tap(all(r.get('same_signature') == r.get('attempts') == 2 for r in rp if r['title'] == plant[0]['title']) if plant else False,
    'the test-hook bucket reproduces in 2/2 fresh JVMs')
m = S['minimize']
tap(bool(m) and m['bytes_after'] < m['bytes_before'] and m['records_after'] == 0,
    'minimize shrank a case: %s' % ('%d -> %d bytes, %d -> %d records (%s)' % (
        m['bytes_before'], m['bytes_after'], m['records_before'], m['records_after'], m['input'].rsplit('/', 1)[-1]) if m else None))
tap(int(sys.argv[3]) < 180, 'under 3 minutes (%ss)' % sys.argv[3])
PY
