#!/usr/bin/env bash
# crash-triage: fragments (crash text from bug trackers and mail, JDK 6 to 25, x86_64 and
# aarch64) are reports with the expected titles, flags and faulting module; --signature
# gives a fragment the signature of its full report; --known takes --signature's lines.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import os, re, subprocess, sys
tmp = sys.argv[1]
T = 'crash-triage/triage'
TD = 'crash-triage/testdata'
FR = os.path.join(TD, 'fragments')
HDR = re.compile(r'^(TITLE|FLAGS|MODULE|SAME|REASON|NOTE):\s?(.*)$')
failed = 0


def tap(ok, name):
    global failed
    failed += not ok
    print(('ok - ' if ok else 'not ok - ') + name)


def split(path):
    """(header dict, body) of a fixture: KEY: value lines, a blank line, the text."""
    hdr, lines = {}, open(path, encoding='utf-8').read().split('\n')
    k = 0
    while k < len(lines) and HDR.match(lines[k]):
        m = HDR.match(lines[k])
        hdr[m.group(1)] = m.group(2).strip()
        k += 1
    return hdr, '\n'.join(lines[k + 1:]) if hdr else '\n'.join(lines)


def run(*args, stdin=None):
    p = subprocess.run([T] + list(args), input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def signature_of(body, *opts):
    rc, out, err = run('--signature', '-', *opts, stdin=body)
    lines = out.splitlines()
    return rc, lines, err


names = sorted(os.listdir(FR))
tap(len(names) >= 10, 'fragment fixtures present (%d)' % len(names))
bodies = os.path.join(tmp, 'bodies')
os.makedirs(bodies)
kinds = set()
for name in names:
    hdr, body = split(os.path.join(FR, name))
    # a plain name: nothing but the text says what it is
    path = os.path.join(bodies, name + '.txt')
    with open(path, 'w') as f:
        f.write(body)
    rc, out, err = run('--check', path)
    if 'REASON' in hdr:
        ok = rc == 1 and out.startswith('not a report: ') and hdr['REASON'] in out \
            and len(out.splitlines()) == 1
        tap(ok, '%s: not a report, one line, exit 1 (rc %d: %s)' % (name, rc, out.strip()))
        rc, lines, err = signature_of(body)
        tap(rc == 1 and not lines and 'not a report' in err,
            '%s: --signature exits 1 with the reason (rc %d)' % (name, rc))
        continue
    flags = [f.strip() for f in hdr.get('FLAGS', '').split(',') if f.strip()]
    want = hdr['TITLE'] + ('  [%s]' % ', '.join(flags) if flags else '')
    tap(rc == 0 and out.strip() == want, '%s: --check %r (got %r)' % (name, want, out.strip()))
    kinds.update(flags)
    rc, lines, err = signature_of(body)
    ok = rc == 0 and len(lines) == 2 and lines[0].startswith('# ') \
        and re.match(r'^[0-9a-f]{12}  # ', lines[1]) and lines[1].split('  # ', 1)[1] == hdr['TITLE']
    tap(ok, '%s: --signature prints a comment and SIGNATURE  # TITLE (%r)' % (name, lines))
    got_mod = re.search(r'faulting module (\S+)', lines[0]) if lines else None
    tap(got_mod and got_mod.group(1) == hdr['MODULE'],
        '%s: faulting module %s (got %s)' % (name, hdr['MODULE'], got_mod and got_mod.group(1)))
    if 'SAME' in hdr:
        fhdr, full = split(os.path.join(TD, hdr['SAME']))
        # the real reports of testdata/ name this machine's libjvm: addr2line over its
        # DWARF takes ~10 s, and run-testdata already checks that their symbolized title
        # is their TITLE header; so read them unsymbolized and check that title here
        opts = () if hdr['SAME'].startswith('fragments/') else ('--no-symbolize',)
        rc2, lines2, _ = signature_of(full, *opts)
        tap(rc2 == 0 and len(lines) == 2 and lines2[1:] == lines[1:]
            and lines2[1].split('  # ', 1)[1] == fhdr['TITLE']
            and 'fragment' not in lines2[0] and 'fragment' in lines[0] + ' '.join(flags),
            '%s: the same signature as its full report %s (%s / %s)'
            % (name, hdr['SAME'], lines[1:], lines2[1:]))
for k in ('fragment', 'no-header', 'no-signal-info', 'no-registers', 'problematic-frame-only',
          'java-frames-only'):
    tap(k in kinds, 'some fixture is flagged %s' % k)

# a file argument gives the same line as stdin
rc, out, _ = run('--signature', os.path.join(bodies, 'native-7-methodoop.txt'))
rc2, lines, _ = signature_of(open(os.path.join(bodies, 'native-7-methodoop.txt')).read())
tap(rc == 0 and out.splitlines()[1:] == lines[1:], '--signature FILE and - agree')
rc, out, err = run('--signature', os.path.join(tmp, 'nope'))
tap(rc == 2 and 'nope' in err, '--signature on a missing file: exit 2 naming it (rc %d)' % rc)
rc, out, err = run('--signature', '-', '--out', tmp)
tap(rc == 2, '--signature with --out is a usage error (rc %d)' % rc)

# a tree of fragments: buckets carry the faulting module; the JDK 6 fragment and its full
# report are one bucket; --known built from --signature output marks them known
tree = os.path.join(tmp, 'tree')
os.makedirs(tree)
for name in names:
    hdr, body = split(os.path.join(FR, name))
    with open(os.path.join(tree, name + '.txt'), 'w') as f:
        f.write(body)
out = os.path.join(tmp, 'out')
known = os.path.join(tmp, 'known')
with open(known, 'w') as f:
    for name in ('stack-6-unsymbolized', 'problematic-8-profiler'):
        f.write(run('--signature', os.path.join(tree, name + '.txt'))[1])
rc, o, e = run('--out', out, '--known', known, tree)
tap(rc == 0, 'triage over the fragment tree exits 0 (rc %d, %s)' % (rc, e.strip()[:200]))
import json
rep = json.load(open(os.path.join(out, 'report.json')))
by_title = {b['title']: b for b in rep['buckets']}
b6 = by_title.get('SIGSEGV in libjvm.so+0x5f3c5e < libjvm.so+0x4a2b11 < libjvm.so+0x4a3c07')
tap(b6 is not None and b6['count'] == 2 and b6['status'] == 'known',
    'JDK 6 fragment and full report: one known bucket of 2 (%s)' % ((b6 and (b6['count'], b6['status'])),))
bp = by_title.get('SIGSEGV in StackWalker::walkVM')
tap(bp is not None and bp['status'] == 'known' and bp.get('module') == 'libasyncProfiler.so',
    "profiler bucket: known, module libasyncProfiler.so (%s)" % ((bp and (bp['status'], bp.get('module'))),))
bj = json.load(open(os.path.join(out, 'buckets', bp['signature'], 'bucket.json'))) if bp else {}
tap(bj.get('module') == 'libasyncProfiler.so', 'bucket.json records the faulting module')
tap(rep['totals']['reports'] == len(names) - 1 and rep['totals']['new'] >= 1,
    'every fixture but the prose is a report (%d)' % rep['totals']['reports'])

# --known: a signature of the wrong length is an error naming the line; a signature
# that is not its title's (other rules) is a warning
bad = os.path.join(tmp, 'known-bad')
with open(bad, 'w') as f:
    f.write('# list\n\n8db571dfbae  # eleven digits\n')
rc, o, e = run('--out', out, '--known', bad, tree)
tap(rc == 2 and 'line 3' in e and '11 hex digits' in e, '--known: a short signature is refused by line (%s)' % e.strip())
with open(bad, 'w') as f:
    f.write('8db571dfbae9 SIGSEGV in libjvm.so+0x5f3c5e\n')
rc, o, e = run('--out', out, '--known', bad, tree)
tap(rc == 2 and 'line 1' in e and "'SIGNATURE  # TITLE'" in e, '--known: a signature and title without # is refused (%s)' % e.strip())
with open(bad, 'w') as f:
    f.write('000000000000  # SIGSEGV in libjvm.so+0x5f3c5e\n')
rc, o, e = run('-q', '--out', out, '--known', bad, tree)
tap(rc == 0 and 'line 1' in e and 'not that of its title' in e, '--known: a stale signature is a warning (%s)' % e.strip())
# the campaign (and so ci/premerge) reads the list before it runs anything
with open(bad, 'w') as f:
    f.write('# list\n8db571dfbae  # eleven digits\n')
p = subprocess.run(['ci/campaign', '--known', bad, '--out', os.path.join(tmp, 'camp'), '--budget', '5s'],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
tap(p.returncode == 2 and 'line 2' in p.stderr and not os.path.exists(os.path.join(tmp, 'camp')),
    'ci/campaign refuses a bad --known list before running (rc %d, %s)' % (p.returncode, p.stderr.strip()))
print('# %d failed' % failed)
sys.exit(1 if failed else 0)
PY
