#!/usr/bin/env bash
# Each checked-in reproducer note shows the case beside it: the
# "Minimized input" block of corpus/reproducers/NAME.md is the text of the
# NAME.case its verify: line runs, with that file's size. (ci/census once
# printed the bucket's smallest case there instead of the one it confirmed.)
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
python3 - <<'EOF' >"$d/notes.out" 2>&1
import os, re, sys
sys.path.insert(0, 'crash-triage')
from ctlib import case
d, checked, bad, prose = 'corpus/reproducers', 0, [], []
for md in sorted(f for f in os.listdir(d) if f.endswith('.md')):
    text = open(os.path.join(d, md)).read()
    m = re.match(r'verify: case=(\S+)', text)
    if not m:
        continue
    if '## Minimized input' not in text:
        # ci/census writes the block into every note it makes; a hand-written note may
        # describe its case in prose instead.
        if 'Confirmed by ci/census' in text:
            bad.append('%s: no Minimized input block' % md)
        else:
            prose.append(md)
        continue
    path = os.path.join(d, m[1])
    block = re.search(r'## Minimized input\n\nCase `[^`]*` \(((\d+) bytes; )?corpus/FORMAT.md\)[^\n]*\n\n```\n(.*?)```',
                      text, re.S)
    if not block:
        bad.append('%s: no Minimized input block' % md)
        continue
    checked += 1
    # Hand-written notes may leave out keys at their defaults: compare programs, not text.
    if case.parse_text(block[3]).text() != case.load(path)[0].text():
        bad.append('%s: the block is not %s' % (md, m[1]))
    if block[2] and int(block[2]) != os.path.getsize(path):
        bad.append('%s: says %s bytes, %s has %d' % (md, block[2], m[1], os.path.getsize(path)))
print('%d notes checked, %d hand-written without the block (%s)' % (checked, len(prose), ', '.join(prose)))
for b in bad:
    print(b)
sys.exit(1 if bad or not checked else 0)
EOF
ok $? "every reproducer note shows its own case ($(head -1 "$d/notes.out"); $(sed -n 2p "$d/notes.out"))"
tap_done
