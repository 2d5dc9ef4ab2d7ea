#!/usr/bin/env bash
# The README's main job: `make campaign PRESET=smoke`. It builds what it
# needs through make, runs, prints the path of its report, and the report
# (Markdown, JSON, HTML with the bucket table and plots) is complete. The
# budget is cut to 40 s here to keep `make test` short (the preset's own is
# 60 s); ASGF_SMOKE_BUDGET=60s runs it as shipped.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

mk=(make --no-print-directory -f Makefile)
grep -q 'ci/ci.mk' Makefile || mk+=(-f ci/ci.mk)
budget=${ASGF_SMOKE_BUDGET:-40s}
"${mk[@]}" campaign PRESET=smoke BUDGET="$budget" OUT="$d/smoke" >"$d/stdout" 2>"$d/stderr"; rc=$?
ok $rc "make campaign PRESET=smoke exits 0 (got $rc; $(grep 'campaign: done\|not run' "$d/stderr" | tail -1))"
html=$(sed -n 's/^report: \(.*\.html\)$/\1/p' "$d/stdout")
ok "$([ "$html" = "$d/smoke/report.html" ] && [ -s "$html" ]; echo $?)" "it prints the path of its HTML report ($html)"
for f in report.md report.json; do
  grep -q "^report: $d/smoke/$f\$" "$d/stdout" && [ -s "$d/smoke/$f" ]; ok $? "and of $f"
done

python3 - "$d/smoke" <<'EOF' >"$d/json.out" 2>&1
import json, sys
r = json.load(open(sys.argv[1] + '/report.json'))
assert r['campaign']['preset'] == 'smoke'
ran = [j for j in r['jobs'] if j['outcome'] != 'not started']
assert len(ran) >= 3, len(ran)
bad = [j['id'] for j in ran if j['outcome'] in ('not run', 'interrupted') or j['outcome'].startswith(('failed', 'killed'))]
assert not bad, bad
kinds = {j['kind'] for j in ran}
assert 'stress' in kinds, kinds
assert r['totals']['execs'] > 0
assert r['triage'] is not None and 'buckets' in r['triage']
print('jobs', len(ran), 'kinds', sorted(kinds), 'execs', r['totals']['execs'],
      'buckets', r['triage']['totals']['buckets'], 'warnings', r['warnings'])
EOF
ok $? "report.json: every started job ran ($(tail -1 "$d/json.out"))"

# The HTML, checked for structure (ci/check-report-screenshot renders it in Chromium).
python3 - "$html" <<'EOF' >"$d/html.out" 2>&1
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.ids = set(); self.svg = 0; self.shapes = 0; self.open = []; self.ths = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'table': self.open.append(a.get('id'))
        if tag == 'svg': self.svg += 1
        if tag in ('rect', 'polyline'): self.shapes += 1
        if tag == 'th' and self.open: self.ths.setdefault(self.open[-1], 0); self.ths[self.open[-1]] += 1
    def handle_endtag(self, tag):
        if tag == 'table' and self.open: self.open.pop()
text = open(sys.argv[1], encoding='utf-8').read()
assert text.startswith('<!DOCTYPE html>') and text.rstrip().endswith('</html>')
p = P(); p.feed(text)
need = {'summary', 'campaign', 'plan', 'jobs', 'triage', 'buckets'}
assert need <= p.ids, need - p.ids
assert p.ths.get('buckets', 0) >= 5 and p.ths.get('plan', 0) >= 5, p.ths
assert p.svg >= 5 and p.shapes >= 10, (p.svg, p.shapes)
assert '<script' not in text and 'http://' not in text.replace('http://www.w3.org/2000/svg', '')
print('ids', sorted(p.ids), 'plots', p.svg)
EOF
ok $? "report.html has the bucket table, plan, job outcomes and plots, self-contained ($(tail -1 "$d/html.out"))"
grep -q '^## Plan' "$d/smoke/report.md" && grep -q '^## Job outcomes' "$d/smoke/report.md" && grep -q '^## Crash triage report' "$d/smoke/report.md"
ok $? "report.md has the campaign sections and triage's report"
# The preset triages once, at the end: a triage while its libFuzzer job ran
# took a fifth of that job's rate.
n=$(grep -c '^triage: .*files looked at' "$d/smoke/triage.log" 2>/dev/null)
[ "$n" = 1 ]; ok $? "the smoke preset runs one triage, the final one (ran $n)"
# Walker coverage: the first job to end wrote the list of armed blocks, so
# the HTML names forte.cpp's lines reached and those no job reached.
if [ ! -f /usr/include/capstone/capstone.h ]; then
  skip "report.html lists walker lines reached and not" "built without capstone"
else
  python3 - "$d/smoke" <<'EOF' > "$d/wl.out" 2>&1
import re, sys
d = sys.argv[1]
armed = open(d + '/results/walker-blocks.txt').readline()
assert armed.startswith('# walker blocks armed in '), armed
html = open(d + '/report.html', encoding='utf-8').read()
row = re.search(r'<tr><td><code>forte\.cpp</code></td><td class="num">(\d+)</td><td>[^<]*</td>'
                r'<td class="num">(\d+)</td>', html)
assert row and int(row.group(2)) > 0, row and row.groups()
print('forte.cpp: %s lines reached, %s not' % row.groups())
EOF
  ok $? "report.html lists walker lines reached and not ($(tail -1 "$d/wl.out"))"
fi
tap_done
