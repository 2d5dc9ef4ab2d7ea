#!/usr/bin/env bash
# A campaign whose stress jobs crash the VM (test_plant with protect=0) and
# fault under protection: it survives the crashes, restarts the crashed jobs
# with new seeds, records everything, and its buckets are exactly what
# crash-triage/triage gives on the same results tree.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

write_preset "$d/crash.preset" budget=35s job_time=10s min_attempt=3s reserve=5s triage_every=4s progress_every=3s <<'EOF'

[stress planted]
scenario = spin,recursion inline,deopt
agent = test_plant=0x10,protect=0
threads = 1

[stress caught]
scenario = spin
agent = test_plant=0x10
threads = 1
EOF
# One workload thread a job, so two jobs share the two CPUs of a small machine: with the
# default two, each job takes both and the three ran one after another in a budget with no
# room for a slow start or a VM that hangs in its own error reporting (it lost the last job
# to the budget, exit 3, once in a loaded CI run).

out=$d/c
ci/campaign --preset "$d/crash.preset" --out "$out" --no-build -j 2 --seed 11 >"$d/stdout" 2>"$d/stderr"
rc=$?
ok $rc "campaign with crashing jobs exits 0 (got $rc; $(tail -1 "$d/stderr"))"
grep -q "^report: $out/report.html" "$d/stdout"; ok $? "prints the path of its report"
grep -q 'campaign: .*jobs [0-9]* done .*execs/s .*crashes [0-9]* .*buckets [0-9]*' "$d/stderr"
ok $? "progress lines show elapsed, jobs, execs/s, crashes, buckets"

# Crashes are recorded and the job goes on with another seed.
python3 - "$out" <<'EOF' >"$d/restarts.out" 2>&1
import csv, glob, os, sys
out = sys.argv[1]
crashed_jobs = restarted = 0
for tsv in glob.glob(os.path.join(out, 'results/jobs/*/attempts.tsv')):
    rows = list(csv.DictReader(open(tsv), delimiter='\t'))
    verdicts = [r['verdict'] for r in rows]
    if 'crashed' in verdicts:
        crashed_jobs += 1
        # every crashed attempt left its hs_err file
        for r in rows:
            if r['verdict'] == 'crashed':
                d = os.path.join(os.path.dirname(tsv), r['dir'])
                assert glob.glob(os.path.join(d, 'hs_err_pid*.log')), 'no hs_err in ' + d
    if len(rows) >= 2 and verdicts[0] == 'crashed':
        seeds = [r['seed'] for r in rows]
        assert len(set(seeds)) == len(seeds), seeds
        restarted += 1
print('crashed_jobs', crashed_jobs, 'restarted', restarted)
assert crashed_jobs >= 2 and restarted >= 1
EOF
ok $? "crashed jobs were restarted with new seeds, each crash has its hs_err ($(tail -1 "$d/restarts.out"))"

python3 - "$out" <<'EOF' >"$d/report.out" 2>&1
import json, sys
r = json.load(open(sys.argv[1] + '/report.json'))
v = r['totals']['verdicts']
assert v.get('crashed', 0) >= 2 and v.get('faults', 0) >= 1, v
assert r['totals']['restarts'] >= 1
assert r['state']['status'] == 'done'
# A VM that crashes in several threads at once can also hang in its error
# reporting: stress/run then kills it after a thread dump (hung).
assert all(j['outcome'] in ('crashed', 'hung', 'faults', 'clean', 'not started') for j in r['jobs']), \
    [j['outcome'] for j in r['jobs']]
assert r['triage']['totals']['buckets'] >= 1
print(v)
EOF
ok $? "report.json counts crashes, faults and restarts ($(tail -1 "$d/report.out"))"

# Buckets equal a fresh triage of the same tree.
crash-triage/triage --out "$d/fresh" -q "$out/results" >"$d/fresh.out" 2>&1
python3 - "$out/triage/report.json" "$d/fresh/report.json" <<'EOF' >"$d/equal.out" 2>&1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: sorted((x['signature'], x['title'], x['count']) for x in r['buckets'])
print(len(key(a)), 'buckets')
assert key(a) == key(b), (key(a), key(b))
EOF
ok $? "campaign buckets equal crash-triage on the same tree ($(tail -1 "$d/equal.out"))"
grep -q 'forte_fill_call_trace_given_top' "$out/report.md"; ok $? "the planted fault's bucket is in report.md"

# The HTML report: campaign section, plan, job outcomes, bucket table, plots.
python3 - "$out/report.html" <<'EOF' >"$d/html.out" 2>&1
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = set(); self.svg = 0; self.rows = 0; self.stack = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'svg': self.svg += 1
        if tag == 'tr' and 'buckets' in self.stack: self.rows += 1
        if tag == 'table': self.stack.append(a.get('id'))
    def handle_endtag(self, tag):
        if tag == 'table' and self.stack: self.stack.pop()
p = P(); p.feed(open(sys.argv[1]).read())
need = {'campaign', 'plan', 'jobs', 'buckets', 'triage'}
assert need <= p.ids, need - p.ids
assert p.svg >= 5, p.svg          # 3 campaign plots + triage's 2
assert p.rows >= 2, p.rows        # header + at least one bucket
print('ok', sorted(p.ids), p.svg)
EOF
ok $? "report.html has the campaign, plan, job and bucket tables and the plots"
tap_done
