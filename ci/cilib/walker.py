"""Walker coverage of a campaign: the union of its jobs' walker-coverage.txt files.

Each fuzzer job (ASGF_WALKER_COV, on by default) and each stress job (agent option
walker_cov=1, which ci/job sets) writes the libjvm blocks it reached, by module offset, with
a header giving the totals armed (docs/walker-coverage.md). Jobs of one campaign run one
libjvm, so offsets from different jobs name the same blocks and the union is a set union.
"""
import os
import re
import subprocess
from html import escape

from . import util  # noqa: F401  (puts crash-triage on the path)
from ctlib.collect import sysroot_of
from ctlib.symbolize import elf_build_id, root_debug_file

HEADER = re.compile(r'^# walker coverage of (\S+): \d+ of (\d+) blocks, \d+ of (\d+) functions')
ARMED_HEADER = re.compile(r'^# walker blocks armed in (\S+): ')


def _listing(path, header):
    """Both block files share one layout: a header line, then 'OFFSET FUNCTION' lines.
    (header match or None, [(offset, function)]); (None, []) if unreadable or another header."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().splitlines()
    except OSError:
        return None, []
    m = header.match(lines[0]) if lines else None
    if not m:
        return None, []
    return m, [(off, fn) for off, _, fn in (l.partition(' ') for l in lines[1:]) if off.startswith('0x')]


def union(tree, offsets=False):
    """{'module', 'sysroot' (the root a JDK ran in, else None), 'blocks', 'functions', 'reached',
    'by_function': {name: n}, 'files'}, with
    'offsets' (the reached blocks) if asked; None if no job wrote the file."""
    reached, by_fn, files = {}, {}, 0
    module, blocks, functions, sysroot = '', 0, 0, None
    for root, _dirs, names in os.walk(tree):
        if 'walker-coverage.txt' not in names:
            continue
        m, entries = _listing(os.path.join(root, 'walker-coverage.txt'), HEADER)
        if not m:
            continue
        files += 1
        if not module:
            # a JDK run in a root names its libjvm by the root's path
            module, sysroot = m.group(1), sysroot_of(root)
        blocks, functions = max(blocks, int(m.group(2))), max(functions, int(m.group(3)))
        for off, fn in entries:
            reached.setdefault(off, fn)
    if not files:
        return None
    for fn in reached.values():
        by_fn[fn] = by_fn.get(fn, 0) + 1
    return {'module': module, 'sysroot': sysroot, 'blocks': blocks, 'functions': functions, 'reached': len(reached),
            'functions_reached': len(by_fn), 'by_function': by_fn, 'files': files,
            **({'offsets': sorted(reached)} if offsets else {})}


def counts(cov):
    """'N of M blocks (K of F functions)', or 'none recorded'."""
    if not cov:
        return 'none recorded'
    return '%d of %d blocks (%d of %d functions)' % (
        cov['reached'], cov['blocks'], cov['functions_reached'], cov['functions'])


def line(cov):
    """One line for a report: 'walker coverage: N of M blocks (K of F functions), union of J jobs'."""
    if not cov:
        return 'walker coverage: none recorded (no job wrote walker-coverage.txt)'
    return 'walker coverage: %s, union of %d jobs' % (counts(cov), cov['files'])


def markdown(cov, top=15):
    """The report's section: the line, the functions with the most blocks reached, and the
    source files with the most lines reached."""
    out = [line(cov), '']
    if cov and cov['by_function']:
        out += ['| function | blocks reached |', '|---|---|']
        for fn, n in sorted(cov['by_function'].items(), key=lambda kv: (-kv[1], kv[0]))[:top]:
            out.append('| `%s` | %d |' % (fn, n))
        if len(cov['by_function']) > top:
            out.append('| and %d more (report.html lists them all) | |' % (len(cov['by_function']) - top))
    src = (cov or {}).get('source_lines') or {}
    unreached = (cov or {}).get('source_unreached') or {}
    if src:
        out += ['', '| source file | lines reached (first lines of reached blocks) | armed lines not reached |',
                '|---|---|---|']
        for f, lines in sorted(src.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:top]:
            out.append('| `%s` | %d | %s |' % (f, len(lines), len(unreached[f]) if f in unreached else '?'))
        if len(src) > top:
            out.append('| and %d more (report.html lists them all) | | |' % (len(src) - top))
    elif cov:
        out += ['', no_lines_note(cov)]
    return out


def no_lines_note(cov):
    """Why a report with walker coverage names no source lines."""
    if cov.get('sysroot') and not os.path.isfile(os.path.join(cov['sysroot'], cov['module'].lstrip('/'))):
        return ('No source lines: the JDK ran in the root %s, which has no %s on this machine.'
                % (cov['sysroot'], cov['module']))
    return ('No source lines: the module has no line tables here (install its -dbg package%s).'
            % (' in the root %s' % cov['sysroot'] if cov.get('sysroot') else ''))


def block_lines(module, offsets, sysroot=None, timeout=120):
    """{offset: (source file base name, line)} of the blocks at these offsets, through addr2line
    (one answer line per address) and the module's line tables (its -dbg file by build-id,
    where the distribution ships one); {} where there are none, no addr2line, or the module is
    not on this machine. A module of a JDK run in a root is the root's file (the same path on
    the host may be another JDK), read through the root's -dbg file when there is one."""
    if sysroot and module:
        inner = os.path.join(sysroot, module.lstrip('/'))
        module = (root_debug_file(sysroot, elf_build_id(inner)) or inner) if os.path.isfile(inner) else None
    if not offsets or not module or not os.path.isfile(module):
        return {}
    try:
        res = subprocess.run(['addr2line', '-e', module], input='\n'.join(offsets) + '\n', capture_output=True,
                             text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return {}
    where = {}
    for off, out in zip(offsets, res.stdout.splitlines()):
        path, _, rest = out.partition(':')
        line = rest.split(' ', 1)[0]
        if path and path != '??' and line.isdigit() and line != '0':
            where[off] = (os.path.basename(path), int(line))
    return where


def _by_file(places):
    """(file, line) pairs -> {file: sorted distinct lines}."""
    files = {}
    for f, line in places:
        files.setdefault(f, set()).add(line)
    return {f: sorted(v) for f, v in files.items()}


def armed_offsets(tree, module):
    """The offsets of every armed block, from TREE/walker-blocks.txt (written once per campaign
    by its first job to end, ci/job), if it names the same module; else []."""
    m, entries = _listing(os.path.join(tree, 'walker-blocks.txt'), ARMED_HEADER)
    if not m or m.group(1) != module:
        return []
    return [off for off, _fn in entries]


def ranges(lines):
    """[3, 4, 5, 9] -> '3-5, 9'."""
    out, start, prev = [], None, None
    for n in lines:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(str(start) if start == prev else '%d-%d' % (start, prev))
            start = prev = n
    if start is not None:
        out.append(str(start) if start == prev else '%d-%d' % (start, prev))
    return ', '.join(out)


def summary(tree, lines=True):
    """What a report keeps: union() without the offsets, plus, when line tables exist and
    `lines` (addr2line takes seconds: not while a signal waits for the tool to end),
    'source_lines' (reached) and, when the campaign's armed list is there, 'source_unreached':
    the lines of armed blocks that no reached block starts on."""
    cov = union(tree, offsets=True)
    if cov:
        offsets = cov.pop('offsets')
        armed = armed_offsets(tree, cov['module'])
        # One addr2line run for both lists: the reached blocks are among the armed.
        where = block_lines(cov['module'], sorted(set(offsets) | set(armed)), cov['sysroot']) if lines else {}
        cov['source_lines'] = _by_file(where[o] for o in offsets if o in where)
        missed = _by_file(where[o] for o in armed if o in where)
        cov['source_unreached'] = {f: sorted(set(v) - set(cov['source_lines'].get(f, ()))) for f, v in missed.items()}
    return cov


def html_section(cov):
    """The report.html section: the line, every function reached (folded), and per source file
    the lines reached and the armed lines not reached, as ranges."""
    p = ['<h2>Walker coverage</h2><p id="walker-coverage">%s</p>' % escape(line(cov))]
    w = cov or {}
    by_fn = w.get('by_function') or {}
    if by_fn:
        p.append('<details><summary>%d functions reached</summary><table id="walker-functions"><thead><tr>'
                 '<th>function</th><th>blocks reached</th></tr></thead><tbody>' % len(by_fn))
        p += ['<tr><td><code>%s</code></td><td class="num">%d</td></tr>' % (escape(fn), n)
              for fn, n in sorted(by_fn.items(), key=lambda kv: (-kv[1], kv[0]))]
        p.append('</tbody></table></details>')
    src, unreached = w.get('source_lines') or {}, w.get('source_unreached') or {}
    if src or unreached:
        # Files no job reached stay in the list: the lines of the walker nobody tested.
        p.append('<table id="walker-lines"><thead><tr><th>source file</th><th>lines reached</th><th></th>'
                 '<th>armed lines not reached</th><th></th></tr></thead><tbody>')
        for f in sorted(set(src) | set(unreached), key=lambda f: (-len(src.get(f, ())), f)):
            hit, miss = src.get(f, []), unreached.get(f)
            p.append('<tr><td><code>%s</code></td><td class="num">%d</td><td>%s</td><td class="num">%s</td>'
                     '<td>%s</td></tr>' % (escape(f), len(hit), escape(ranges(hit)),
                                           '?' if miss is None else len(miss), escape(ranges(miss or []))))
        p.append('</tbody></table>')
        if not unreached:
            p.append('<p>Lines not reached: not known. They come from <code>results/walker-blocks.txt</code>, '
                     'written by the campaign\'s first local job to end, through the module\'s line tables; '
                     'that file is missing here, names another module, or its lines could not be looked up.</p>')
    elif cov:
        p.append('<p>%s</p>' % escape(no_lines_note(cov)))
    return p
