"""Yield of a campaign's job groups: what each preset section found per CPU-minute.

A bucket is credited to the group of the job that met it first (its earliest
member); a group's CPU-minutes are its attempts' seconds times the CPUs its
jobs kept busy. "VM buckets" are those whose faulting frame is in the VM
(triage's blame: module libjvm), the candidates a census would confirm; the
census passes the signatures it confirmed, and those count as "real"; "new"
ones are those the run's known list does not name. The presets order their
groups by this table (ci/README.md, "Yield"), and an adaptive campaign
(ci/cilib/adapt.py) gives later rounds to the groups that find new buckets."""
import os

from .util import read_json


def _first_jobs(out):
    """{signature: id of the job of its earliest member} from triage's buckets."""
    bdir = os.path.join(out, 'triage', 'buckets')
    first = {}
    try:
        sigs = os.listdir(bdir)
    except OSError:
        return first
    for sig in sigs:
        b = read_json(os.path.join(bdir, sig, 'bucket.json'), {}) or {}
        members = [m for m in b.get('members', []) if '/results/jobs/' in (m.get('path') or '')]
        if not members:
            continue
        m = min(members, key=lambda m: (m.get('time') or 0, m.get('path')))
        first[sig] = m['path'].split('/results/jobs/', 1)[1].split('/', 1)[0]
    return first


def table(out, specs, jobs, buckets, real=None):
    """One row per group, in plan order: {'group', 'jobs', 'skipped', 'cpu_min', 'buckets', 'vm',
    'real', 'new', 'per_cpu_min', 'new_per_cpu_min'} (jobs: those that made an attempt; skipped:
    those started that ended before one; per_cpu_min: VM buckets, or real ones when `real` is
    given; new: buckets the known list does not name, of any kind)."""
    section_of = {s['id']: s['section'] for s in specs}
    cores_of = {s['id']: int(s['params'].get('cores', 1)) for s in specs}
    group_of_job = {j['id']: section_of.get(j['spec']) for j in jobs}
    rows, order = {}, []
    for s in specs:
        if s['section'] not in rows:
            rows[s['section']] = {'group': s['section'], 'jobs': 0, 'skipped': 0, 'cpu_min': 0.0, 'buckets': 0,
                                  'vm': 0, 'real': 0, 'new': 0}
            order.append(s['section'])
    for j in jobs:
        g = group_of_job.get(j['id'])
        if g is None or j['outcome'] == 'not started':
            continue
        if not j['attempts']:
            # ended before its first attempt: the yield weighting gave its time away, the
            # budget left could not hold one or no CPUs came free in time, or a stop came first
            rows[g]['skipped'] += 1
            continue
        rows[g]['jobs'] += 1
        rows[g]['cpu_min'] += sum(a['secs'] for a in j['attempts']) * cores_of.get(j['spec'], 1) / 60.0
    first = _first_jobs(out)
    for b in buckets:
        g = group_of_job.get(first.get(b['signature']))
        if g is None:
            continue
        r = rows[g]
        r['buckets'] += 1
        r['vm'] += 1 if (b.get('module') or '').startswith('libjvm') else 0
        r['real'] += 1 if real is not None and b['signature'] in real else 0
        r['new'] += 1 if b.get('status') == 'new' else 0
    out_rows = []
    for g in order:
        r = rows[g]
        found = r['real'] if real is not None else r['vm']
        r['per_cpu_min'] = found / r['cpu_min'] if r['cpu_min'] else 0.0
        r['new_per_cpu_min'] = r['new'] / r['cpu_min'] if r['cpu_min'] else 0.0
        out_rows.append(r)
    return out_rows


def markdown(rows, real=False):
    what = 'real' if real else 'VM'
    total = sum(r['cpu_min'] for r in rows) or 1.0
    lines = ['| group | jobs (skipped) | CPU-min (share) | buckets first found | %s buckets | new | %s buckets '
             'per CPU-min | new per CPU-min |' % (what, what), '|---|---|---|---|---|---|---|---|']
    for r in rows:
        lines.append('| %s | %d (%d) | %.1f (%.0f %%) | %d | %d | %d | %.2f | %.2f |' % (
            r['group'], r['jobs'], r.get('skipped', 0), r['cpu_min'], 100 * r['cpu_min'] / total, r['buckets'],
            r['real'] if real else r['vm'], r['new'], r['per_cpu_min'], r.get('new_per_cpu_min', 0.0)))
    return lines
