"""Reads what the jobs wrote under results/jobs/: attempt verdicts, executions
(stress walks, fuzzer execs), running jobs; and GNU Parallel's joblog.

Cheap enough to call every second: files are re-read only when their
modification time changes."""
import csv
import os
import re

from .util import read_json, tail

WALKS_RE = re.compile(r'walks=(\d+)')
LF_EXECS_RE = re.compile(r'^#(\d+)\s', re.M)
LF_FINAL_RE = re.compile(r'^stat::number_of_executed_units:\s*(\d+)', re.M)
AFL_EXECS_RE = re.compile(r'^execs_done\s*:\s*(\d+)', re.M)
API_CALLS_RE = re.compile(r'^api calls:(.*)$', re.M)   # agent and fuzzers, at exit

VERDICTS = ('clean', 'faults', 'crashed', 'hung', 'not-run', 'interrupted')


def read_attempts(path):
    try:
        with open(path, encoding='utf-8', newline='') as f:
            return [r for r in csv.DictReader(f, delimiter='\t') if r.get('verdict')]
    except OSError:
        return []


def live_execs(attempt_dir):
    """Executions so far of an attempt that is still running."""
    text = tail(os.path.join(attempt_dir, 'log'), 4096)          # stress: agent stats lines
    m = WALKS_RE.findall(text)
    if m:
        return int(m[-1])
    text = tail(os.path.join(attempt_dir, 'fuzzer.log'), 8192)   # libFuzzer status lines
    m = LF_FINAL_RE.findall(text) or LF_EXECS_RE.findall(text)
    if m:
        return int(m[-1])
    text = tail(os.path.join(attempt_dir, 'live_stats'), 8192)   # AFL++ fuzzer_stats
    m = AFL_EXECS_RE.findall(text)
    if m:
        base = read_int(os.path.join(attempt_dir, 'execs_base'))
        return max(0, int(m[-1]) - base)
    return 0


def api_calls(attempt_dir):
    """Calls per ASGST entry point an attempt printed at exit ({} if none):
    the last 'api calls:' line of its agent log and of its fuzzer log."""
    total = {}
    for name in ('log', 'fuzzer.log'):
        m = API_CALLS_RE.findall(tail(os.path.join(attempt_dir, name), 65536))
        for item in (m[-1].split() if m else []):
            k, _, v = item.partition('=')
            if v.isdigit():
                total[k] = total.get(k, 0) + int(v)
    return total


def read_int(path):
    try:
        with open(path, encoding='utf-8') as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


class Scanner:
    def __init__(self, out):
        self.jobs_dir = os.path.join(out, 'results', 'jobs')
        self._attempts = {}   # job id -> (mtime, rows)

    def _rows(self, jid):
        path = os.path.join(self.jobs_dir, jid, 'attempts.tsv')
        try:
            mt = os.stat(path).st_mtime_ns
        except OSError:
            return []
        hit = self._attempts.get(jid)
        if hit and hit[0] == mt:
            return hit[1]
        rows = read_attempts(path)
        self._attempts[jid] = (mt, rows)
        return rows

    def snapshot(self):
        """Totals over every job directory so far."""
        t = {'jobs_seen': 0, 'running': 0, 'attempts': 0, 'execs': 0}
        for v in VERDICTS:
            t[v] = 0
        try:
            ids = os.listdir(self.jobs_dir)
        except OSError:
            return t
        for jid in ids:
            jd = os.path.join(self.jobs_dir, jid)
            t['jobs_seen'] += 1
            rows = self._rows(jid)
            done_dirs = set()
            for r in rows:
                t['attempts'] += 1
                t[r['verdict']] = t.get(r['verdict'], 0) + 1
                t['execs'] += int(r.get('execs') or 0)
                done_dirs.add(r.get('dir'))
            if os.path.exists(os.path.join(jd, 'RUNNING')):
                t['running'] += 1
                for name in os.listdir(jd):
                    ad = os.path.join(jd, name)
                    if re.fullmatch(r'g\d+a\d+', name) and name not in done_dirs and os.path.isdir(ad):
                        t['execs'] += live_execs(ad)
        return t


def read_joblog(path):
    """{seq: {'host', 'start', 'runtime', 'exitval', 'signal'}} (last line wins)."""
    out = {}
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            next(f, None)
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if len(parts) < 9 or not parts[0].isdigit():
                    continue
                out[int(parts[0])] = {'host': parts[1], 'start': float(parts[2]),
                                      'runtime': float(parts[3]), 'exitval': int(parts[6]),
                                      'signal': int(parts[7])}
    except OSError:
        pass
    return out


def job_outcomes(out, job_rows):
    """One dict per job of the list: what happened to it (for reports)."""
    jobs_dir = os.path.join(out, 'results', 'jobs')
    joblog = read_joblog(os.path.join(out, 'joblog'))
    result = []
    for seq, (jid, kind, slot, seed, opts, spec_id, rnd) in enumerate(job_rows, 1):
        jd = os.path.join(jobs_dir, jid)
        j = {'id': jid, 'seq': seq, 'kind': kind, 'spec': spec_id, 'round': rnd, 'slot': slot,
             'seed': seed, 'attempts': [], 'execs': 0, 'host': None}
        meta = read_json(os.path.join(jd, 'job.json'), {})
        rows = read_attempts(os.path.join(jd, 'attempts.tsv'))
        j['attempts'] = [{'gen': int(r['gen']), 'n': int(r['attempt']), 'seed': int(r['seed']),
                          'verdict': r['verdict'], 'rc': int(r['rc']), 'start': int(r['start']),
                          'secs': int(r['secs']), 'execs': int(r['execs'] or 0),
                          'dir': os.path.join(jd, r['dir'])} for r in rows]
        j['execs'] = sum(a['execs'] for a in j['attempts'])
        j['host'] = meta.get('sshlogin') or (joblog[seq]['host'] if seq in joblog else None)
        j['hostname'] = meta.get('host')
        j['cores'], j['cpus'] = meta.get('cores'), meta.get('cpus')
        log = joblog.get(seq)
        if log:
            j['exitval'], j['signal'], j['runtime'] = log['exitval'], log['signal'], log['runtime']
            j['host'] = j['host'] or log['host']
        j['outcome'] = _outcome(j, meta, log, os.path.isdir(jd))
        if j['outcome'] == 'skipped (budget)' and os.path.exists(os.path.join(jd, 'skipped-yield')):
            j['outcome'] = 'skipped (yield)'    # an adaptive campaign gave its time to another group
        result.append(j)
    return result


def _outcome(j, meta, log, started):
    if log is None:
        if not started:
            return 'not started'
        return 'interrupted'
    if log['signal'] or log['exitval'] < 0:
        return 'killed (timeout)'
    if log['exitval'] == 4:
        return 'not run'
    if log['exitval'] not in (0, 4):
        return 'failed (exit %d)' % log['exitval']
    if meta.get('status') == 'skipped':
        return 'skipped (budget)'
    worst = 'clean'
    order = ('clean', 'faults', 'crashed', 'hung')
    for a in j['attempts']:
        if a['verdict'] in order and order.index(a['verdict']) > order.index(worst):
            worst = a['verdict']
    return worst


def unpack_returned(out):
    """Unpacks results/jobs/ID.tgz files that GNU Parallel's --return brought
    back from other hosts into results/jobs/ID/, then removes them. A job
    that ran here before (interrupted, then rerun elsewhere) keeps both
    histories: attempts.tsv rows and job.log are merged. Returns the count."""
    import tarfile
    jobs_dir = os.path.join(out, 'results', 'jobs')
    n = 0
    try:
        names = sorted(f for f in os.listdir(jobs_dir) if f.endswith('.tgz'))
    except OSError:
        return 0
    for name in names:
        jid = name[:-4]
        path = os.path.join(jobs_dir, name)
        jd = os.path.join(jobs_dir, jid)
        old_rows = read_attempts(os.path.join(jd, 'attempts.tsv'))
        old_log = b''
        try:
            with open(os.path.join(jd, 'job.log'), 'rb') as f:
                old_log = f.read()
        except OSError:
            pass
        try:
            with tarfile.open(path, 'r:gz') as tar:
                for m in tar.getmembers():
                    parts = m.name.split('/')
                    if parts[0] != jid or '..' in parts or m.name.startswith('/'):
                        continue
                    if not (m.isfile() or m.isdir()):
                        continue
                    dest = os.path.join(jobs_dir, *parts)
                    if m.isdir():
                        os.makedirs(dest, exist_ok=True)
                        continue
                    os.makedirs(os.path.dirname(dest), exist_ok=True)
                    data = tar.extractfile(m).read()
                    if parts[1:] == ['job.log'] and old_log:
                        data = old_log + data
                    with open(dest, 'wb') as f:
                        f.write(data)
                    os.utime(dest, (m.mtime, m.mtime))
        except (OSError, tarfile.TarError, EOFError):
            continue        # not complete yet, or damaged: left for the next look
        if old_rows:
            _merge_attempts(os.path.join(jd, 'attempts.tsv'), old_rows)
        os.unlink(path)
        n += 1
    return n


def _merge_attempts(path, old_rows):
    rows = {(r['gen'], r['attempt']): r for r in old_rows}
    for r in read_attempts(path):
        rows[(r['gen'], r['attempt'])] = r
    cols = ['gen', 'attempt', 'seed', 'verdict', 'rc', 'start', 'secs', 'execs', 'dir']
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\t'.join(cols) + '\n')
        for r in sorted(rows.values(), key=lambda r: (int(r['gen']), int(r['attempt']))):
            f.write('\t'.join(r.get(c, '') for c in cols) + '\n')
