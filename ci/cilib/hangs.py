"""Hung attempts in a campaign report: where each one is, the inputs its fuzzer kept for the
hang (AFL++'s hangs/, libFuzzer's timeout-*), and a command that runs it again. Triage
buckets faults, not hangs, so without this a hang was a count with nothing to act on."""
import glob
import html
import os

from . import rerun

INPUTS = ('hangs/id:*', 'timeout-*')
# A replay of a hang runs until the harness's hang bound (60 s) stops it: one run says it.
REPLAY_RUNS = 1
LIST_MAX = 50  # rows in the Markdown table; report.json keeps them all


def rows(jobs):
    """[{'job', 'dir', 'fuzzer', 'inputs', 'rerun'}] for every attempt whose verdict is hung."""
    out = []
    for j in jobs:
        for a in j.get('attempts', []):
            if a.get('verdict') != 'hung':
                continue
            d = a.get('dir') or ''
            inputs = sorted(p for pat in INPUTS for p in glob.glob(os.path.join(d, pat))) if d else []
            lines = rerun.read_cmd(d)
            fuzzer = rerun.is_fuzzer(lines) if lines else j.get('kind') != 'stress'
            cmd = None
            if fuzzer and lines and inputs:
                cmd = rerun.replay(rerun.replay_env(d), inputs[0], REPLAY_RUNS, rerun.java_home(lines))
            elif not fuzzer and lines:
                cmd = rerun.stress(lines, 'rerun-%s' % os.path.basename(d))
            out.append({'job': j['id'], 'dir': d, 'fuzzer': fuzzer, 'inputs': inputs, 'rerun': cmd})
    return out


def _inputs(r):
    if r['inputs']:
        return ', '.join(os.path.relpath(p, r['dir']) for p in r['inputs'])
    if r.get('fuzzer'):
        return 'none found'
    return "none: a stress job's VM outlived its time limit; its thread dump is in the attempt's log"


def markdown(hung, md, lead=()):
    """Lines of the report's Hangs section, after `lead`; none without hangs. md escapes a
    table cell."""
    if not hung:
        return []
    lines = list(lead) + ['## Hangs', '', '%d hung attempt%s. An input kept for a hang replays until the harness '
             'gives up on it (60 s) and says so.' % (len(hung), '' if len(hung) == 1 else 's'), '',
             '| job | attempt | inputs kept | rerun |', '|---|---|---|---|']
    for r in hung[:LIST_MAX]:
        lines.append('| %s | %s | %s | %s |' % (md(r['job']), md(r['dir']), md(_inputs(r)),
                                                '`%s`' % md(r['rerun']) if r['rerun'] else '-'))
    if len(hung) > LIST_MAX:
        lines += ['', '%d more in report.json (`hangs`).' % (len(hung) - LIST_MAX)]
    return lines


def html_section(hung):
    if not hung:
        return ''
    e = html.escape
    p = ['<h2>Hangs</h2><table id="hangs"><thead><tr><th>job</th><th>attempt</th><th>inputs kept</th>'
         '<th>rerun</th></tr></thead><tbody>']
    for r in hung:
        p.append('<tr><td>%s</td><td><code>%s</code></td><td><code>%s</code></td><td><code>%s</code></td></tr>'
                 % (e(r['job']), e(r['dir']), e(_inputs(r)), e(r['rerun'] or '-')))
    p.append('</tbody></table>')
    return ''.join(p)
