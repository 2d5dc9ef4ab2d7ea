#!/usr/bin/env python3
"""Checks one run of a harness under the stand-in's fault knob
(tests/jvm/fault_knob.h): every fault planted in it was caught and counted once.

  fault_matrix.py PROVIDER LOG BEFORE RECORDS [--guard-caught N]

PROVIDER: the stand-in's .so; LOG: the knob's counter file after the run,
BEFORE: a copy of it from before the run (or an empty file); RECORDS: the
run's crash-record directory. A planted fault is known in a record by its
pc, in the knob's fault function; the faults-KEY.txt counter of each such
key counts its catches, in every process that wrote there. Prints a line
of figures, 'pairs: E@C ...' (the entry/context pairs called so far) and
'missing: ...' (those called but never planted), and exits 1, naming what
differs, unless:
  - the faults caught at the knob's keys equal the faults planted in the run;
  - every caught fault was counted once: with --guard-caught (the guard's
    own count in a single-process run), the faults-*.txt lines equal it;
  - no fault reached the JVM's fatal-error path (no hs_err file)."""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knob_log  # noqa: E402

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'asgst.h')


def fault_function(provider):
    """[start, end) of the knob's fault function in the provider's file."""
    out = subprocess.run(['nm', '-S', '--defined-only', provider], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and re.match(r'knob_fault(\.|$)', f[3]):
            return int(f[0], 16), int(f[0], 16) + int(f[1], 16)
    sys.exit('%s: no knob_fault symbol' % provider)


def knob_keys(records, provider, lo, hi):
    """Keys of the records whose faulting pc lies in the knob's fault function."""
    name = os.path.basename(provider)
    keys = set()
    for path in glob.glob(os.path.join(records, 'record-*.txt')):
        text = open(path, errors='replace').read()
        key = re.search(r'^key: ([0-9a-f]{16})$', text, re.M)
        pc = re.search(r'^pc: \S+ (\S+)\+(0x[0-9a-f]+)$', text, re.M)
        if key and pc and os.path.basename(pc.group(1)) == name and lo <= int(pc.group(2), 16) < hi:
            keys.add(key.group(1))
    return keys


def counts(records):
    out = {}
    for path in glob.glob(os.path.join(records, 'faults-*.txt')):
        out[os.path.basename(path)[7:-4]] = open(path, 'rb').read().count(b'\n')
    return out


def table(path):
    if not os.path.getsize(path):
        return {}
    return {(e, c): (calls, planted) for e, c, calls, planted in knob_log.read(path, HEADER)}


def main(argv):
    args = argv[1:]
    guard = None
    if '--guard-caught' in args:
        i = args.index('--guard-caught')
        guard = int(args[i + 1]) if args[i + 1].isdigit() else -1
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    provider, log, before, records = args
    now, was = table(log), table(before)
    planted = sum(p for _, p in now.values()) - sum(p for _, p in was.values())
    lo, hi = fault_function(provider)
    per_key = counts(records)
    caught = sum(per_key.get(k, 0) for k in knob_keys(records, provider, lo, hi))
    total = sum(per_key.values())
    hs_err = glob.glob(os.path.join(records, 'hs_err*'))
    print('planted %d, caught at planted sites %d, faults counted in all %d%s, hs_err files %d'
          % (planted, caught, total, '' if guard is None else ', guard says %d' % guard, len(hs_err)))
    called = sorted(k for k, (c, _) in now.items() if c)
    print('pairs: ' + ' '.join('%s@%s' % k for k in called))
    print('missing: ' + ' '.join('%s@%s' % k for k in called if not now[k][1]))
    bad = []
    if caught != planted:
        bad.append('caught %d of %d planted faults' % (caught, planted))
    if guard is not None and guard != total:
        bad.append('the guard caught %d, the counters say %d' % (guard, total))
    if hs_err:
        bad.append('the VM died: %s' % hs_err[0])
    for b in bad:
        print('FAIL: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
