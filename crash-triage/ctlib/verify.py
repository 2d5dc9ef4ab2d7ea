"""Does a bucket's smallest case fault again? smallest.case is what every reproduce
command of the reports runs, and a case is relative to the live state of the JVM it
faulted in: of the cases a long libFuzzer run kept for one bucket, some fault again in a
fresh JVM and some never do (met in a smoke campaign: the smallest, 0 of 1000 walks; the
earliest, 1000 of 1000). A fuzzer's crash artifact was replayed to be filed at all; a
record or hs_err the harness wrote during its run was not. So triage replays such a
smallest case once, many walks in one JVM, in the settings of the run that found it, and
keeps the answer on the member (`replayed`): buckets.replay_rank then prefers cases
that came back, and the next smallest is tried when one did not.

Only cases of fuzzer runs (members with harness settings) are tried: a stress job's
case needs that job's workload, which the replay tool does not run."""
import os
import time

from . import buckets, collect, parse_fuzzer, signature

RUNS = 1000         # walks in the one fresh JVM a try starts
TRIES = 8           # distinct cases of one bucket tried in one triage run
BUDGET = 90.0       # seconds after which a triage run starts no more tries: the rest wait
TRY_TIMEOUT = 20    # seconds of one try: a JVM's start and 1000 walks take 2-4 s here; a
                    # case whose walk hangs (a walker looping) is answered by the time-out


def _to_try(b):
    """The member whose case is the bucket's smallest.case, when it is worth a try: not
    in a bucket one of whose replays hung (the others would hang alike)."""
    if b.get('replay_hung'):
        return None
    m = buckets.smallest_member(b)
    if m is None or not m.get('case') or m.get('kind') == 'fuzzer' or 'replayed' in m:
        return None
    return m if isinstance(m.get('settings'), dict) and m['settings'] else None


def smallest_cases(store, sigs, argv, rules, sym, budget=BUDGET, log=None):
    """Tries the smallest case of each bucket in sigs, in that order, with the replay
    command argv, where it was never tried; returns (cases tried, buckets whose smallest.case changed,
    buckets left for a later run when the budget ran out)."""
    t0, tried, changed, left = time.time(), 0, 0, 0
    hung_in = set()      # settings under which a replay hung in this run: not tried again
    for sig in sigs:
        b = store.buckets.get(sig)
        first = (b or {}).get('smallest_case') or {}
        for _ in range(TRIES):
            b = store.buckets.get(sig)
            m = _to_try(b) if b else None
            if m is None or frozenset(m['settings'].items()) in hung_in:
                break
            if time.time() - t0 > budget:
                left += 1
                break
            case = os.path.join(store.bdir, sig, m['case'])
            reps, note = parse_fuzzer.replay(argv + ['-n', str(RUNS)], case, collect.parse_path, attempts=1,
                                             settings=m['settings'], timeout=TRY_TIMEOUT)
            hung = not reps and 'timed out' in note
            if not reps and parse_fuzzer.failed_to_run(note) and not hung:
                if log:
                    log('%s: its smallest case could not be replayed (%s)' % (sig, note))
                break               # not the case's answer: a later run tries again
            if sym:
                sym.symbolize(reps)
            names = {sig} | {f.get('signature') for f in b.get('folded') or [] if isinstance(f, dict)}
            same = 0
            for r in reps:
                signature.describe(r, rules)
                same += r.extra.get('signature') in names
            for o in b['members']:       # one case file, shared by members with the same bytes
                if o.get('case') == m['case']:
                    o['replayed'] = dict({'runs': RUNS, 'reports': len(reps), 'same': same},
                                         **({'hung': TRY_TIMEOUT} if hung else {}))
            tried += 1
            if hung:
                b['replay_hung'] = TRY_TIMEOUT
                hung_in.add(frozenset(m['settings'].items()))
            store.refinish(sig)
            if same or hung:
                break
        now = (store.buckets.get(sig) or {}).get('smallest_case') or {}
        if now.get('member') != first.get('member'):
            changed += 1
    return tried, changed, left
