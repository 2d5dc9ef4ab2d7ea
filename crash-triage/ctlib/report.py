"""report.md, report.json and a self-contained report.html for a bucket store."""
import glob
import html
import json
import os
import re
import time

from .outdir import write_atomic

REPRO = 'crash-triage/repro {bucket}'
NO_REPRO = 'no case to run again (none of its reports carried one)'


HEX_RE = re.compile(r'^[0-9a-fA-F]+$')
SIG_THEN_TEXT_RE = re.compile(r'^([0-9a-fA-F]{6,64})\s+(\S.*)$')
TITLE_LIKE_RE = re.compile(r'^[A-Z][A-Za-z_-]* in \S')


class KnownError(ValueError):
    """A known-buckets line that is neither a signature nor a title, with its position."""


KNOWN_HEADER = re.compile(r'^#\s*(vm-version|libjvm-build-id|debug-info):\s*(\S+)\s*$')
KNOWN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'ci', 'known')


def known_headers(path):
    """{'vm-version', 'libjvm-build-id', 'debug-info'} of a known list's head (ci/known-list
    writes them), as far as it has them."""
    out = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = KNOWN_HEADER.match(line)
            if m:
                out[m.group(1)] = m.group(2)
            elif line.strip() and not line.startswith('#'):
                break
    return out


def shipped_known_lists(build_ids, directory=KNOWN_DIR):
    """The lists in ci/known/ made for a libjvm of build_ids, sorted (a triage without --known
    names them: ci/campaign and ci/premerge take the one of their VM by themselves)."""
    ids = {b for b in build_ids if b}
    found = []
    for path in sorted(glob.glob(os.path.join(directory, '*.known'))):
        try:
            if known_headers(path).get('libjvm-build-id') in ids:
                found.append(path)
        except (OSError, ValueError):      # unreadable, or not UTF-8: no list of ours
            continue
    return found


def load_known(path, rules=None, warn=None):
    """Known buckets: one signature or exact title a line, '#' comments.

    The line `crash-triage/triage --signature` prints, 'SIGNATURE  # TITLE', is a
    signature with its title as a comment.  With rules, such a title is checked against
    its signature and warn(message) is called when they disagree (the list was made
    with other rules or --top: the signature will not match any more).  A hex word of
    the wrong length, or a signature followed by text without '#', raises KnownError
    naming the line: it would silently never match."""
    digits = rules.digits if rules is not None else None
    known = set()
    with open(path, encoding='utf-8', errors='replace') as f:
        for lineno, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith('#'):
                continue
            comment = None
            m = re.search(r'\s#', s)           # trailing comment, after a space or a tab
            if m:
                s, comment = s[:m.start()].rstrip(), s[m.end():].strip()
            where = '%s line %d' % (path, lineno)
            if '\ufffd' in s or re.search(r'[\x00-\x08\x0b-\x1f\x7f]', s):
                # no title holds these: a binary file, or one in another encoding
                raise KnownError('%s: not text (a byte that is no UTF-8 or a control character): '
                                 'not a list of signatures and titles' % where)
            if HEX_RE.match(s) and digits and len(s) != digits and ' ' not in s:
                raise KnownError('%s: %r looks like a signature but has %d hex digits, not %d'
                                 % (where, s, len(s), digits))
            m = SIG_THEN_TEXT_RE.match(s)
            if m and (digits is None or len(m.group(1)) == digits):
                raise KnownError("%s: a signature followed by text; write 'SIGNATURE  # TITLE' "
                                 "(the title is a comment)" % where)
            if HEX_RE.match(s) and comment and rules is not None and warn is not None \
                    and TITLE_LIKE_RE.match(comment):
                want = rules.signature(comment)
                if want.lower() != s.lower():
                    warn('%s: signature %s is not that of its title (%s under these rules '
                         'and --top): made with other rules?' % (where, s, want))
            # Signatures are lower-case hex; one typed in upper case names the same bucket.
            known.add(s.lower() if HEX_RE.match(s) else s)
    return known


def summarize(store, known=None, skipped=0):
    buckets = []
    for sig, b in store.buckets.items():
        if not b.get('members'):
            continue
        status = 'suppressed' if b.get('suppressed') else None
        if known is not None and status is None:
            names = {sig, b['title']} | {x for f in b.get('folded', []) for x in (f['signature'], f['title'])}
            status = 'known' if names & known else 'new'
        buckets.append({
            'signature': sig, 'title': b['title'], 'alt': b.get('alt'), 'frame': b.get('frame'),
            'module': b.get('module'),
            'signal': b.get('signal'), 'count': b['count'], 'sources': b['sources'],
            'via': b.get('via') or {}, 'counted_only': b.get('counted_only', 0),
            'folded': b.get('folded', []),
            'first_seen': b['first_seen'], 'last_seen': b['last_seen'],
            'first_seen_ts': b.get('first_seen_ts'), 'status': status,
            'suppressed': b.get('suppressed'), 'tainted': b.get('tainted'), 'cut': b.get('cut'),
            'representative': b['representative']['path'],
            'representative_copy': os.path.join('buckets', sig, b['representative']['copy'])
            if b['representative'].get('copy') else None,
            'smallest_case': os.path.join('buckets', sig, 'smallest.case') if b.get('smallest_case') else None,
            # 'artifact' (a fuzzer's crash input triage replayed), {'runs', 'reports', 'same'} of
            # triage's own replay of it (verify.py), or None: not tried
            'smallest_case_replayed': (b.get('smallest_case') or {}).get('replayed'),
            # repro runs a bucket's case: one with none (hs_err files alone, ASan reports) has no command
            'repro': REPRO.format(bucket=os.path.join(store.out, 'buckets', sig)) if b.get('smallest_case') else None,
            'times': [m['time'] for m in b['members'] if m.get('time') is not None],
        })
    buckets.sort(key=lambda x: (-x['count'], x['title']))
    needs = [{'path': p, 'kind': e.get('kind')} for p, e in store.needs_replay()]
    invalid = [{'path': p, 'reason': e.get('reason')} for p, e in store.invalid() if not store.no_fault(e)]
    no_fault = [{'path': p, 'reason': e.get('reason')} for p, e in store.invalid() if store.no_fault(e)]
    totals = {
        'reports': sum(b['count'] for b in buckets),
        'buckets': len(buckets),
        'new': sum(1 for b in buckets if b['status'] == 'new'),
        'known': sum(1 for b in buckets if b['status'] == 'known'),
        'suppressed': sum(1 for b in buckets if b['status'] == 'suppressed'),
        'needs_replay': len(needs), 'invalid': len(invalid), 'no_fault': len(no_fault), 'ignored_files': skipped,
        'counted_without_record': getattr(store, 'unbucketed', 0),
        'counted_probes': getattr(store, 'counted_probes', 0),
    }
    return {'generated': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
            'totals': totals, 'buckets': buckets, 'needs_replay': needs, 'invalid': invalid, 'no_fault': no_fault}


def write_all(out, summary):
    paths = {}
    js = dict(summary)
    js['buckets'] = [{k: v for k, v in b.items() if k != 'times'} for b in summary['buckets']]
    p = os.path.join(out, 'report.json')
    write_atomic(p, json.dumps(js, indent=1, sort_keys=True) + '\n')
    paths['json'] = p
    p = os.path.join(out, 'report.md')
    write_atomic(p, markdown(summary))
    paths['md'] = p
    p = os.path.join(out, 'report.html')
    write_atomic(p, html_page(summary))
    paths['html'] = p
    return paths


def _sources(s):
    return ', '.join('%s %d' % (k, v) for k, v in sorted(s.items()) if v) or '-'


def _md_cell(s):
    return str(s if s is not None else '-').replace('|', '\\|').replace('\n', ' ')


def via_text(b):
    """' (reached via X 3, Y 1)' from a bucket's entry-point counts, '' when unknown."""
    via = b.get('via') or {}
    if not via or list(via) == ['unknown']:
        return ''
    return ' (reached via %s)' % ', '.join('%s %d' % (k, n) for k, n in
                                           sorted(via.items(), key=lambda x: (-x[1], x[0])))


def tainted_text(b):
    """'; only after ...' when every report of a bucket came after a fault inside a call
    that changes VM state (docs/crash-record.md, `tainted`)."""
    t = b.get('tainted')
    if not t:
        return ''
    op, _, key = t.partition(' ')
    return ('; only seen after a caught fault inside %s (key %s) in the same process: may be its '
            'aftermath, confirm with repro' % (op, key))


def title_notes(b):
    """What the report tables add to a bucket's title: its entries, folds, taint and cut reports."""
    return via_text(b) + folded_text(b) + tainted_text(b) + cut_text(b)


def cut_text(b):
    """'; only from truncated reports ...' when no report of a bucket is whole: its frames may
    stop early, so the whole report of the same fault may have another title."""
    cut = b.get('cut')
    if not cut:
        return ''
    return ('; only from %s reports: the backtrace may stop early, so a whole report of the same '
            'fault may bucket elsewhere' % ' or '.join(cut))


def folded_text(b):
    """'; also: T1, T2' for the shallower unwinds a bucket took in (Store.fold)."""
    f = b.get('folded') or []
    return '; also %s (backtraces that ended early)' % ', '.join(x['title'] for x in f) if f else ''


def counted_text(t):
    """The faults the harnesses only counted that are in no bucket, as a sentence ('' if none)."""
    parts = []
    if t.get('counted_without_record'):
        parts.append('%d under keys with no record here (the record cap was reached first)'
                     % t['counted_without_record'])
    if t.get('counted_probes'):
        parts.append('%d under keys whose records are probe faults, set aside with them' % t['counted_probes'])
    return ' Faults only counted, in no bucket: %s.' % '; '.join(parts) if parts else ''


NO_FAULT_HEAD = 'Fuzzer artifacts that did not fault again on replay'


def no_fault_text(t):
    """The count of fuzzer artifacts whose replay ran clean, as a clause ('' for none): not
    damaged files, but faults that needed the state of the run that met them."""
    n = t.get('no_fault') or 0
    return '; %d fuzzer artifact%s did not fault again on replay' % (n, '' if n == 1 else 's') if n else ''


def markdown(summary):
    t = summary['totals']
    out = ['# Crash triage report', '',
           'Generated %s. %d reports in %d buckets (%d new, %d known, %d suppressed); '
           '%d fuzzer artifacts need a replay; %d files were detected but unparsable%s.'
           % (summary['generated'], t['reports'], t['buckets'], t['new'], t['known'],
              t['suppressed'], t['needs_replay'], t['invalid'], no_fault_text(t)) + counted_text(t), '',
           '| # | title | count | sources | first seen | last seen | status | representative | reproduce |',
           '|---|---|---|---|---|---|---|---|---|']
    for i, b in enumerate(summary['buckets'], 1):
        out.append('| %d | %s `%s` | %d | %s | %s | %s | %s | %s | %s%s |' % (
            i, _md_cell(b['title'] + title_notes(b)), b['signature'], b['count'], _md_cell(_sources(b['sources'])),
            _md_cell(b['first_seen']), _md_cell(b['last_seen']), _md_cell(b['status']),
            _md_cell(b['representative']), '`%s`' % b['repro'] if b['repro'] else NO_REPRO, _md_cell(replay_note(b))))
    if summary['needs_replay']:
        out += ['', '## Fuzzer artifacts that need a replay', '']
        out += ['- `%s`' % n['path'] for n in summary['needs_replay']]
    if summary['invalid']:
        out += ['', '## Detected but not parsable', '']
        out += ['- `%s`: %s' % (n['path'], n['reason']) for n in summary['invalid']]
    if summary.get('no_fault'):
        out += ['', '## ' + NO_FAULT_HEAD, '']
        out += ['- `%s`: %s' % (n['path'], n['reason']) for n in summary['no_fault']]
    return '\n'.join(out) + '\n'


def replay_note(b):
    """What is known of whether the bucket's smallest case faults again in a fresh JVM, as
    a phrase to follow its reproduce command ('' when nothing is)."""
    r = b.get('smallest_case_replayed')
    if not isinstance(r, dict):
        return ''
    if r.get('same'):
        return ' (its case faulted again in a fresh JVM)'
    if r.get('hung'):
        return ' (its case hung in a fresh JVM: no answer within %d s)' % r['hung']
    return (' (no saved case of this bucket faulted again in a fresh JVM, %d walks each: its fault '
            'needs the state of the run that met it)' % (r.get('runs') or 0))


CSS = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}tr.new td{background:#fff4e5}tr.suppressed td{color:#888}
code{font-size:12px}.plots{display:flex;gap:2em;flex-wrap:wrap}
figure{margin:0}figcaption{font-size:13px;margin-bottom:4px}"""


def _axis_label(t):
    return time.strftime('%Y-%m-%d %H:%M', time.gmtime(t))


def svg_histogram(times, title, width=520, height=200, bins=30):
    e = html.escape
    pad_l, pad_b, pad_t = 40, 30, 10
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
             'aria-label="%s">' % (width, height, e(title))]
    parts.append('<rect x="0" y="0" width="%d" height="%d" fill="#fafafa"/>' % (width, height))
    if not times:
        parts.append('<text x="%d" y="%d" font-size="12">no data</text></svg>' % (width // 2 - 20, height // 2))
        return ''.join(parts)
    lo, hi = min(times), max(times)
    span = max(hi - lo, 1.0)
    counts = [0] * bins
    for t in times:
        counts[min(int((t - lo) / span * bins), bins - 1)] += 1
    top = max(counts)
    pw, ph = width - pad_l - 10, height - pad_b - pad_t
    bw = pw / bins
    for i, c in enumerate(counts):
        if not c:
            continue
        h = ph * c / top
        parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#4a7bd0"><title>%d</title></rect>'
                     % (pad_l + i * bw + 1, pad_t + ph - h, max(bw - 2, 1), h, c))
    parts.append(_axes(pad_l, pad_t, pw, ph, top, lo, hi))
    parts.append('</svg>')
    return ''.join(parts)


def svg_cumulative(times, title, width=520, height=200):
    e = html.escape
    pad_l, pad_b, pad_t = 40, 30, 10
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
             'aria-label="%s">' % (width, height, e(title))]
    parts.append('<rect x="0" y="0" width="%d" height="%d" fill="#fafafa"/>' % (width, height))
    times = sorted(times)
    if not times:
        parts.append('<text x="%d" y="%d" font-size="12">no data</text></svg>' % (width // 2 - 20, height // 2))
        return ''.join(parts)
    lo, hi = times[0], times[-1]
    span = max(hi - lo, 1.0)
    pw, ph = width - pad_l - 10, height - pad_b - pad_t
    n = len(times)
    pts = ['%.1f,%.1f' % (pad_l, pad_t + ph)]
    for i, t in enumerate(times, 1):
        x = pad_l + pw * (t - lo) / span
        pts.append('%.1f,%.1f' % (x, float(pts[-1].split(',')[1])))
        pts.append('%.1f,%.1f' % (x, pad_t + ph - ph * i / n))
    pts.append('%.1f,%.1f' % (pad_l + pw, pad_t + ph - ph))
    parts.append('<polyline fill="none" stroke="#d0604a" stroke-width="2" points="%s"/>' % ' '.join(pts))
    parts.append(_axes(pad_l, pad_t, pw, ph, n, lo, hi))
    parts.append('</svg>')
    return ''.join(parts)


def _axes(x, y, w, h, top, lo, hi):
    e = html.escape
    return ('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (x, y + h, x + w, y + h) +
            '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (x, y, x, y + h) +
            '<text x="%d" y="%d" font-size="10" text-anchor="end">%d</text>' % (x - 4, y + 8, top) +
            '<text x="%d" y="%d" font-size="10" text-anchor="end">0</text>' % (x - 4, y + h) +
            '<text x="%d" y="%d" font-size="10">%s</text>' % (x, y + h + 14, e(_axis_label(lo))) +
            '<text x="%d" y="%d" font-size="10" text-anchor="end">%s</text>' % (x + w, y + h + 14, e(_axis_label(hi))))


def html_page(summary):
    e = html.escape
    t = summary['totals']
    all_times = [x for b in summary['buckets'] for x in b['times']]
    firsts = [b['first_seen_ts'] for b in summary['buckets'] if b.get('first_seen_ts') is not None]
    rows = []
    for i, b in enumerate(summary['buckets'], 1):
        rows.append('<tr class="%s"><td>%d</td><td>%s<br><code>%s</code></td><td>%d</td><td>%s</td>'
                    '<td>%s</td><td>%s</td><td>%s</td><td><code>%s</code></td><td><code>%s</code></td></tr>' % (
                        e(b['status'] or ''), i, e(b['title'] + title_notes(b)), e(b['signature']), b['count'],
                        e(_sources(b['sources'])), e(b['first_seen'] or '-'), e(b['last_seen'] or '-'),
                        e(b['status'] or '-'), e(b['representative']), e(b['repro'] or NO_REPRO)))
    extra = ''
    if summary['needs_replay']:
        extra += '<h2>Fuzzer artifacts that need a replay</h2><ul>%s</ul>' % ''.join(
            '<li><code>%s</code></li>' % e(n['path']) for n in summary['needs_replay'])
    if summary['invalid']:
        extra += '<h2>Detected but not parsable</h2><ul>%s</ul>' % ''.join(
            '<li><code>%s</code>: %s</li>' % (e(n['path']), e(n['reason'] or '')) for n in summary['invalid'])
    if summary.get('no_fault'):
        extra += '<h2>%s</h2><ul>%s</ul>' % (e(NO_FAULT_HEAD), ''.join(
            '<li><code>%s</code>: %s</li>' % (e(n['path']), e(n['reason'] or '')) for n in summary['no_fault']))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Crash triage report</title>'
            '<style>%s</style></head><body><h1>Crash triage report</h1>'
            '<p>Generated %s: %d reports in %d buckets (%d new, %d known, %d suppressed), '
            '%d artifacts need a replay, %d unparsable%s.%s</p>'
            '<div class="plots"><figure><figcaption>Crashes over time</figcaption>%s</figure>'
            '<figure><figcaption>New buckets over time (cumulative)</figcaption>%s</figure></div>'
            '<h2>Buckets</h2><table id="buckets"><thead><tr><th>#</th><th>title / signature</th><th>count</th>'
            '<th>sources</th><th>first seen</th><th>last seen</th><th>status</th><th>representative</th>'
            '<th>reproduce</th></tr></thead><tbody>%s</tbody></table>%s</body></html>\n' % (
                CSS, e(summary['generated']), t['reports'], t['buckets'], t['new'], t['known'],
                t['suppressed'], t['needs_replay'], t['invalid'], e(no_fault_text(t)), e(counted_text(t)),
                svg_histogram(all_times, 'crashes over time'),
                svg_cumulative(firsts, 'new buckets over time'), ''.join(rows), extra))
