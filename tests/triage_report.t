#!/usr/bin/env bash
# crash-triage: report.md/json/html are written; the HTML is well-formed, self-contained,
# and has the bucket table and two SVG plots.
cd "$(dirname "$0")/.." || exit 1
# hermetic: never pick up a real fuzz/replay unless a test passes --replay-cmd
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
crash-triage/testdata-gen/mktree "$tmp/tree"
crash-triage/triage --out "$tmp/out" "$tmp/tree" >"$tmp/log" 2>&1
for f in report.md report.json report.html; do
    if grep -q "^report: $tmp/out/$f\$" "$tmp/log" && [ -s "$tmp/out/$f" ]; then echo "ok - $f written and announced"; else echo "not ok - $f written and announced"; fi
done
python3 - "$tmp/out" <<'PY'
import json, os, sys
from html.parser import HTMLParser
out = sys.argv[1]
rep = json.load(open(os.path.join(out, 'report.json')))
VOID = {'meta', 'br', 'img', 'input', 'link', 'hr', 'col', 'area', 'base', 'wbr', 'source'}
SVG_LEAF = {'rect', 'line', 'polyline', 'text', 'title', 'path', 'circle'}

class Check(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags, self.ext = [], [], {}, []
        self.rows = 0
        self.in_table = False
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        a = dict(attrs)
        for k in ('src', 'href'):
            if k in a:
                self.ext.append(a[k])
        if tag in ('script', 'link', 'iframe', 'img'):
            self.ext.append(tag)
        if tag == 'table' and a.get('id') == 'buckets':
            self.in_table = True
        if tag == 'tr' and self.in_table:
            self.rows += 1
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append('unexpected </%s> (open: %s)' % (tag, self.stack[-3:]))
            return
        self.stack.pop()
        if tag == 'table':
            self.in_table = False

c = Check()
c.feed(open(os.path.join(out, 'report.html'), encoding='utf-8').read())
c.close()
def tap(ok, name):
    print(('ok - ' if ok else 'not ok - ') + name)
tap(not c.errors and not c.stack, 'report.html is well-formed %s' % (c.errors[:2] or c.stack[:3] or ''))
tap(c.tags.get('svg') == 2, 'report.html has two inline SVG plots (%s)' % c.tags.get('svg'))
tap(c.rows == 1 + len(rep['buckets']), 'bucket table has a header and %d rows (%d)' % (len(rep['buckets']), c.rows - 1))
tap(not c.ext, 'no external resources %s' % c.ext[:3])
tap(c.tags.get('style') == 1, 'CSS is inline')
html = open(os.path.join(out, 'report.html'), encoding='utf-8').read()
with_case = [b for b in rep['buckets'] if b['smallest_case']]
tap(with_case and all(b['title'].replace('<', '&lt;') in html and (
        b['repro'] in html and b['repro'] == 'crash-triage/repro ' + os.path.join(out, 'buckets', b['signature'])
        if b['smallest_case'] else b['repro'] is None) for b in rep['buckets']),
    'every bucket title is in the HTML, with its reproduce command (crash-triage/repro OUT/buckets/SIG) '
    'when it has a case to run (%d of %d), and none when it has not' % (len(with_case), len(rep['buckets'])))
md = open(os.path.join(out, 'report.md')).read()
rows = [l for l in md.splitlines() if l.startswith('| ') and ('`crash-triage/repro' in l or 'no case to run again' in l)]
tap(len(rows) == len(rep['buckets']) and sum('`crash-triage/repro' in l for l in rows) == len(with_case),
    'report.md has one table row per bucket, a reproduce command in those with a case')
t = rep['totals']
tap(t['buckets'] == len(rep['buckets']) and t['reports'] == sum(b['count'] for b in rep['buckets']),
    'report.json totals agree with its buckets')
need = {'title', 'signature', 'count', 'sources', 'first_seen', 'last_seen', 'representative', 'repro'}
tap(all(need <= set(b) for b in rep['buckets']), 'report.json buckets carry title/count/sources/first/last/representative/repro')
PY
