"""ci/premerge --base: a bucket the patched side met and the base side did not is
tried again on both builds before it fails the check, as syzkaller's CI retries a
crash on the base commit. The two sides are two samples of the same random
campaign, so a bug that is rare on both builds lands on one side only as often as
not; its case, run again on the base build, says whether the patch brought it.

  reproduced on base               pre-existing: listed, does not fail the check
  not on base, reproduced patched  confirmed new: fails
  on neither                       unconfirmed new: fails too (a gate does not hide a
                                   crash of the patched build), said as such

Each try is one `crash-triage/repro BUCKET -n 1` in a fresh JVM, with the route
of the run that found the bucket (a stress job's case goes through stress/run with
its scenario and flags, a fuzzer's through the replay tool). A side stops at its
first reproduction; no try starts after the deadline."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REPRO = os.path.join(ROOT, 'crash-triage', 'repro')
sys.path.insert(0, os.path.join(ROOT, 'crash-triage'))
from ctlib.reproduce import finding_command, stress_settings  # noqa: E402

PRE_EXISTING, CONFIRMED, UNCONFIRMED, NOT_TRIED = 'pre-existing', 'confirmed', 'unconfirmed', 'not tried'
REPRO_TIMEOUT = 180  # one fresh JVM; stress/run's own 10 s and its start-up, with room


def route(bucket_dir):
    """['--via', 'stress'] for a bucket a stress job found (its case means something only
    beside that workload), [] (the replay tool) otherwise."""
    try:
        with open(os.path.join(bucket_dir, 'bucket.json'), encoding='utf-8') as f:
            b = json.load(f)
    except (OSError, ValueError):
        return []
    scenario, _, _ = stress_settings(finding_command((b.get('representative') or {}).get('path')))
    return ['--via', 'stress'] if scenario else []


def try_once(bucket_dir, java_home, via):
    """(reproduced, note) of one attempt on java_home."""
    with tempfile.TemporaryDirectory(prefix='asgf-confirm-') as tmp:
        result = os.path.join(tmp, 'repro.json')
        argv = [REPRO, bucket_dir, '--java-home', java_home, '-n', '1', '-q', '--json', result] + via
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=REPRO_TIMEOUT,
                               stdin=subprocess.DEVNULL, cwd=tmp)
        except subprocess.TimeoutExpired:
            return False, 'repro ran over %d s' % REPRO_TIMEOUT
        try:
            with open(result, encoding='utf-8') as f:
                s = json.load(f)
        except (OSError, ValueError):
            tail = p.stdout.decode('utf-8', 'replace').strip().splitlines()[-1:] or ['no output']
            return False, 'repro exit %d: %s' % (p.returncode, tail[0])
        if not s.get('ran'):
            return False, 'the case did not run'
        return s.get('same_signature', 0) > 0, ''


def one(bucket_dir, homes, attempts, deadline):
    """{'verdict', 'base': [hits, tries], 'patched': [hits, tries], 'notes'} for one bucket."""
    via = route(bucket_dir)
    res = {'base': [0, 0], 'patched': [0, 0], 'notes': [], 'via': via[1] if via else 'replay'}
    for side in ('base', 'patched'):
        while res[side][0] == 0 and res[side][1] < attempts and time.monotonic() < deadline:
            hit, note = try_once(bucket_dir, homes[side], via)
            res[side][1] += 1
            res[side][0] += hit
            if note and note not in res['notes']:
                res['notes'].append(note)
        if side == 'base' and res['base'][0]:
            break  # one reproduction on the base build settles it
    if res['base'][0]:
        res['verdict'] = PRE_EXISTING
    elif not res['base'][1] or not res['patched'][1]:
        res['verdict'] = NOT_TRIED
    else:
        res['verdict'] = CONFIRMED if res['patched'][0] else UNCONFIRMED
    return res


def describe(res):
    """'base 1/1, patched -', for the tables."""
    def side(s):
        hits, tries = res[s]
        return '%s %s' % (s, '%d/%d' % (hits, tries) if tries else '-')
    return '%s: %s, %s' % (res['verdict'], side('base'), side('patched'))


def run(out, rows, homes, attempts, seconds, quiet=False):
    """{signature: result} for the new rows (signature first), in order, within seconds."""
    deadline = time.monotonic() + seconds
    results = {}
    for row in rows:
        sig = row[0]
        bucket_dir = os.path.join(out, 'patched', 'triage', 'buckets', sig)
        if time.monotonic() >= deadline:
            results[sig] = {'verdict': NOT_TRIED, 'base': [0, 0], 'patched': [0, 0],
                            'notes': ['the confirmation time was used up'], 'via': ''}
        elif not os.path.isdir(bucket_dir):
            results[sig] = {'verdict': NOT_TRIED, 'base': [0, 0], 'patched': [0, 0],
                            'notes': ['no bucket directory %s' % bucket_dir], 'via': ''}
        else:
            results[sig] = one(bucket_dir, homes, attempts, deadline)
        if not quiet:
            r = results[sig]
            print('premerge: confirm %s  %s%s' % (sig, describe(r), ' (%s)' % '; '.join(r['notes'])
                                                   if r['notes'] else ''))
            sys.stdout.flush()
    return results
