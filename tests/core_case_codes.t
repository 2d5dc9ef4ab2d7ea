#!/usr/bin/env python3
"""The case format's tables exist once (src/case_codes.h); every copy agrees with it.

Checks, TAP: the tables are complete (dense codes, bits 1, 2, 4..., unique names, pc/sp/fp
first on every architecture); the C build's tables (casetool codes) and the Python module
(crash-triage/ctlib/case.py) are the same; corpus/FORMAT.md lists the same codes and a row per
record type; every record type has a Python reader; the dictionary has the current header and
a record prefix per region; C and Python write the same bytes for every seed and agree,
offset and all, on which mutated files are invalid and on what the total decoder makes of them.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
os.chdir(ROOT)
sys.path.insert(0, 'crash-triage')
from ctlib import case  # noqa: E402

TOOL = os.path.join(os.environ.get('BUILD', 'build'), 'bin', 'casetool')
n_tests = failed = 0


def tap(ok, name):
    global n_tests, failed
    n_tests += 1
    failed += not ok
    print('%s %d - %s' % ('ok' if ok else 'not ok', n_tests, name))
    sys.stdout.flush()


def run(*args):
    return subprocess.run([TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


codes = case.read_codes()
problems = []
for macro in ('CASE_ENTRY', 'CASE_MODE', 'CASE_RECORD', 'CASE_KIND', 'CASE_REGION', 'CASE_REG_X86_64',
              'CASE_REG_AARCH64'):
    rows = codes.get(macro, [])
    if [r[0] for r in rows] != list(range(len(rows))) or not rows:
        problems.append('%s codes are not 0..n-1 in order' % macro)
    if len({r[1] for r in rows}) != len(rows):
        problems.append('%s names repeat' % macro)
for macro in ('CASE_OPTION', 'CASE_FLAG'):
    rows = codes.get(macro, [])
    if [r[0] for r in rows] != [1 << i for i in range(len(rows))]:
        problems.append('%s bits are not 1, 2, 4, ... in order' % macro)
for macro in ('CASE_REG_X86_64', 'CASE_REG_AARCH64'):
    if [r[1] for r in codes[macro][:3]] != ['pc', 'sp', 'fp']:
        problems.append('%s does not start with pc, sp, fp' % macro)
for r in codes['CASE_RECORD']:
    if not (r[3] == -1 and r[4] == 0 or 0 <= r[3] < 12 and r[3] != 3 and r[4] > 0):
        problems.append('record %s: count byte %s / max words %s make no sense' % (r[1], r[3], r[4]))
tap(not problems, 'src/case_codes.h: every table complete and well-formed%s' % (': ' + '; '.join(problems) if problems else ''))

# The C build's tables.
out = run('codes')
c_rows = [line.split() for line in out.stdout.splitlines()]
py_rows = [['entry', str(i), n] + (['walks'] if case.ENTRY_WALKS[i] else []) for i, n in enumerate(case.ENTRIES)]
py_rows += [['mode', str(i), n] for i, n in enumerate(case.MODES)]
py_rows += [['option', str(1 << i), n] for i, n in enumerate(case.OPTION_NAMES)]
py_rows += [['flag', str(1 << i), n] for i, n in enumerate(case.FLAG_NAMES)]
py_rows += [['record', str(i), n] for i, n in enumerate(case.RECORD_TYPES)]
py_rows += [['kind', str(i), n] for i, n in enumerate(case.KINDS)]
py_rows += [['region', str(i), n] for i, n in enumerate(case.REGIONS)]
py_rows += [['register', str(r[0]), r[1]] for r in case.REG_TABLES[case.ARCH]]
diff = [' '.join(r) for r in c_rows if r not in py_rows] + [' '.join(r) for r in py_rows if r not in c_rows]
tap(out.returncode == 0 and c_rows == py_rows,
    'casetool codes (the C tables) == ctlib/case.py (%d rows%s)' % (len(c_rows), ', differ: ' + '; '.join(diff[:6]) if diff else ''))


# FORMAT.md's list of codes.
def compress(names):
    """x0, x1, ..., x28 -> x0`..`x28 for runs of 3 or more."""
    out, i = [], 0
    while i < len(names):
        m = re.fullmatch(r'([a-z]+)(\d+)', names[i])
        j = i
        while m and j + 1 < len(names) and names[j + 1] == '%s%d' % (m.group(1), int(m.group(2)) + j + 1 - i):
            j += 1
        out.append('`%s`..`%s`' % (names[i], names[j]) if j - i >= 2 else '`%s`' % names[i])
        i = j + 1 if j - i >= 2 else i + 1
    return out


fmt = open('corpus/FORMAT.md').read()
m = re.search(r'<!-- codes: begin.*?-->\n(.*?)<!-- codes: end -->', fmt, re.S)
doc_rows = [[c.strip() for c in line.strip().strip('|').split('|')] for line in (m.group(1) if m else '').splitlines()
            if line.startswith('|') and not line.startswith('|---') and not line.startswith('| table')]
want = [[t, str(c), '`%s`' % n] for t, rows in (('entry', codes['CASE_ENTRY']), ('mode', codes['CASE_MODE']),
                                                 ('option', codes['CASE_OPTION']), ('flag', codes['CASE_FLAG']),
                                                 ('record', codes['CASE_RECORD']), ('kind', codes['CASE_KIND']),
                                                 ('region', codes['CASE_REGION'])) for c, n, *_ in rows]
for arch, macro in (('x86_64', 'CASE_REG_X86_64'), ('aarch64', 'CASE_REG_AARCH64')):
    regs = codes[macro]
    names = compress([r[1] for r in regs])
    for r in regs:  # aliases after their names
        if r[2] != '-':
            names[names.index('`%s`' % r[1])] += ' (`%s`)' % r[2]
    want.append(['%s register' % arch, '0..%d' % (len(regs) - 1), ', '.join(names)])
diff = ['|'.join(r) for r in doc_rows if r not in want] + ['|'.join(r) for r in want if r not in doc_rows]
tap(m is not None and doc_rows == want,
    'corpus/FORMAT.md lists the same codes (%d rows%s)' % (len(doc_rows), ', differ: ' + '; '.join(diff[:6]) if diff else ''))
records_section = fmt[fmt.find('### Records'):fmt.find('### Record type')]
type_rows = re.findall(r'^\| (\d+) \| `([a-z_]+)` \|', records_section, re.M)
tap([(int(c), n) for c, n in type_rows] == list(enumerate(case.RECORD_TYPES)),
    'corpus/FORMAT.md has a row per record type (%s)' % ', '.join(n for _, n in type_rows))
tap(sorted(case.RECORD_HANDLERS) == sorted(case.RECORD_TYPES),
    'ctlib/case.py reads every record type (%s)' % ', '.join(sorted(case.RECORD_HANDLERS)))

# The dictionary.
dic = open('corpus/dict/asgf.dict').read()
hdr = 'header="%s"' % ''.join('\\x%02x' % b for b in case.MAGIC + bytes([case.VERSION, 0, 0, 0]))
missing = [r for r in case.REGIONS if 'm_pc_%s=' % r not in dic]
tap(hdr in dic and not missing, 'corpus/dict/asgf.dict: version %d header, a record prefix per region%s'
    % (case.VERSION, ' (missing: %s)' % missing if missing else ''))

with tempfile.TemporaryDirectory() as tmp:
    # Seeds: the same bytes from C and from Python.
    seeds = sorted(f for f in os.listdir('corpus/seeds') if f.endswith('.txt'))
    bad = []
    blobs = []
    for s in seeds:
        b = os.path.join(tmp, s + '.bin')
        r = run('encode', os.path.join('corpus/seeds', s), '-o', b)
        data = open(b, 'rb').read() if r.returncode == 0 else b''
        py = case.parse_text(open(os.path.join('corpus/seeds', s)).read()).encode()
        if data != py or case.validate(data) is not None:
            bad.append(s)
        blobs.append(data)
    tap(seeds and not bad, 'C and Python encode all %d seeds to the same valid version 2 bytes%s'
        % (len(seeds), ' (differ: %s)' % bad if bad else ''))

    # Mutated files: the strict readers agree on the verdict and the offset, the total
    # readers on the program.
    rnd = random.Random(5)
    files = []
    for i in range(300):
        data = bytearray(rnd.choice([b for b in blobs if len(b) > 16]))
        for _ in range(rnd.randint(1, 2)):
            data[rnd.randrange(4 if i % 2 else 5, len(data))] = rnd.choice([0, 1, 2, 3, 4, 11, 16, 17, 33, 200, 255])
        if i % 10 == 0:
            data = data[:rnd.randrange(5, len(data))]
        p = os.path.join(tmp, 'm%03d' % i)
        open(p, 'wb').write(bytes(data))
        files.append(p)
    r = run('check', *files)
    c_bad = {line.split(':')[0]: int(re.search(r'offset (\d+)', line).group(1)) for line in r.stderr.splitlines()}
    disagree = []
    for p in files:
        why = case.validate(open(p, 'rb').read())
        py_off = int(re.search(r'offset (\d+)', why).group(1)) if why and 'offset' in why else (0 if why else None)
        if py_off != c_bad.get(p):
            disagree.append('%s: C %s, Python %s' % (os.path.basename(p), c_bad.get(p), why))
    tap(not disagree and 0 < len(c_bad) < len(files),
        'strict check: C and Python agree on %d mutated files (%d invalid)%s'
        % (len(files), len(c_bad), ': ' + '; '.join(disagree[:4]) if disagree else ''))
    disagree = []
    for p in files[:80]:
        data = open(p, 'rb').read()
        t = os.path.join(tmp, 'fd.txt')
        text = run('fuzzdecode', p).stdout
        open(t, 'w').write(text)
        run('encode', t, '-o', t + '.bin')
        py = case.decode_total(data)
        m = re.search(r'# dropped (\d+)', text)
        if open(t + '.bin', 'rb').read() != py.encode() or (int(m.group(1)) if m else 0) != py.dropped:
            disagree.append(os.path.basename(p))
    tap(not disagree, 'total decoder: C (fuzzdecode) and Python (decode_total) read the same program and count '
        'the same drops in 80 mutated files%s' % (' (differ: %s)' % disagree[:5] if disagree else ''))

print('1..%d' % n_tests)
sys.exit(1 if failed else 0)
