"""Parser for HotSpot fatal error logs (hs_err_pid*.log), JDK 6 to 25 on Linux (x86_64,
aarch64).  A file without the header is read as a fragment (parse_fragment)."""
import calendar
import re
import time as _time

from .model import (Frame, NotAReport, Report, MAX_FRAMES, bounded_lines, decode,
                    one_line, parse_int)

HEADER_RE = re.compile(r'^#\s*(A fatal error has been detected by the Java Runtime Environment'
                       r'|An unexpected error has been detected by (?:the )?Java Runtime Environment'
                       r'|There is insufficient memory for the Java Runtime Environment)')
SIGNAL_RE = re.compile(r'^#\s+(SIG[A-Z0-9]+)\s+\(0x([0-9a-fA-F]+)\)\s+at pc=(0x[0-9a-fA-F]+),'
                       r'\s*pid=(\d+),\s*tid=(0x[0-9a-fA-F]+|\d+)')
INTERNAL_RE = re.compile(r'^#\s+(Internal Error|Out of Memory Error)\s+\(([^)]{0,300})\),'
                         r'\s*pid=(\d+),\s*tid=(0x[0-9a-fA-F]+|\d+)')
# JDK 7+ put the version in parentheses; JDK 6 printed it bare ('JRE version: 6.0_45-b06')
JRE_RE = re.compile(r'^#\s+JRE version:\s*(?:.*?\(([0-9][^)]{0,60})\)|([0-9][\w.\-]{0,60}))')
THREAD_RE = re.compile(r'^Current thread \((0x[0-9a-fA-F]+)\):\s+(\w+)(?:\s+"([^"]{0,300})")?(.*)$')
STATE_RE = re.compile(r'\[(_thread_[A-Za-z_]+)')
ID_RE = re.compile(r'\bid=(\d+)')
SIGINFO_RE = re.compile(r'^siginfo:\s*si_signo:\s*(\d+)\s*\((\w+)\),\s*si_code:\s*(-?\d+)'
                        r'(?:\s*\(([A-Z_0-9]+)\))?(?:,\s*si_addr:\s*(0x[0-9a-fA-F]+))?')
# JDK 6/7: 'siginfo:si_signo=SIGSEGV: si_errno=0, si_code=1 (SEGV_MAPERR), si_addr=0x...'
SIGINFO_OLD_RE = re.compile(r'^siginfo:\s*si_signo=(SIG[A-Z0-9]+|\d+)(?:\s*\((\w+)\))?:?[\s,]*'
                            r'(?:si_errno=\d+,\s*)?si_code=(-?\d+)(?:\s*\(([A-Z_0-9]+)\))?'
                            r'(?:,\s*si_addr=(0x[0-9a-fA-F]+))?')
SIGNOS = {'SIGSEGV': 11, 'SIGBUS': 7, 'SIGILL': 4, 'SIGFPE': 8, 'SIGABRT': 6, 'SIGTRAP': 5}
SIGNAMES = {v: k for k, v in SIGNOS.items()}
TIME_RE = re.compile(r'^[Tt]ime:\s+\w{3}\s+(\w{3})\s+(\d+)\s+(\d\d):(\d\d):(\d\d)\s+(\d{4})(?:\s+(\w+))?')
MAPS_RE = re.compile(r'^[0-9a-fA-F]+-[0-9a-fA-F]+\s+\S{4}\s+[0-9a-fA-F]+\s+\S+\s+\d+\s+(/\S.*)$')

NATIVE_FRAME_RE = re.compile(r'^([VvCJjA])\s+\[([^\]\s]{1,512})\+0x([0-9a-fA-F]{1,16})\](?:\s+(.*))?$')
# a pc in no library; HotSpot may still name it ('C  0x0000ffff8a2c07a0  __kernel_rt_sigreturn')
BARE_PC_RE = re.compile(r'^([VC])\s+0x([0-9a-fA-F]{1,16})(?:\s+(\S.*?))?\s*$')
STUB_RE = re.compile(r'^v\s+(~?\S.*?)(?:\s+0x[0-9a-fA-F]+)?\s*$')
JFRAME_RE = re.compile(r'^j\s+(\S+?)(?:\+(\d+))?(?:\s+(\S+))?\s*$')
# JDK 8+: 'J 1234 C2 ...' (an OSR compile is '1234%'); JDK 6/7: 'J  java.util.HashMap.get(...)'
COMPILED_RE = re.compile(r'^([JA])\s+(?:(\d+)%?\s+)?(.*)$')
# GCC clone suffixes in demangled names ('frame::sender(RegisterMap*) const [clone .isra.0]'):
# the same source function, whatever the build's optimizer made of it
CLONE_RE = re.compile(r'\s*\[clone \.[\w.]+\]')
# pc values HotSpot prints where a frame walk ran off the end
TERMINATOR_PCS = (0, 0xffffffffffffffff, 0xffffffff)
FUNC_OFF_RE = re.compile(r'^(.*?)\+0x([0-9a-fA-F]+)(?:\s+\(([^)]*)\))?\s*$')

SECTION_ENDS = ('Java frames:', 'siginfo:', 'Registers:', 'Register to memory', 'Top of Stack:',
                'Instructions:', 'Stack slot', '---------------', 'Lock stack', 'Retry with',
                'Native frames:', 'Current CompileTask:', 'Compiled method')
MONTHS = {m: i for i, m in enumerate(
    ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'], 1)}


def detect(head_text):
    """True if the first part of a file looks like an hs_err log."""
    for line in head_text.splitlines()[:200]:
        if HEADER_RE.match(line[:200]):
            return True
    return False


def parse_frame(line):
    """One hs_err stack line -> Frame, or None if it is not a frame line."""
    m = NATIVE_FRAME_RE.match(line)
    if m:
        kind, module, off, rest = m.groups()
        fr = Frame(module=module, offset=int(off, 16), kind=kind)
        if rest:
            rest = CLONE_RE.sub('', rest)
            fm = FUNC_OFF_RE.match(rest.strip())
            if fm:
                fr.function = fm.group(1).strip() or None
                fr.func_off = int(fm.group(2), 16)
                fr.source = fm.group(3)
            else:
                fr.function = rest.strip() or None
        return fr
    m = BARE_PC_RE.match(line)
    if m:
        fr = Frame(module=None, offset=None, function=None, kind=m.group(1),
                   source='pc=0x' + m.group(2))
        if m.group(3):
            fm = FUNC_OFF_RE.match(CLONE_RE.sub('', m.group(3)))
            fr.function = (fm.group(1).strip() if fm else m.group(3).strip()) or None
            if fr.function == '__kernel_rt_sigreturn':
                # aarch64's signal trampoline lives in the vDSO; HotSpot prints it
                # without a library when it does not list the vDSO as one
                fr.module = 'linux-vdso.so.1'
        return fr
    m = JFRAME_RE.match(line)
    if m:
        return Frame(function=m.group(1), kind='j')
    m = COMPILED_RE.match(line)
    if m:
        for tok in m.group(3).split():
            if '(' in tok and not tok.startswith('('):
                return Frame(function=tok, kind=m.group(1))
        if m.group(2) is None:
            return None         # no compile id and no method: not a frame line
        return Frame(function=None, kind=m.group(1))
    if line.startswith('v ') or line.startswith('v\t'):
        m = STUB_RE.match(line)
        if m:
            return Frame(function=m.group(1), kind='v')
    return None


def parse_siginfo(line):
    """A 'siginfo:' line of any JDK -> (signal name or None, signo or None, si_code,
    si_code name or None, si_addr or None), or None if it is not one."""
    m = SIGINFO_RE.match(line)
    if m:
        no = int(m.group(1))
        return (m.group(2), no, int(m.group(3)), m.group(4),
                int(m.group(5), 16) if m.group(5) else None)
    m = SIGINFO_OLD_RE.match(line)
    if m:
        sig = m.group(1)
        no = int(sig) if sig.isdigit() else SIGNOS.get(sig)
        name = m.group(2) or (sig if not sig.isdigit() else SIGNAMES.get(no))
        return (name, no, int(m.group(3)), m.group(4),
                int(m.group(5), 16) if m.group(5) else None)
    return None


def is_terminator(fr):
    """True for 'C  0xffffffffffffffff' and the like: the end of a walk, not a frame."""
    if fr.module is not None or fr.function or not (fr.source or '').startswith('pc=0x'):
        return False
    return int(fr.source[3:], 16) in TERMINATOR_PCS


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


def read_frames(lines, i):
    """Frame lines from lines[i:]; (frames, next index, notes, bad).

    Stops at a blank line, a section heading, a walk terminator or the first
    line that is no frame; `bad` says it was the last kind. Shared by hs_err
    files and pasted fragments, which differ only in what a bad line means."""
    out, notes, n = [], set(), len(lines)
    while i < n:
        s = lines[i].strip()
        if not s or s.startswith(SECTION_ENDS):
            break
        if s.startswith('...') and 'more frames' in s:
            notes.add('more-frames')
            i += 1
            continue
        if s.startswith('[error occurred during error reporting'):
            notes.add('secondary-error')
            i += 1
            continue
        fr = parse_frame(s)
        if fr is None:
            return out, i, notes, True
        i += 1
        if is_terminator(fr):
            break
        if len(out) < MAX_FRAMES:
            out.append(fr)
        else:
            notes.add('frames-capped')
    return out, i, notes, False


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


def _maps_block(lines, i):
    """The 'Dynamic libraries:' lines from lines[i] to a blank line; (lines, next index)."""
    n = len(lines)
    start = i
    while i < n and lines[i].strip():
        i += 1
    return lines[start:min(i, start + 4096)], i


def _module_paths(block, frames):
    """basename -> path for the modules the frames name, from the first maps line that
    gives each. A full map is hundreds of lines; symbolization needs only these."""
    out = {}
    for base in {fr.module for fr in frames if fr.module and '/' not in fr.module}:
        for line in block:
            if base in line:
                m = MAPS_RE.match(line)
                if m:
                    p = m.group(1).strip()
                    if p.rsplit('/', 1)[-1] == base:
                        out[base] = p
                        break
    return out


SECTION_RE = re.compile(r'^(?:Current thread|Native frames:|Java frames:|siginfo:|(?i:time:)'
                        r'|Dynamic libraries:)', re.M)


def parse(data, path):
    text = decode(data)
    lines = bounded_lines(text)
    start = None
    for i, line in enumerate(lines[:200]):
        if HEADER_RE.match(line):
            start = i
            break
    if start is None:
        from . import parse_fragment
        try:
            return parse_fragment.parse(data, path)
        except NotAReport as e:
            if e.benign:
                raise
            raise NotAReport("no hs_err header ('# A fatal error has been detected ...') "
                             "and %s" % e.reason)
    rep = Report(kind='hs_err', path=path)
    if not any(l.strip() == 'END.' for l in lines[-50:]):
        rep.flag('truncated')
    if 'insufficient memory' in lines[start]:
        rep.signal = 'OOM'
    problematic = None
    i = start + 1
    n = len(lines)
    want_message = False
    while i < n and lines[i].startswith('#'):
        line = lines[i]
        m = SIGNAL_RE.match(line)
        if m:
            rep.signal, rep.signo = m.group(1), int(m.group(2), 16)
            rep.pid = int(m.group(4))
            tid = m.group(5)
            if tid.startswith('0x'):
                rep.extra['pthread'] = tid
            else:
                rep.tid = int(tid)
            rep.extra['pc'] = m.group(3)
        m = INTERNAL_RE.match(line)
        if m:
            rep.signal = 'INTERNAL' if m.group(1) == 'Internal Error' else 'OOM'
            rep.extra['location'] = m.group(2)
            rep.pid = int(m.group(3))
            if not m.group(4).startswith('0x'):
                rep.tid = int(m.group(4))
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
            block, i = _maps_block(lines, i + 1)
            if maps is None:
                maps = block
            continue
        i += 1

    if native:
        rep.frames = native
    elif java:
        rep.frames = java
        rep.flag('java-frames-only')
    elif problematic:
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
        rep.module_paths = _module_paths(maps, rep.frames)
    return rep
