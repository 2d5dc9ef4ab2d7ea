"""ci/premerge --base: a bucket the patched side met and the base side did not is
tried again on both builds before it fails the check, as syzkaller's CI retries a
crash on the base commit. The two sides are two samples of the same random
campaign, so a bug that is rare on both builds lands on one side only as often as
not; its case, run again on the base build, says whether the patch brought it.

  reproduced on base               pre-existing: listed, does not fail the check
  not on base, reproduced patched  confirmed new: fails
  on neither                       unconfirmed new: fails too (a gate does not hide a
                                   crash of the patched build), said as such
  a side where the case never ran  not tried: new, fails

Each try is one `crash-triage/repro BUCKET -n 1 --expect SIGNATURE` in a fresh JVM,
with a seed of its own; repro takes the route of the run that found the bucket (a
stress job's case goes through stress/run with its scenario and flags, a fuzzer's
through the replay tool). A side stops at its first reproduction; no try starts after the
deadline or once stop() says so. Results are kept in OUT/confirm.json, so that
ci/premerge --report-only judges a pair again with the same answers."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REPRO = os.path.join(ROOT, 'crash-triage', 'repro')
from .util import read_json, write_json

PRE_EXISTING, CONFIRMED, UNCONFIRMED, NOT_TRIED = 'pre-existing', 'confirmed', 'unconfirmed', 'not tried'
ATTEMPT_TIMEOUT = 120        # repro's own limit for one JVM (it then counts as hung)
REPRO_TIMEOUT = ATTEMPT_TIMEOUT + 60   # repro itself: start-up, triage and symbols
SAVED = 'confirm.json'

# The repro process group running now, for stop_current() (a signal handler's).
_current = []


def stop_current():
    """Kills the repro running now with its JVM (signal-safe enough for a Python handler)."""
    for pid in list(_current):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def try_once(bucket_dir, sig, java_home, seed):
    """('hit' | 'miss' | 'not run' | 'bad input', note, route) of one attempt on java_home;
    repro picks the route (stress/run for a stress job's bucket) and says which it took."""
    with tempfile.TemporaryDirectory(prefix='asgf-confirm-') as tmp:
        result = os.path.join(tmp, 'repro.json')
        argv = [REPRO, bucket_dir, '--java-home', java_home, '-n', '1', '-q', '--expect', sig,
                '--seed', str(seed), '--timeout', str(ATTEMPT_TIMEOUT), '--json', result]
        # Its own session: a time-out or a signal takes the JVM down with it.
        # TMPDIR: the attempt files repro keeps as evidence go with this directory.
        env = dict(os.environ, TMPDIR=tmp)
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             cwd=tmp, start_new_session=True, env=env)
        _current.append(p.pid)
        try:
            output, _ = p.communicate(timeout=REPRO_TIMEOUT)
        except subprocess.TimeoutExpired:
            stop_current()
            p.communicate()
            return 'not run', 'repro ran over %d s' % REPRO_TIMEOUT, None
        finally:
            _current.remove(p.pid)
        last = (output.decode('utf-8', 'replace').strip().splitlines() or ['no output'])[-1]
        if p.returncode == 2:
            return 'bad input', 'repro: %s' % last, None
        s = read_json(result, None)
        if p.returncode not in (0, 1) or not s or not s.get('ran'):
            return 'not run', 'the case did not run (repro exit %d: %s)' % (p.returncode, last), s and s.get('via')
        return ('hit' if s.get('same_signature', 0) > 0 else 'miss'), '', s.get('via')


def one(bucket_dir, sig, homes, attempts, deadline, stop):
    """{'verdict', 'base': [hits, tries], 'patched': [hits, tries], 'notes', 'via'} for one
    bucket; a try counts only if the case ran."""
    res = {'base': [0, 0], 'patched': [0, 0], 'notes': [], 'via': ''}
    for side in ('base', 'patched'):
        seed = 1
        while not res[side][0] and seed <= attempts and time.monotonic() < deadline and not stop():
            what, note, via = try_once(bucket_dir, sig, homes[side], seed)
            seed += 1
            res['via'] = res['via'] or via or ''
            if note and '%s: %s' % (side, note) not in res['notes']:
                res['notes'].append('%s: %s' % (side, note))
            if what in ('hit', 'miss'):
                res[side][1] += 1
                res[side][0] += what == 'hit'
            elif what == 'bad input' or (what == 'not run' and not res[side][1]):
                break   # the case cannot run here: more tries would say the same
        if res['base'][0] or not res['base'][1]:
            break   # settled by the base build, or the base build could not tell
    if res['base'][0]:
        res['verdict'] = PRE_EXISTING
    elif not res['base'][1] or not res['patched'][1]:
        res['verdict'] = NOT_TRIED
    else:
        res['verdict'] = CONFIRMED if res['patched'][0] else UNCONFIRMED
    return res


def tries(res):
    """'base 0/3, patched 1/1': how the retries went, for the tables."""
    def side(s):
        hits, n = res[s]
        return '%s %s' % (s, '%d/%d' % (hits, n) if n else '-')
    return '%s, %s' % (side('base'), side('patched'))


def describe(res):
    """'confirmed: base 0/3, patched 1/1'."""
    return '%s: %s' % (res['verdict'], tries(res))


def _not_tried(why):
    return {'verdict': NOT_TRIED, 'base': [0, 0], 'patched': [0, 0], 'notes': [why], 'via': ''}


def run(out, rows, homes, attempts, seconds, quiet=False, stop=lambda: False):
    """{signature: result} for the new rows (signature first), in order, within seconds.
    A bucket with a result in OUT/confirm.json keeps it (a --report-only judges again
    with the same answers); the others are tried and saved."""
    saved = read_json(os.path.join(out, SAVED), {}) or {}
    deadline = time.monotonic() + seconds
    results = {}
    for row in rows:
        sig = row[0]
        bucket_dir = os.path.join(out, 'patched', 'triage', 'buckets', sig)
        if sig in saved and saved[sig].get('verdict') != NOT_TRIED:
            results[sig] = dict(saved[sig], notes=list(saved[sig].get('notes', [])) + ['kept from %s' % SAVED])
        elif stop():
            results[sig] = _not_tried('interrupted before its retries')
        elif time.monotonic() >= deadline:
            results[sig] = _not_tried('the retry time (--confirm-time) was used up')
        elif not os.path.isdir(bucket_dir):
            results[sig] = _not_tried('no bucket directory %s' % bucket_dir)
        else:
            results[sig] = saved[sig] = one(bucket_dir, sig, homes, attempts, deadline, stop)
            write_json(os.path.join(out, SAVED), saved)
        if not quiet:
            r = results[sig]
            print('premerge: retried %s  %s%s' % (sig, describe(r), ' (%s)' % '; '.join(r['notes'])
                                                   if r['notes'] else ''))
            sys.stdout.flush()
    return results
