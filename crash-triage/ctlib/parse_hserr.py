"""Parser for HotSpot fatal error logs (hs_err_pid*.log), JDK 6 to 25 on Linux (x86_64,
aarch64).  The line grammar is hserr_grammar's; a file without the header is NoHeader
(collect reads such a file as a fragment)."""
import calendar
import re
import time as _time

from .hserr_grammar import (HEADER_RE, ID_RE, INTERNAL_RE, JRE_RE, SIGNAL_RE, STATE_RE, apply_signal_line,
                            classify_native_oom,
                            THREAD_RE, maps_block, module_paths, parse_frame, parse_siginfo,
                            read_frames)
from .model import NotAReport, Report, MAX_FRAMES, bounded_lines, decode, one_line

TIME_RE = re.compile(r'^[Tt]ime:\s+\w{3}\s+(\w{3})\s+(\d+)\s+(\d\d):(\d\d):(\d\d)\s+(\d{4})(?:\s+(\w+))?')
MONTHS = {m: i for i, m in enumerate(
    ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'], 1)}


def detect(head_text):
    """True if the first part of a file looks like an hs_err log."""
    for line in head_text.splitlines()[:200]:
        if HEADER_RE.match(line[:200]):
            return True
    return False


class NoHeader(NotAReport):
    """No hs_err header in the first 200 lines: the caller may read the text another way."""

    def __init__(self):
        super().__init__("no hs_err header ('# A fatal error has been detected ...')")


def _parse_time(m):
    mon = MONTHS.get(m.group(1))
    if not mon:
        return None
    try:
        tup = (int(m.group(6)), mon, int(m.group(2)), int(m.group(3)), int(m.group(4)),
               int(m.group(5)), 0, 0, -1)
        if m.group(7) in (None, 'UTC', 'GMT'):
            return float(calendar.timegm(tup))
        return float(_time.mktime(tup))
    except (ValueError, OverflowError):
        return None


def _read_frames(lines, i, rep, into):
    """Read frame lines from lines[i:] into `into`; return the next index."""
    frames, i, notes, bad = read_frames(lines, i)
    for note in sorted(notes):
        rep.flag(note)
    room = MAX_FRAMES - len(into)
    if len(frames) > room:
        rep.flag('frames-capped')
    into.extend(frames[:max(room, 0)])
    # the last, partial line of a cut file is expected; any other non-frame line is not
    if bad and not (i == len(lines) - 1 and 'truncated' in rep.flags):
        rep.flag('corrupted')
    return i


SECTION_RE = re.compile(r'^(?:Current thread|Native frames:|Java frames:|siginfo:|(?i:time:)'
                        r'|Dynamic libraries:)', re.M)


def parse(data, path):
    """Report of one hs_err file; NoHeader if its first 200 lines hold no header."""
    text = decode(data)
    lines = bounded_lines(text)
    start = None
    if lines and text and not text.endswith('\n') and lines[-1].strip() != 'END.':
        lines.pop()  # a file cut short ends in a cut line: never a frame name to title by
    for i, line in enumerate(lines[:200]):
        if HEADER_RE.match(line):
            start = i
            break
    if start is None:
        raise NoHeader()
    rep = Report(kind='hs_err', path=path)
    if not any(l.strip() == 'END.' for l in lines[-50:]):
        rep.flag('truncated')
    if 'insufficient memory' in lines[start]:
        rep.signal = 'OOM'
    problematic = None
    i = start + 1
    n = len(lines)
    want_message = False
    # HotSpot ends its signal and error lines with ', pid=..., tid=...': in a whole file,
    # one without that tail was cut or damaged
    while i < n and lines[i].startswith('#'):
        line = lines[i]
        m = SIGNAL_RE.match(line)
        if m and not apply_signal_line(rep, m):
            rep.flag('corrupted')
        m = INTERNAL_RE.match(line)
        if m:
            rep.signal = 'INTERNAL' if m.group(1) == 'Internal Error' else 'OOM'
            rep.extra['location'] = m.group(2)
            if m.group(3):
                rep.pid = int(m.group(3))
                if not m.group(4).startswith('0x'):
                    rep.tid = int(m.group(4))
            else:
                rep.flag('corrupted')
            want_message = True
        elif want_message:
            body = line.lstrip('#').strip()
            if body:
                rep.message = one_line(body, 300)
                want_message = False
        if line.startswith('# Native memory allocation') and rep.message is None:
            rep.message = one_line(line.lstrip('#').strip(), 300)
        m = JRE_RE.match(line)
        if m:
            rep.extra['jdk'] = (m.group(1) or m.group(2)).strip()
        if line.startswith('# Problematic frame:') and i + 1 < n:
            problematic = parse_frame(lines[i + 1].lstrip('#').strip())
        i += 1
    # (console output of two crashing threads interleaves: '[thread N also had an error]' can
    # break the '#' block, so look a little past it)
    saved = [k for k in range(start, min(n, max(i, start + 60)))
             if lines[k].startswith('# An error report file with more')]
    if saved and not any(l.startswith(('Native frames:', 'Current thread')) for l in lines[i:]):
        k = saved[0] + 1
        where = lines[k].lstrip('# ').strip() if k < n else ''
        raise NotAReport('JVM console copy of an hs_err header; the report is %s'
                         % (where or 'elsewhere'), benign=True)
    classify_native_oom(rep, lines[start:i])
    if rep.signal is None:
        rep.flag('corrupted')
        rep.signal = 'UNKNOWN'

    native, java = [], []
    saw_native = saw_thread = False
    maps = None
    # Most of an hs_err file is registers, memory, flags and maps: find the
    # lines that start a section read below with one regex over the text,
    # and count newlines (line k follows the k-th '\n') to know their index.
    pos = 0
    for _ in range(i):
        pos = text.find('\n', pos) + 1
    line_no = i
    for sec in SECTION_RE.finditer(text, pos):
        line_no += text.count('\n', pos, sec.start())
        pos = sec.start()
        if line_no < i or line_no >= n:
            continue            # inside a section already read
        i = line_no
        line = lines[i]
        if line.startswith('Current thread'):
            saw_thread = True
        if line.startswith('Current thread ('):
            m = THREAD_RE.match(line)
            if m:
                rep.extra['thread_type'] = m.group(2)
                rep.thread = m.group(3)
                sm = STATE_RE.search(m.group(4) or '')
                if sm:
                    rep.extra['thread_state'] = sm.group(1)
                im = ID_RE.search(m.group(4) or '')
                if im:
                    rep.tid = int(im.group(1))
        elif line.startswith('Current thread is native thread'):
            rep.extra['thread_type'] = 'native'
        elif line.startswith('Native frames:'):
            saw_native = True
            i = _read_frames(lines, i + 1, rep, native)
            continue
        elif line.startswith('Java frames:'):
            i = _read_frames(lines, i + 1, rep, java)
            continue
        elif line.startswith('siginfo:'):
            si = parse_siginfo(line)
            if si:
                rep.signo = rep.signo or si[1]
                rep.si_code = si[2]
                if si[3]:
                    rep.extra['si_code_name'] = si[3]
                if si[4] is not None:
                    rep.si_addr = si[4]
        elif line[:5].lower() == 'time:':
            m = TIME_RE.match(line)
            if m:
                rep.time = _parse_time(m)
        elif line.startswith('Dynamic libraries:'):
            block, i = maps_block(lines, i + 1)
            if maps is None:
                maps = block
            continue
        i += 1

    vm_problematic = problematic is not None and problematic.kind in ('V', 'C')
    if native:
        rep.frames = native
    elif java and not vm_problematic:
        rep.frames = java
        rep.flag('java-frames-only')
    elif problematic:
        # The VM's own frame says where it died; the Java frames are whatever the
        # workload was doing, and would title one bug by many methods.
        rep.frames = [problematic]
        rep.flag('problematic-frame-only')
    if not saw_native and 'truncated' not in rep.flags:
        rep.flag('no-native-frames')
    if not rep.frames:
        rep.flag('corrupted')
    if (native or java) and not saw_thread:
        # every hs_err prints 'Current thread' before its stack: frames without it are
        # the header and a frame list pasted together, not a file cut short
        if 'truncated' in rep.flags:
            rep.flags.remove('truncated')
        rep.flag('fragment')
        if not any(l.startswith('Registers:') for l in lines):
            rep.flag('no-registers')
    for k, fr in enumerate(rep.frames):
        fr.is_return = k > 0
    if maps:
        rep.module_paths = module_paths(maps, rep.frames)
    return rep
