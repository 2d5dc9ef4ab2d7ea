#!/usr/bin/env bash
# crash-triage: incremental == fresh. A fixture tree grows in random splits and
# orders, with some reports first seen half written (as a JVM writes its hs_err
# while a campaign's periodic triage reads it); after each split, and at the end,
# the incremental --out must hold the same buckets, members, counts and
# representatives as a fresh triage of the same tree.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
export TRIAGE_REPLAY=/nonexistent/replay
crash-triage/testdata-gen/mktree "$d/all" >/dev/null
python3 - "$d" <<'EOF'
import importlib.machinery, importlib.util, io, json, os, random, shutil, sys, contextlib
d = sys.argv[1]
loader = importlib.machinery.SourceFileLoader('triage_cli', 'crash-triage/triage')
spec = importlib.util.spec_from_loader('triage_cli', loader)
triage = importlib.util.module_from_spec(spec)
loader.exec_module(triage)
from ctlib import collect

n = 0
def ok(cond, what):
    global n
    n += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', n, what))

def run(out, tree):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        rc = triage.main(['-q', '--no-symbolize', '-j', '1', '--out', out, tree])
    assert rc == 0, rc
    r = json.load(open(os.path.join(out, 'report.json')))
    view = {}
    for b in r['buckets']:
        bj = json.load(open(os.path.join(out, 'buckets', b['signature'], 'bucket.json')))
        view[b['signature']] = (b['count'], b.get('via'),
                                sorted(os.path.relpath(m['path'], tree) + '#' + m['id'][:0] for m in bj['members']),
                                os.path.relpath(bj['representative']['path'], tree))
    return view

files = []
for root, _, names in os.walk(os.path.join(d, 'all')):
    for name in names:
        files.append(os.path.relpath(os.path.join(root, name), os.path.join(d, 'all')))
files.sort()

def place(tree, rel, cut=False):
    src, dst = os.path.join(d, 'all', rel), os.path.join(tree, rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    data = open(src, 'rb').read()
    with open(dst, 'wb') as f:
        f.write(data[:len(data) // 2] if cut else data)
    if not cut:     # the same times as the whole tree: representatives go by time (timestamps aside)
        st = os.stat(src)
        os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))

fresh_all = run(os.path.join(d, 'fresh-all'), os.path.join(d, 'all'))
ok(len(fresh_all) >= 8, 'the fixture tree has %d buckets' % len(fresh_all))
for seed in (1, 2, 3):
    rnd = random.Random(seed)
    order = files[:]
    rnd.shuffle(order)
    tree, out = os.path.join(d, 'tree%d' % seed), os.path.join(d, 'inc%d' % seed)
    cuts = [1, rnd.randint(2, 4)] + sorted(rnd.sample(range(5, len(order)), 3)) + [len(order)]
    half = set()
    good = True
    for a, b in zip([0] + cuts[:-1], cuts):
        for rel in sorted(half):             # the half-written ones are complete now
            place(tree, rel)
        half = set()
        for rel in order[a:b]:
            cut = rel.rsplit('/', 1)[-1].startswith(('hs_err', 'record')) and rnd.random() < 0.3
            place(tree, rel, cut)
            if cut:
                half.add(rel)
        if not half and a:
            inc = run(out, tree)
            fresh = run(os.path.join(d, 'fresh%d-%d' % (seed, b)), tree)
            if inc != fresh:
                good = False
                print('# seed %d after %d files: incremental %r\n#   fresh %r' % (seed, b, inc, fresh))
        else:
            run(out, tree)
    for rel in half:
        place(tree, rel)
    inc = run(out, tree)
    for k in sorted(set(inc) | set(fresh_all)):
        if inc.get(k) != fresh_all.get(k):
            print('# seed %d end: %s incremental %r fresh %r' % (seed, k, inc.get(k), fresh_all.get(k)))
    ok(good and inc == fresh_all, 'seed %d: %d files in %d splits, each split incremental == fresh, '
       'and the end == a fresh run of the whole tree' % (seed, len(order), len(cuts)))

# The race behind an incremental != fresh: a file that grows WHILE triage reads it.
# parse_path is wrapped to append the rest of the file right after the read; the next
# run must read it again (the index keeps the size seen before the read).
tree, out = os.path.join(d, 'race'), os.path.join(d, 'race-out')
rel = next(f for f in files if f.rsplit('/', 1)[-1].startswith('hs_err') and 'plant-jni' in f)
place(tree, rel, cut=True)
real = collect.parse_path
def racing(path, replay_argv=None):
    res = real(path, replay_argv)
    place(tree, rel)
    return res
collect.parse_path = racing
def flags(out):
    r = json.load(open(os.path.join(out, 'report.json')))
    return sorted(f for b in r['buckets'] for m in json.load(open(os.path.join(
        out, 'buckets', b['signature'], 'bucket.json')))['members'] for f in m['flags'])
run(out, tree)
first = flags(out)
collect.parse_path = real
run(out, tree)
second = flags(out)
fresh = run(os.path.join(d, 'race-fresh'), tree)
ok('truncated' in first and second == flags(os.path.join(d, 'race-fresh')) and 'truncated' not in second,
   'a report completed during the read is read again on the next run (flags %s, then %s)' % (first, second))
print('1..%d' % n)
EOF
