"""Crash text that is not a whole hs_err file: what VM engineers paste into bug trackers
and mail.  A 'Native frames:' block, the '# Problematic frame:' lines of the header, a
'Stack:' line and some frames, or just a few 'V  [libjvm.so+0x...]' lines, from any JDK
(6 to 25) and architecture.

Such text is a report as soon as it holds one recognizable frame list.  It is flagged
'fragment' plus what it lacks ('no-header', 'no-signal-info', 'no-registers'), so that
a bucket made only of fragments says why it has no pid, no si_addr or no case.  Lines
read as in a whole file (frames, signal, siginfo, thread, maps) follow hserr_grammar."""
import re

from .hserr_grammar import (HEADER_RE, ID_RE, INTERNAL_RE, JRE_RE, SIGNAL_RE, THREAD_RE, apply_signal_line,
                            classify_native_oom, maps_block, module_paths, parse_frame, parse_siginfo, read_frames)
from .model import NotAReport, Report, bounded_lines, decode, one_line

# Cheap test over the first MB: a frame line with a module, or a line that starts a
# frame list.  Most files in a crash tree fail it without a line-by-line scan.
PREFILTER_RE = re.compile(r'^[ \t>|]*#?[ \t]*(?:[VvCJjA][ \t]+\[[^\]\s]+\+0x[0-9a-fA-F]+\]'
                          r'|Native frames:|Java frames:|Problematic frame:|Stack:)', re.M)
# Mail quoting ('> '), table pipes and indentation that trackers and list archives add.
QUOTE_RE = re.compile(r'^[ \t]*(?:[>|][ \t]?)*[ \t]*')
REGISTERS_RE = re.compile(r'^(?:Registers:|(?:RAX|EAX|R0|X0|RIP|EIP)=0x)')
CONSOLE_COPY = 'An error report file with more information is saved as'
MAX_LINES = 20000          # a fragment is short; the frame list is near the top
LIST_STARTS = ('Native frames:', 'Java frames:')


def _clean(line):
    return QUOTE_RE.sub('', line, count=1).rstrip()


def detect(head_text):
    """True if the text holds a recognizable frame list."""
    if not PREFILTER_RE.search(head_text):
        return False
    return bool(_frame_lists([_clean(l) for l in bounded_lines(head_text)[:MAX_LINES]]))


def _read(lines, i):
    """Frames from lines[i:], up to the first line that is not one; (frames, next, notes)."""
    frames, i, notes, _ = read_frames(lines, i)
    return frames, i, notes


def _frame_lists(lines):
    """{'native': (frames, notes), 'java': ..., 'problematic': Frame} found in the lines.

    'Native frames:' wins; a 'Stack:' line or a bare run of module frames counts as
    native frames when no such block is there (JDK 6 pastes often drop that line)."""
    found = {}
    i, n = 0, len(lines)
    while i < n:
        s = lines[i]
        if s.startswith(LIST_STARTS):
            key = 'native' if s.startswith('Native') else 'java'
            frames, j, notes = _read(lines, i + 1)
            if frames and key not in found:
                found[key] = (frames, notes)
            i = max(j, i + 1)
            continue
        if s.lstrip('#').strip().startswith('Problematic frame:'):
            if i + 1 < n and 'problematic' not in found:
                fr = parse_frame(lines[i + 1].lstrip('#').strip())
                if fr is not None:
                    found['problematic'] = fr
            i += 2
            continue
        if s.startswith('Stack:'):
            j = i + 1
            if j < n and lines[j].startswith('Native frames:'):
                i = j
                continue
            frames, j, notes = _read(lines, j)
            if frames and 'native' not in found and 'bare' not in found:
                found['bare'] = (frames, notes)
            i = max(j, i + 1)
            continue
        fr = parse_frame(s.strip()) if s and s[0] in 'VvCJjA' else None
        if fr is not None and fr.module is not None:
            frames, j, notes = _read(lines, i)
            if frames and 'bare' not in found:
                found['bare'] = (frames, notes)
            i = max(j, i + 1)
            continue
        i += 1
    if 'bare' in found and 'native' not in found:
        found['native'] = found['bare']
    found.pop('bare', None)
    return found


def _header_fields(lines, rep):
    """Signal, thread, siginfo and version lines wherever they are; returns
    (had a header line, had signal info, had registers)."""
    header = signal = regs = False
    want_message = False
    for k, s in enumerate(lines):
        if HEADER_RE.match(s):
            header = True
        m = SIGNAL_RE.match(s)
        if m and rep.signal is None:
            apply_signal_line(rep, m)
            signal = True
            continue
        m = INTERNAL_RE.match(s)
        if m and rep.signal is None:
            rep.signal = 'INTERNAL' if m.group(1) == 'Internal Error' else 'OOM'
            rep.extra['location'] = m.group(2)
            signal = want_message = True
            continue
        if want_message:
            body = s.lstrip('#').strip()
            if body:
                rep.message = one_line(body, 300)
                want_message = False
            continue
        if s.startswith('siginfo:'):
            si = parse_siginfo(s)
            if si:
                if rep.signal is None and si[0]:
                    rep.signal, rep.signo = si[0], si[1]
                rep.si_code, rep.si_addr = si[2], si[4]
                signal = True
            continue
        if s.startswith('Current thread ('):
            m = THREAD_RE.match(s)
            if m:
                rep.thread = m.group(3)
                im = ID_RE.search(m.group(4) or '')
                if im:
                    rep.tid = int(im.group(1))
            continue
        m = JRE_RE.match(s)
        if m:
            rep.extra['jdk'] = (m.group(1) or m.group(2)).strip()
            continue
        if REGISTERS_RE.match(s):
            regs = True
    return header, signal, regs


def parse(data, path):
    text = decode(data)
    lines = [_clean(l) for l in bounded_lines(text)[:MAX_LINES]]
    if any(CONSOLE_COPY in l for l in lines):
        # the JVM's console copy of an hs_err header: the report itself is a file
        raise NotAReport('JVM console copy of an hs_err header; the report is its own file',
                         benign=True)
    found = _frame_lists(lines)
    if not found:
        raise NotAReport('no frame list (no Native frames:, Problematic frame: or Stack: '
                         'followed by frame lines)')
    rep = Report(kind='hs_err', path=path)
    rep.extra['fragment'] = True
    rep.flag('fragment')
    header, signal, regs = _header_fields(lines, rep)
    classify_native_oom(rep, lines)
    vm_problematic = 'problematic' in found and found['problematic'].kind in ('V', 'C')
    if 'native' in found:
        rep.frames, notes = found['native']
    elif 'java' in found and not vm_problematic:  # else the VM's frame: see parse_hserr
        rep.frames, notes = found['java']
        rep.flag('java-frames-only')
    else:
        rep.frames, notes = [found['problematic']], ()
        rep.flag('problematic-frame-only')
    for name, had in (('no-header', header), ('no-signal-info', signal), ('no-registers', regs)):
        if not had:
            rep.flag(name)
    for note in sorted(notes):
        rep.flag(note)
    if rep.signal is None:
        rep.signal = 'UNKNOWN'
    for k, fr in enumerate(rep.frames):
        fr.is_return = k > 0
    maps = [k for k, l in enumerate(lines) if l.startswith('Dynamic libraries:')]
    if maps:
        block, _ = maps_block(lines, maps[0] + 1)
        rep.module_paths = module_paths(block, rep.frames)
    return rep
