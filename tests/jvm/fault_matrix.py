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
  - no fault reached the JVM's fatal-error path (no hs_err file);
  - a process is tainted (records' `tainted: OP KEY`, tainted-PID.txt) only by a
    fault in the VM call OP names (planted, or the stand-in's own bug in that entry
    point), and every process with a planted fault
    in a call that changes VM state is tainted."""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knob_log  # noqa: E402

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'asgst.h')


def symbols(provider):
    """[(name, start, end)] of the functions the provider's file defines (nm)."""
    out = subprocess.run(['nm', '-S', '--defined-only', provider], capture_output=True, text=True).stdout
    return [(f[3], int(f[0], 16), int(f[0], 16) + int(f[1], 16))
            for f in (line.split() for line in out.splitlines()) if len(f) == 4]


def fault_function(provider):
    """[start, end) of the knob's fault function in the provider's file."""
    for name, lo, hi in symbols(provider):
        if re.match(r'knob_fault(\.|$)', name):
            return lo, hi
    sys.exit('%s: no knob_fault symbol' % provider)


def entry_functions(provider):
    """{entry name: [start, end)} of the provider's exported entry points."""
    ranges = {}
    for name, lo, hi in symbols(provider):
        m = re.match(r'(?:ASGST_|JFRLL_)(\w+)$', name)
        if m:
            ranges[m.group(1)] = (lo, hi)
    return ranges


def provider_faults(records, provider):
    """(key, record text, pc offset) of each record whose faulting pc lies in the
    provider's file."""
    name = os.path.basename(provider)
    for path in glob.glob(os.path.join(records, 'record-*.txt')):
        text = open(path, errors='replace').read()
        key = re.search(r'^key: ([0-9a-f]{16})$', text, re.M)
        pc = re.search(r'^pc: \S+ (\S+)\+(0x[0-9a-f]+)$', text, re.M)
        if key and pc and os.path.basename(pc.group(1)) == name:
            yield key.group(1), text, int(pc.group(2), 16)


def own_faults(records, provider, entries):
    """{key: entry} of the records whose fault lies in one of the provider's entry
    points itself, not in the knob: the stand-in's own bugs (a second RemoveFrameMark
    reads the freed mark), which a fuzzer's random operations can reach."""
    out = {}
    for key, _, off in provider_faults(records, provider):
        for entry, (lo, hi) in entries.items():
            if lo <= off < hi:
                out[key] = entry
    return out


def knob_keys(records, provider, lo, hi):
    """Keys of the records whose faulting pc lies in the knob's fault function."""
    return {key for key, _, off in provider_faults(records, provider) if lo <= off < hi}


# The VM calls each taint name stands for (src/qops.c, src/lifecycle.c, agents/queue_ops.c).
TAINT_ENTRIES = {
    'resize': {'ResizeQueue'}, 'resize_in_handler': {'ResizeQueue'},
    'set_start': {'SetOnQueueProcessingStart'}, 'clear_start': {'SetOnQueueProcessingStart'},
    'set_end': {'SetOnQueueProcessingEnd'}, 'clear_end': {'SetOnQueueProcessingEnd'},
    'set_on_queue_processing': {'SetOnQueueProcessingStart', 'SetOnQueueProcessingEnd'},
    'deregister': {'DeregisterQueue'}, 'deregister_queue': {'DeregisterQueue'},
    'reregister': {'RegisterQueue', 'DeregisterQueue'}, 'register_queue': {'RegisterQueue'},
    'mark_register': {'RegisterFrameMark'}, 'register_frame_mark': {'RegisterFrameMark'},
    'mark_move': {'MoveFrameMark'}, 'mark_remove': {'RemoveFrameMark'}, 'remove_frame_mark': {'RemoveFrameMark'},
    'remove_frame_mark_twice': {'RemoveFrameMark'},
    'register_class_unload_handler': {'RegisterClassUnloadHandler'},
    'deregister_class_unload_handler': {'DeregisterClassUnloadHandler'},
}
STATE_ENTRIES = set().union(*TAINT_ENTRIES.values())


def planted_faults(records, provider, lo, hi):
    """{key: (pid, entry, context)} of the records of planted faults: the fault's address
    names the entry and context (fault_knob.h)."""
    names = knob_log.entry_names(HEADER)
    out = {}
    for key, text, off in provider_faults(records, provider):
        pid = re.search(r'^pid: (\d+)$', text, re.M)
        addr = re.search(r'^si_addr: 0x([0-9a-f]+)$', text, re.M)
        if not (pid and addr) or not lo <= off < hi:
            continue
        n = (int(addr.group(1), 16) - 0x1000) // 8
        e, c = divmod(n, len(knob_log.CONTEXTS))
        if 0 <= e < len(names):
            out[key] = (int(pid.group(1)), names[e], knob_log.CONTEXTS[c])
    return out


def taint_problems(records, planted, own):
    """What is wrong with the run's taints, as lines. planted: planted_faults();
    own: own_faults()."""
    taints = {}     # pid -> {(op, key)}
    for path in glob.glob(os.path.join(records, 'record-*.txt')):
        text = open(path, errors='replace').read()
        pid = re.search(r'^pid: (\d+)$', text, re.M)
        t = re.search(r'^tainted: (\S+) ([0-9a-f]{16})$', text, re.M)
        if pid and t:
            taints.setdefault(int(pid.group(1)), set()).add(t.groups())
    for path in glob.glob(os.path.join(records, 'tainted-*.txt')):
        t = open(path, errors='replace').read().split()
        if len(t) == 2:
            taints.setdefault(int(os.path.basename(path)[8:-4]), set()).add(tuple(t))
    bad = []
    for pid, seen in sorted(taints.items()):
        if len(seen) > 1:
            bad.append('process %d has %d taints: %s' % (pid, len(seen), sorted(seen)))
        for op, key in sorted(seen):
            got = planted.get(key)
            entry = got[1] if got else own.get(key)
            if entry not in TAINT_ENTRIES.get(op, ()):
                bad.append('process %d is tainted by %s %s, a fault %s' % (
                    pid, op, key, 'in %s@%s' % got[1:] if got else
                    'in the stand-in\'s own %s' % entry if entry else 'in none of the stand-in\'s entry points'))
    for key, (pid, entry, ctx) in sorted(planted.items()):
        if entry in STATE_ENTRIES and pid not in taints:
            bad.append('process %d met a planted fault in %s@%s (key %s) and is not tainted' % (pid, entry, ctx, key))
    return bad


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
    bad += taint_problems(records, planted_faults(records, provider, lo, hi),
                          own_faults(records, provider, entry_functions(provider)))
    for b in bad:
        print('FAIL: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
