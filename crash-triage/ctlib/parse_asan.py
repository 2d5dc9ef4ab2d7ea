"""Parser for AddressSanitizer reports (also found inside fuzzer logs)."""
import re

from .model import Frame, NotAReport, Report, MAX_FRAMES, SIGNOS, bounded_lines, decode, parse_int

# '==11435==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x61d0000e1820 at pc ...'
ERROR_RE = re.compile(r'==(\d+)==\s*ERROR: AddressSanitizer: ([A-Za-z0-9_-]+)(.*)$')
DETECT_RE = re.compile(r'^==\d+==\s*ERROR: AddressSanitizer: ', re.M)
# 'SEGV on unknown address 0x000000000010', 'WRITE of size 8 at 0x... thread T23' names no address word
ADDR_RE = re.compile(r'(?:on (?:unknown )?address|address)\s+(0x[0-9a-fA-F]+)')
TID_RE = re.compile(r'\b[Tt](\d+)\b')
# '    #0 0x7f5d1ca50857 in queue_agct_enqueue src/queue_agct.c:130 (libasgfagent.so+0x50857) (BuildId: 1fa8...)'
FRAME_RE = re.compile(r'^\s*#(\d+)\s+(0x[0-9a-fA-F]+)\b(.*)$')
BUILDID_RE = re.compile(r'\s*\(BuildId: [0-9a-fA-F]*\)\s*$')
MODULE_RE = re.compile(r'\s*\(([^()]+)\+(0x[0-9a-fA-F]+)\)\s*$')
# 'The signal is caused by a WRITE memory access.'
SIGNAL_RE = re.compile(r'caused by a (READ|WRITE|UNKNOWN) memory access')


def detect(head_text):
    return DETECT_RE.search(head_text) is not None


def _split_func_src(text):
    """'func file.c:12:3' -> ('func', 'file.c:12:3'); a function may contain spaces."""
    text = text.strip()
    if ' ' in text:
        func, _, rest = text.rpartition(' ')
        if ':' in rest or rest.endswith(('.c', '.cc', '.cpp', '.h')):
            return func.strip(), rest
    return text, None


def parse(data, path):
    lines = bounded_lines(decode(data))
    start = None
    for i, line in enumerate(lines):
        m = ERROR_RE.search(line)
        if m:
            start = i
            break
    if start is None:
        raise NotAReport("no '==PID==ERROR: AddressSanitizer:' line")
    rep = Report(kind='asan', path=path)
    rep.pid = int(m.group(1))
    bug = m.group(2)
    rep.message = ('%s%s' % (bug, m.group(3)))[:300].strip()
    am = ADDR_RE.search(m.group(3))
    if am:
        rep.si_addr = int(am.group(1), 16)
    tm = re.search(r'\(pc .*?\bT(\d+)\)', m.group(3))
    if tm:
        rep.extra['asan_thread'] = int(tm.group(1))
    if 'SIG' + bug in SIGNOS:   # 'SEGV on unknown address', 'BUS', 'FPE', 'ILL', 'ABRT'
        rep.signal = 'SIG' + bug
        rep.signo = SIGNOS[rep.signal]
    else:
        rep.signal = bug
    rep.extra['bug_type'] = bug
    i = start + 1
    n = len(lines)
    in_stack = False
    while i < n:
        line = lines[i]
        fm = FRAME_RE.match(line)
        if fm:
            in_stack = True
            idx, pc, rest = fm.groups()
            rest = BUILDID_RE.sub('', rest)
            mod = off = None
            mm = MODULE_RE.search(rest)
            if mm:
                mod, off = mm.group(1), mm.group(2)
                rest = rest[:mm.start()]
            rest = rest.strip()
            fn = rest[3:] if rest.startswith('in ') else rest
            fr = Frame(kind='N', is_return=int(idx) > 0)
            if fn:
                func, src = _split_func_src(fn)
                fr.function = func or None
                fr.source = src
            if mod:
                fr.module = mod.strip()
                fr.offset = int(off, 16)
            if len(rep.frames) < MAX_FRAMES:
                rep.frames.append(fr)
            else:
                rep.flag('frames-capped')
        elif in_stack:
            break        # only the first stack (the faulting access)
        else:
            sm = SIGNAL_RE.search(line)
            if sm:
                rep.extra['access'] = sm.group(1)
        i += 1
    if not any(l.startswith('SUMMARY: AddressSanitizer') or l.startswith('==%d==ABORTING' % rep.pid)
               for l in lines[start:]):
        rep.flag('truncated')
    if not rep.frames:
        rep.flag('corrupted')
    return rep
