"""The campaign report: triage's report (buckets, plots) plus a campaign
section (settings, plan, job outcomes, throughput and outcome plots), as
report.md, report.json and a self-contained report.html in OUT."""
import html
import os
import re
import time

from .util import hms, iso, read_json, si, write_json, write_text
from . import hangs, rerun, scan, walker, yields

VERDICT_COLOURS = (('clean', '#5a9e5a'), ('faults', '#d9a400'), ('crashed', '#d0604a'),
                   ('hung', '#8a4fbf'), ('not-run', '#999999'), ('interrupted', '#cccccc'))

STYLE = """
section{margin-top:1.5em}
table.kv{width:auto}table.kv th{text-align:right;font-weight:normal;background:#f7f7f7}
td.num{text-align:right}
.legend span{display:inline-block;margin-right:1em;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
details summary{cursor:pointer;margin:0.5em 0}
#verdict{border-left:8px solid #5a9e5a;padding:0.3em 1em;background:#f3faf3;margin:0.5em 0 1em}
#verdict.fail{border-color:#d0604a;background:#fdf1ee}#verdict.untested{border-color:#d9a400;background:#fdf8e8}
#verdict h2{margin:0.2em 0}#verdict table{margin:0.5em 0}
"""


YIELD_NOTE = ('Buckets credited to the group that met them first, per CPU-minute (ci/cilib/yields.py); VM '
              'buckets fault in libjvm; new ones are those the known list does not name. jobs: those that '
              'made an attempt; skipped: those started that ended before one (no budget or CPUs left for '
              'it, its time given away by the yield weighting, or a stop).')


def _attempt_dir(path):
    m = re.search(r'^(.*/results/jobs/[^/]+/g\d+a\d+)/', path or '')
    return m.group(1) if m else None


def _job_of(path):
    m = re.search(r'/results/jobs/([^/]+)/', path or '')
    return m.group(1) if m else None


WHERE_FROM = ('The smallest case is the bucket\'s smallest saved case, the one crash-triage/repro runs. The '
              'rerun runs the first job attempt that met the bucket again, with that attempt\'s own input and '
              'settings: another case than the smallest one when a later attempt saved a smaller one.')


def bucket_sources(out):
    """{signature: {'jobs': [ids], 'attempt_dirs': [dirs], 'reproducer', 'repro'}}
    from triage's bucket files: which jobs produced each bucket, the smallest
    saved case, and a command that reruns the first attempt that hit it."""
    result = {}
    bdir = os.path.join(out, 'triage', 'buckets')
    try:
        sigs = sorted(os.listdir(bdir))
    except OSError:
        return result
    for sig in sigs:
        b = read_json(os.path.join(bdir, sig, 'bucket.json'), {}) or {}
        members = sorted(b.get('members', []), key=lambda m: m.get('time') or 0)
        jobs, dirs = [], []
        for m in members:
            path = m.get('path') or ''
            jid = _job_of(path)
            if jid and jid not in jobs:
                jobs.append(jid)
            d = os.path.dirname(path)
            if jid and d not in dirs and len(dirs) < 20:
                dirs.append(d)
        rep = None
        if b.get('smallest_case'):
            rep = os.path.join(bdir, sig, b['smallest_case'].get('file', 'smallest.case'))
        elif (b.get('representative') or {}).get('copy'):
            rep = os.path.join(bdir, sig, b['representative']['copy'])
        repro = env = home = None
        for m in members:
            d = _attempt_dir(m.get('path') or '')
            lines = rerun.read_cmd(d)
            if lines is None:
                continue
            if lines and not rerun.is_fuzzer(lines):
                repro = rerun.stress(lines, 'repro-%s' % sig)
            else:
                # A fuzzer attempt: replay its input with the harness settings it had.
                env, home = rerun.replay_env(d), rerun.java_home(lines)
                case = m.get('report_file') or m.get('path')
                if m.get('kind') != 'fuzzer' and m.get('case'):
                    case = os.path.join(bdir, sig, m['case'])
                repro = rerun.replay(env, case, 1000, home)
            break
        # The smallest case replayed with the fuzzer attempt's harness settings. A case a
        # stress job met needs that job's workload and flags, which only the rerun above
        # (or crash-triage/repro) gives it: replayed in the harness's loop it seldom faults.
        replay = None
        if b.get('smallest_case') and rep and env is not None:
            replay = rerun.replay(env, rep, 1000, home)
        result[sig] = {'jobs': jobs, 'attempt_dirs': dirs, 'reproducer': rep,
                       'repro': repro, 'replay': replay, 'title': b.get('title')}
    return result


def spec_rows(specs, jobs):
    rows = []
    for s in specs:
        mine = [j for j in jobs if j['spec'] == s['id']]
        started = [j for j in mine if j['outcome'] != 'not started']
        verdicts = {}
        for j in started:
            for a in j['attempts']:
                verdicts[a['verdict']] = verdicts.get(a['verdict'], 0) + 1
        outcomes = {}
        for j in started:
            outcomes[j['outcome']] = outcomes.get(j['outcome'], 0) + 1
        rows.append({'id': s['id'], 'kind': s['kind'], 'desc': s['desc'], 'job_time': s['job_time'],
                     'jobs': len(started), 'attempts': sum(verdicts.values()), 'verdicts': verdicts,
                     'outcomes': outcomes, 'execs': sum(j['execs'] for j in started),
                     'hosts': sorted({j['host'] for j in started if j.get('host')})})
    return rows


def read_progress(out):
    rows = []
    try:
        with open(os.path.join(out, 'progress.tsv'), encoding='utf-8') as f:
            head = f.readline().rstrip('\n').split('\t')
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if len(parts) == len(head):
                    rows.append({k: float(v) for k, v in zip(head, parts)})
    except (OSError, ValueError):
        pass
    return rows


def build(out, cfg, state, specs, jobs, java_version='', lines=None):
    """lines: the walker's source lines (addr2line, seconds); by default unless interrupted."""
    triage = read_json(os.path.join(out, 'triage', 'report.json'), None)
    sources = bucket_sources(out)
    if triage:
        for b in triage.get('buckets', []):
            src = sources.get(b['signature'], {})
            b['found_by'] = src.get('jobs', [])
            b['reproducer'] = src.get('reproducer')
            b['repro_command'] = src.get('repro')
            b['replay_command'] = src.get('replay')
    totals = {'jobs_planned': len(jobs), 'jobs_started': 0, 'jobs_ran': 0, 'attempts': 0, 'execs': 0}
    outcomes, verdicts, hosts = {}, {}, {}
    for j in jobs:
        outcomes[j['outcome']] = outcomes.get(j['outcome'], 0) + 1
        if j['outcome'] == 'not started':
            continue
        totals['jobs_started'] += 1
        # ran: made an attempt (one skipped for want of budget or free CPUs started, no more)
        totals['jobs_ran'] += 1 if j['attempts'] else 0
        totals['execs'] += j['execs']
        hosts[j.get('host') or '?'] = hosts.get(j.get('host') or '?', 0) + 1
        for a in j['attempts']:
            totals['attempts'] += 1
            verdicts[a['verdict']] = verdicts.get(a['verdict'], 0) + 1
    calls = {}
    for j in jobs:
        for a in j['attempts']:
            for k, v in scan.api_calls(a['dir']).items():
                calls[k] = calls.get(k, 0) + v
    # Throughput: each job's own rate (execs, or walks for stress, over its attempts'
    # seconds), the median per kind, and the campaign's total over its wall time.
    by_kind = {}
    for j in jobs:
        j['secs'] = sum(a['secs'] for a in j['attempts'])
        j['rate'] = j['execs'] / j['secs'] if j['secs'] else 0.0
        if j['secs']:
            by_kind.setdefault(j['kind'], []).append(j['rate'])
    totals['rate'] = totals['execs'] / state['consumed'] if state.get('consumed') else 0.0
    totals['rate_by_kind'] = {k: sorted(v)[len(v) // 2] for k, v in by_kind.items()}
    totals.update({'outcomes': outcomes, 'verdicts': verdicts, 'hosts': hosts, 'api_calls': calls,
                   'restarts': sum(max(0, len(j['attempts']) - 1) for j in jobs),
                   'buckets': (triage or {}).get('totals', {}).get('buckets', 0),
                   'new_buckets': (triage or {}).get('totals', {}).get('new', 0)})
    return {
        'generated': iso(), 'out': out,
        'campaign': {k: cfg.get(k) for k in ('preset', 'preset_path', 'description', 'budget', 'seed',
                                             'java_home', 'jobs', 'sshloginfile', 'known', 'created',
                                             'halt', 'job_time', 'min_attempt')},
        'java_version': java_version, 'state': state, 'totals': totals,
        'plan': spec_rows(specs, jobs), 'jobs': jobs, 'progress': read_progress(out),
        'yield': yields.table(out, specs, jobs, (triage or {}).get('buckets', [])),
        'triage': triage, 'warnings': state.get('warnings', []), 'hangs': hangs.rows(jobs),
        'walker': walker.summary(os.path.join(out, 'results'),
                                 lines=state.get('status') != 'interrupted' if lines is None else lines),
    }


def default_verdict(doc):
    """A campaign's own verdict: its new buckets (ci/premerge and --base replace it with theirs)."""
    new = [b for b in ((doc.get('triage') or {}).get('buckets') or []) if b.get('status') == 'new']
    st = doc['state'].get('status')
    n_new = '%d new bucket%s' % (len(new), '' if len(new) == 1 else 's') if new else 'no new bucket'
    if st == 'running':   # the report a campaign rewrites after each triage
        return {'state': 'fail' if new else 'untested', 'why': '',
                'label': 'running, %s of %s used: %s so far' % (hms(doc['state'].get('consumed', 0)),
                                                                 hms(doc['campaign']['budget']), n_new),
                'new': [new_row(b) for b in new]}
    t = doc['totals']
    ran = t.get('jobs_ran', t['jobs_started'])
    state = 'untested' if st == 'interrupted' or not ran else 'fail' if new else 'pass'
    label = ('interrupted' if st == 'interrupted' else 'no job ran' if not ran else n_new)
    return {'state': state, 'label': label, 'why': '', 'new': [new_row(b) for b in new]}


def new_row(b):
    return {'title': b['title'], 'signature': b['signature'], 'count': b.get('count', 0),
            'repro': b.get('repro_command') or b.get('repro') or ''}


def verdict_html(v):
    """The first screen of a report: the verdict and why, then each new bucket with one command."""
    p = ['<section id="verdict" class="%s"><h2>%s</h2>' % (_e(v['state']), _e(v['label']))]
    if v.get('why'):
        p.append('<p>%s</p>' % _e(v['why']))
    sides = v.get('sides')
    if v.get('new'):
        p.append('<table id="new-buckets"><thead><tr><th>new bucket</th><th>count</th><th>reproduce</th></tr>'
                 '</thead><tbody>')
        for b in v['new']:
            p.append('<tr><td>%s<br><code>%s</code></td><td class="num">%d</td><td><code>%s</code></td></tr>'
                     % (_e(b['title']), _e(b['signature']), b['count'], _e(b['repro'] or '-')))
        p.append('</tbody></table>')
    if sides:
        p.append('<table id="base-vs-patched"><thead><tr><th>bucket</th><th>status</th><th>base</th>'
                 '<th>patched</th></tr></thead><tbody>')
        for name in SIDE_STATUSES:
            for r in sides.get(name, []):
                tried = '<br><small>tried again: %s</small>' % _e(r['tried']) if r.get('tried') else ''
                p.append('<tr><td>%s<br><code>%s</code></td><td>%s%s</td><td class="num">%d</td>'
                         '<td class="num">%d</td></tr>' % (_e(r['title']), _e(r['signature']), name, tried,
                                                           r['base'], r['patched']))
        p.append('</tbody></table><p>Each side\'s full report: <a href="%s">base</a>, <a href="%s">patched</a>.</p>'
                 % (_e(sides['base_report']), _e(sides['patched_report'])))
    p.append('</section>')
    return ''.join(p)


def verdict_md(v):
    lines = ['**%s**%s' % (v['label'], ': ' + v['why'] if v.get('why') else ''), '']
    if v.get('new'):
        lines += ['| new bucket | count | reproduce |', '|---|---|---|']
        lines += ['| %s `%s` | %d | `%s` |' % (_md(b['title']), b['signature'], b['count'], _md(b['repro'] or '-'))
                  for b in v['new']]
        lines.append('')
    return lines


def rewrite(out, verdict):
    """ci/premerge's verdict at the head of a campaign's report.md, .json and .html."""
    doc = read_json(os.path.join(out, 'report.json'), None)
    # Without the campaign's own parts there is no report to put the verdict on
    # (a campaign that never wrote one); the JUnit file and summary still say it.
    if not doc or not all(k in doc for k in ('campaign', 'totals', 'state')):
        return
    doc['verdict'] = verdict
    write_text(os.path.join(out, 'report.md'), markdown(doc))
    write_json(os.path.join(out, 'report.json'), doc)
    write_text(os.path.join(out, 'report.html'), html_page(doc))


# ci/premerge --base: a bucket's place between the builds (cilib/compare, cilib/confirm).
SIDE_STATUSES = ('new', 'pre-existing', 'gone', 'shared', 'mismatch')  # mismatch: patched-only oracle buckets, not failing without --mismatch-fails


def write_sides(out, verdict):
    """ci/premerge --base: OUT/report.html and .md, the verdict over both sides."""
    title = 'Pre-merge check: base vs patched'
    write_text(os.path.join(out, 'report.html'),
               '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>%s</title><style>%s%s</style>'
               '</head><body><h1>%s</h1>%s</body></html>\n' % (title, _BASE_CSS, STYLE, title, verdict_html(verdict)))
    lines = ['# ' + title, ''] + verdict_md(verdict)
    sides = verdict['sides']
    lines += ['| bucket | status | base | patched |', '|---|---|---|---|']
    lines += ['| %s `%s` | %s%s | %d | %d |' % (_md(r['title']), r['signature'], name,
                                                ' (tried again: %s)' % r['tried'] if r.get('tried') else '',
                                                r['base'], r['patched'])
              for name in SIDE_STATUSES for r in sides.get(name, [])]
    lines += ['', 'Each side\'s full report: `%s`, `%s`' % (sides['base_report'], sides['patched_report']), '']
    write_text(os.path.join(out, 'report.md'), '\n'.join(lines))


_BASE_CSS = 'body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}' \
            'th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f0f0f0}'


def write(out, cfg, state, specs, jobs, java_version='', lines=None):
    doc = build(out, cfg, state, specs, jobs, java_version, lines)
    doc['verdict'] = default_verdict(doc)
    paths = [os.path.join(out, 'report.md'), os.path.join(out, 'report.json'),
             os.path.join(out, 'report.html')]
    write_text(paths[0], markdown(doc))
    write_json(paths[1], doc)
    write_text(paths[2], html_page(doc))
    return paths


# --- Markdown ---

def _counts(d):
    return ', '.join('%s %d' % (k, v) for k, v in sorted(d.items(), key=lambda kv: -kv[1])) or '-'


def _md(text):
    return str(text).replace('|', '\\|').replace('\n', ' ')


def markdown(doc):
    c, t, st = doc['campaign'], doc['totals'], doc['state']
    lines = ['# Campaign report: %s' % c['preset'], ''] + verdict_md(doc.get('verdict') or default_verdict(doc)) + [
             '%s after %s of %s. %d of %d planned jobs ran (%d attempts, %d restarts), %s executions; '
             '%d buckets (%d new).' % (st.get('status', '?').capitalize(), hms(st.get('consumed', 0)),
                                       hms(c['budget']), t.get('jobs_ran', t['jobs_started']), t['jobs_planned'],
                                       t['attempts'], t['restarts'], si(t['execs']), t['buckets'],
                                       t['new_buckets']), '']
    if st.get('status') == 'interrupted':
        lines += ['Interrupted: continue with `ci/campaign --resume --out %s`.' % doc['out'], '']
    for w in doc.get('warnings', []):
        lines.append('- warning: %s' % w)
    lines += ['## Campaign', '', '| setting | value |', '|---|---|']
    for k, v in (('preset', c['preset']), ('description', c.get('description') or '-'),
                 ('VM', '%s (%s)' % (c['java_home'], doc.get('java_version') or '?')),
                 ('budget', hms(c['budget'])), ('used', hms(st.get('consumed', 0))),
                 ('sessions', len(st.get('sessions', []))), ('seed', c['seed']),
                 ('parallel -j', c['jobs']), ('jobs per host', _hosts(t)),
                 ('job outcomes', _counts(t['outcomes'])), ('attempt verdicts', _counts(t['verdicts']))):
        lines.append('| %s | %s |' % (k, _md(v)))
    lines += ['', '## Plan', '', '| plan job | kind | parameters | slot | jobs | attempts | verdicts | execs |',
              '|---|---|---|---|---|---|---|---|']
    for r in doc['plan']:
        lines.append('| %s | %s | %s | %ds | %d | %d | %s | %s |' % (
            r['id'], r['kind'], _md(r['desc']), r['job_time'], r['jobs'], r['attempts'],
            _md(_counts(r['verdicts'])), si(r['execs'])))
    lines += ['', '## Throughput', '', throughput_line(t), '']
    lines += ['## Yield by group', '', YIELD_NOTE, '']
    lines += yields.markdown(doc.get('yield') or [])
    lines += ['', '## Walker coverage', ''] + walker.markdown(doc.get('walker'))
    lines += ['', '## Job outcomes', '', '| job | host | CPUs | outcome | attempts | secs | execs | execs/s |',
              '|---|---|---|---|---|---|---|---|']
    for j in doc['jobs']:
        if j['outcome'] == 'not started':
            continue
        lines.append('| %s | %s | %s | %s | %s | %d | %s | %s |' % (
            j['id'], _md(_short_host(j.get('host'))), j.get('cpus') or '-', j['outcome'],
            _md(' '.join('%s' % a['verdict'] for a in j['attempts']) or '-'), j.get('secs', 0), si(j['execs']),
            si(j.get('rate', 0))))
    lines += hangs.markdown(doc.get('hangs') or [], _md, lead=[''])
    calls = t.get('api_calls') or {}
    if calls:
        lines += ['', '## ASGST entry points called', '', '| entry point | calls |', '|---|---|']
        lines += ['| %s | %s |' % (k, si(v)) for k, v in sorted(calls.items())]
    lines += ['']
    tri = doc.get('triage')
    if tri:
        lines += ['## Buckets: where from', '', WHERE_FROM, '',
                  '| bucket | title | count | status | found by | smallest case | rerun of its first attempt |',
                  '|---|---|---|---|---|---|---|']
        for b in tri.get('buckets', []):
            lines.append('| `%s` | %s | %d | %s | %s | %s | %s |' % (
                b['signature'], _md(b['title']), b['count'], b.get('status') or '-',
                _md(', '.join(b.get('found_by', [])[:3]) or '-'), _md(b.get('reproducer') or '-'),
                '`%s`' % _md(b['repro_command']) if b.get('repro_command') else '-'))
        lines.append('')
        md = os.path.join(doc['out'], 'triage', 'report.md')
        if os.path.isfile(md):
            with open(md, encoding='utf-8', errors='replace') as f:
                body = f.read()
            lines.append(re.sub(r'^(#+) ', lambda m: '#' + m.group(1) + ' ', body, flags=re.M))
    else:
        lines.append('No triage report (see triage.log).')
    return '\n'.join(lines) + '\n'


def throughput_line(t):
    """Total and per-kind rates: one job's own rate beside what the whole campaign made."""
    kinds = t.get('rate_by_kind') or {}
    per = '; '.join('%s %s/s per job (median)' % (k, si(v)) for k, v in sorted(kinds.items()))
    return ('Campaign total %s executions (stress: walks) per second of wall time%s. A job\'s rate counts '
            'its own attempts\' seconds.' % (si(t.get('rate', 0)), '; ' + per if per else ''))


def _hosts(t):
    """The jobs per host, as report tables print them ('local' for this machine)."""
    return _counts({_short_host(k): v for k, v in t['hosts'].items()})


def _short_host(h):
    if not h:
        return '-'
    if h == ':':
        return 'local'
    m = re.search(r'(\S+@)?(\S+)$', h)
    return m.group(2) if m else h


# --- HTML ---

def _e(x):
    return html.escape(str(x), quote=True)


def _svg_frame(w, h, body, label, ymax, xlabels):
    x0, y0, x1, y1 = 50, 10, w - 10, h - 30
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">'
             % (w, h, _e(label)), '<rect x="0" y="0" width="%d" height="%d" fill="#fafafa"/>' % (w, h)]
    parts += body
    parts += ['<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (x0, y1, x1, y1),
              '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (x0, y0, x0, y1),
              '<text x="%d" y="%d" font-size="10" text-anchor="end">%s</text>' % (x0 - 4, y0 + 8, _e(si(ymax))),
              '<text x="%d" y="%d" font-size="10" text-anchor="end">0</text>' % (x0 - 4, y1),
              '<text x="%d" y="%d" font-size="10">%s</text>' % (x0, y1 + 14, _e(xlabels[0])),
              '<text x="%d" y="%d" font-size="10" text-anchor="end">%s</text>' % (x1, y1 + 14, _e(xlabels[1])),
              '</svg>']
    return ''.join(parts)


def svg_outcomes(jobs, w=520, h=200):
    """Attempts ending in each time bin, stacked by verdict."""
    atts = [a for j in jobs for a in j['attempts']]
    x0, y0, x1, y1 = 50, 10, w - 10, h - 30
    if not atts:
        return _svg_frame(w, h, ['<text x="%d" y="%d" font-size="12">no attempts yet</text>' % (x0 + 10, y0 + 20)],
                          'attempt outcomes over time', 0, ('', ''))
    ends = [a['start'] + a['secs'] for a in atts]
    t0, t1 = min(a['start'] for a in atts), max(ends)
    nbins = 30
    span = max(1.0, t1 - t0)
    bins = [dict() for _ in range(nbins)]
    for a, e in zip(atts, ends):
        i = min(nbins - 1, int((e - t0) / span * nbins))
        bins[i][a['verdict']] = bins[i].get(a['verdict'], 0) + 1
    ymax = max(1, max(sum(b.values()) for b in bins))
    bw = (x1 - x0) / nbins
    body = []
    for i, b in enumerate(bins):
        y = y1
        for verdict, colour in VERDICT_COLOURS:
            n = b.get(verdict, 0)
            if not n:
                continue
            hh = n / ymax * (y1 - y0)
            y -= hh
            body.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %d</title></rect>'
                        % (x0 + i * bw + 1, y, bw - 2, hh, colour, verdict, n))
    return _svg_frame(w, h, body, 'attempt outcomes over time', ymax,
                      (time.strftime('%H:%M:%S', time.localtime(t0)), time.strftime('%H:%M:%S', time.localtime(t1))))


def svg_line(rows, key, label, w=520, h=200, colour='#4a7bd0'):
    x0, y0, x1, y1 = 50, 10, w - 10, h - 30
    pts = [(r['elapsed'], r[key]) for r in rows if key in r]
    if len(pts) < 2:
        return _svg_frame(w, h, ['<text x="%d" y="%d" font-size="12">not enough samples</text>' % (x0 + 10, y0 + 20)],
                          label, 0, ('', ''))
    xmin, xmax = pts[0][0], max(p[0] for p in pts)
    ymax = max(1.0, max(p[1] for p in pts))
    xs = max(1e-9, xmax - xmin)
    coords = ' '.join('%.1f,%.1f' % (x0 + (x - xmin) / xs * (x1 - x0), y1 - y / ymax * (y1 - y0)) for x, y in pts)
    body = ['<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (colour, coords)]
    return _svg_frame(w, h, body, label, ymax, (hms(xmin), hms(xmax)))


def _triage_html(out):
    path = os.path.join(out, 'triage', 'report.html')
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            page = f.read()
    except OSError:
        return '', '<p>No triage report (see triage.log).</p>'
    style = ''.join(re.findall(r'<style>(.*?)</style>', page, re.S))
    m = re.search(r'<body[^>]*>(.*)</body>', page, re.S)
    body = m.group(1) if m else ''
    body = re.sub(r'<h2([ >])', r'<h3\1', body).replace('</h2>', '</h3>')
    body = re.sub(r'<h1([ >])', r'<h2\1', body).replace('</h1>', '</h2>')
    return style, body


def html_page(doc):
    c, t, st = doc['campaign'], doc['totals'], doc['state']
    tstyle, tbody = _triage_html(doc['out'])
    p = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Campaign report: %s</title>'
         '<style>%s%s</style></head><body>' % (_e(c['preset']), tstyle, STYLE)]
    p.append('<h1>Campaign report: %s</h1>' % _e(c['preset']))
    p.append(verdict_html(doc.get('verdict') or default_verdict(doc)))
    p.append('<p id="summary">%s after %s of %s: %d of %d planned jobs ran (%d attempts, %d restarts), '
             '%s executions; <b>%d buckets (%d new)</b>.</p>'
             % (_e(st.get('status', '?').capitalize()), hms(st.get('consumed', 0)), hms(c['budget']),
                t.get('jobs_ran', t['jobs_started']), t['jobs_planned'], t['attempts'], t['restarts'], si(t['execs']),
                t['buckets'], t['new_buckets']))
    if st.get('status') == 'interrupted':
        p.append('<p>Interrupted: continue with <code>ci/campaign --resume --out %s</code>.</p>' % _e(doc['out']))
    for w in doc.get('warnings', []):
        p.append('<p class="warning">warning: %s</p>' % _e(w))
    p.append('<section id="campaign"><h2>Campaign</h2><table class="kv" id="campaign-settings">')
    for k, v in (('preset', c['preset']), ('description', c.get('description') or '-'),
                 ('VM', '%s (%s)' % (c['java_home'], doc.get('java_version') or '?')),
                 ('budget / used', '%s / %s' % (hms(c['budget']), hms(st.get('consumed', 0)))),
                 ('sessions', len(st.get('sessions', []))), ('seed', c['seed']), ('parallel -j', c['jobs']),
                 ('jobs per host', _hosts(t)),
                 ('job outcomes', _counts(t['outcomes'])), ('attempt verdicts', _counts(t['verdicts']))):
        p.append('<tr><th>%s</th><td>%s</td></tr>' % (_e(k), _e(v)))
    p.append('</table>')
    p.append('<div class="plots">')
    p.append('<figure><figcaption>Attempt outcomes over time</figcaption>%s<div class="legend">%s</div></figure>'
             % (svg_outcomes(doc['jobs']),
                ''.join('<span><i style="background:%s"></i>%s</span>' % (col, v) for v, col in VERDICT_COLOURS)))
    p.append('<figure><figcaption>Executions per second</figcaption>%s</figure>'
             % svg_line(doc['progress'], 'execs_per_s', 'executions per second'))
    p.append('<figure><figcaption>Buckets over time</figcaption>%s</figure>'
             % svg_line(doc['progress'], 'buckets', 'buckets over time', colour='#d0604a'))
    p.append('</div>')
    p.append('<h2>Plan</h2><table id="plan"><thead><tr><th>plan job</th><th>kind</th><th>parameters</th>'
             '<th>slot</th><th>jobs</th><th>attempts</th><th>verdicts</th><th>execs</th></tr></thead><tbody>')
    for r in doc['plan']:
        p.append('<tr><td>%s</td><td>%s</td><td><code>%s</code></td><td class="num">%ds</td><td class="num">%d</td>'
                 '<td class="num">%d</td><td>%s</td><td class="num">%s</td></tr>'
                 % (_e(r['id']), _e(r['kind']), _e(r['desc']), r['job_time'], r['jobs'], r['attempts'],
                    _e(_counts(r['verdicts'])), si(r['execs'])))
    p.append('</tbody></table>')
    p.append('<h2>Throughput</h2><p id="throughput">%s</p>' % _e(throughput_line(t)))
    p += walker.html_section(doc.get('walker'))
    p.append('<h2>Yield by group</h2><p>%s</p><table id="yield"><thead><tr><th>group</th><th>jobs (skipped)</th>'
             '<th>CPU-min</th><th>buckets first found</th><th>VM buckets</th><th>new</th><th>VM buckets per CPU-min</th>'
             '<th>new per CPU-min</th></tr></thead><tbody>' % _e(YIELD_NOTE))
    for r in doc.get('yield') or []:
        p.append('<tr><td>%s</td><td class="num">%d (%d)</td><td class="num">%.1f</td><td class="num">%d</td>'
                 '<td class="num">%d</td><td class="num">%d</td><td class="num">%.2f</td><td class="num">%.2f</td>'
                 '</tr>' % (_e(r['group']), r['jobs'], r.get('skipped', 0), r['cpu_min'], r['buckets'], r['vm'],
                            r['new'], r['per_cpu_min'], r.get('new_per_cpu_min', 0.0)))
    p.append('</tbody></table>')
    ran = [j for j in doc['jobs'] if j['outcome'] != 'not started']
    p.append('<h2>Job outcomes</h2><details%s><summary>%d jobs started (of %d planned)</summary>'
             '<table id="jobs"><thead><tr><th>job</th><th>host</th><th>CPUs</th><th>outcome</th><th>attempts</th>'
             '<th>secs</th><th>execs</th><th>execs/s</th></tr></thead><tbody>'
             % (' open' if len(ran) <= 40 else '', len(ran), len(doc['jobs'])))
    for j in ran:
        p.append('<tr class="%s"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="num">%d</td>'
                 '<td class="num">%s</td><td class="num">%s</td></tr>'
                 % (_e(j['outcome'].split()[0]), _e(j['id']), _e(_short_host(j.get('host'))), _e(j.get('cpus') or '-'),
                    _e(j['outcome']), _e(' '.join(a['verdict'] for a in j['attempts']) or '-'), j.get('secs', 0),
                    si(j['execs']), si(j.get('rate', 0))))
    p.append('</tbody></table></details>')
    p.append(hangs.html_section(doc.get('hangs') or []))
    calls = t.get('api_calls') or {}
    if calls:
        p.append('<h2>ASGST entry points called</h2><table id="api-calls"><thead><tr><th>entry point</th>'
                 '<th>calls</th></tr></thead><tbody>')
        p += ['<tr><td>%s</td><td class="num">%s</td></tr>' % (_e(k), si(v)) for k, v in sorted(calls.items())]
        p.append('</tbody></table>')
    tri = doc.get('triage') or {}
    if tri.get('buckets'):
        p.append('<h2>Buckets: where from</h2><p>%s</p><table id="bucket-sources"><thead><tr><th>bucket</th>'
                 '<th>found by</th><th>smallest case</th><th>rerun of its first attempt</th></tr></thead><tbody>'
                 % _e(WHERE_FROM))
        for b in tri['buckets']:
            found = b.get('found_by', [])
            p.append('<tr><td>%s<br><code>%s</code></td><td>%d job%s<br><code>%s</code></td><td><code>%s</code></td>'
                     '<td><code>%s</code></td></tr>'
                     % (_e(b['title']), _e(b['signature']), len(found), '' if len(found) == 1 else 's',
                        '<br>'.join(_e(j) for j in found[:3]) + ('<br>...' if len(found) > 3 else ''),
                        _e(b.get('reproducer') or '-'), _e(b.get('repro_command') or '-')))
        p.append('</tbody></table>')
    p.append('</section><section id="triage">%s</section></body></html>\n' % tbody)
    return ''.join(p)
