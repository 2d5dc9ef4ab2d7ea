"""What HotSpot prints in a fatal error log (hs_err_pid*.log), JDK 6 to 25 on Linux
(x86_64, aarch64): the header, signal and internal-error lines, the JRE version, the
current thread, siginfo, maps lines and frame lines, and the functions that read them.

parse_hserr reads whole files with it and parse_fragment reads pasted pieces of them,
so the header-line patterns accept what survives a paste: no leading '#', and a signal
or error line cut before its ', pid=..., tid=...' tail (pid and tid are then None)."""
import re

from .model import Frame, MAX_FRAMES, SIGNAMES, SIGNOS

HEADER_RE = re.compile(r'^#\s*(A fatal error has been detected by the Java Runtime Environment'
                       r'|An unexpected error has been detected by (?:the )?Java Runtime Environment'
                       r'|There is insufficient memory for the Java Runtime Environment)')
# '#  SIGSEGV (0xb) at pc=0x00007f3a1c2b3d4e, pid=4242, tid=4243'
SIGNAL_RE = re.compile(r'^#?\s*(SIG[A-Z0-9]+)\s+\(0x([0-9a-fA-F]+)\)\s+at pc=(0x[0-9a-fA-F]+)'
                       r'(?:,\s*pid=(\d+),\s*tid=(0x[0-9a-fA-F]+|\d+))?')
# '#  Internal Error (os_linux.cpp:1234), pid=4242, tid=4243'; 'Out of Memory Error' alike
INTERNAL_RE = re.compile(r'^#?\s*(Internal Error|Out of Memory Error)\s+\(([^)]{0,300})\)'
                         r'(?:,\s*pid=(\d+),\s*tid=(0x[0-9a-fA-F]+|\d+))?')
# '# Native memory allocation (malloc) failed to allocate 18446744073709551615 bytes ...', or
# '(mmap) failed to map N bytes' for a reservation
NATIVE_REQUEST_RE = re.compile(r'^#?\s*Native memory allocation \(\w+\) failed to (?:allocate|map) (\d{1,30}) bytes')
# More than an x86_64 or aarch64 process can address with any paging mode (5-level paging
# gives 2^57 in all, aarch64 at most 2^52)
ADDRESS_SPACE = 1 << 57
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


def read_frames(lines, i):
    """Frame lines from lines[i:]; (frames, next index, notes, bad).

    Stops at a blank line, a section heading, a walk terminator or the first
    line that is no frame; `bad` says it was the last kind. hs_err files and
    pasted fragments differ only in what a bad line means."""
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


def maps_block(lines, i):
    """The 'Dynamic libraries:' lines from lines[i] to a blank line; (lines, next index)."""
    n = len(lines)
    start = i
    while i < n and lines[i].strip():
        i += 1
    return lines[start:min(i, start + 4096)], i


def maps_path(line):
    """The module path of a `Dynamic libraries:` (maps) line, or None."""
    m = MAPS_RE.match(line)
    return m.group(1).strip() if m else None


def module_paths(block, frames, path_of=maps_path):
    """basename -> path for the modules the frames name, from the first line of block
    that gives each (path_of reads a line's path: a maps line by default). A full map
    is hundreds of lines; symbolization needs only these."""
    out = {}
    for base in {fr.module for fr in frames if fr.module and '/' not in fr.module}:
        for line in block:
            if base in line:
                p = path_of(line)
                if p and p.rsplit('/', 1)[-1] == base:
                    out[base] = p
                    break
    return out


def apply_signal_line(rep, m):
    """A SIGNAL_RE match into rep: signal, number, pc, and pid and thread where the
    line kept its ', pid=..., tid=...' tail (a decimal tid is the OS thread, a hex one
    the pthread). Returns whether the tail was there."""
    rep.signal, rep.signo = m.group(1), int(m.group(2), 16)
    rep.extra['pc'] = m.group(3)
    if not m.group(4):
        return False
    rep.pid = int(m.group(4))
    tid = m.group(5)
    if tid.startswith('0x'):
        rep.extra['pthread'] = tid
    else:
        rep.tid = int(tid)
    return True


def classify_native_oom(rep, lines):
    """An OOM report whose failed native request is more than a process can address becomes
    HUGE_ALLOC: no machine grants such a request, so its size is a garbage length the caller
    computed (a walker reading a forged length), a bug, not memory running out; OOM titles
    are suppressed, HUGE_ALLOC ones are not. A garbage length that happens to be small (one
    cut to 32 bits) stays OOM. The size goes to extra['request_bytes']."""
    if rep.signal != 'OOM':
        return
    for line in lines:
        m = NATIVE_REQUEST_RE.match(line)
        if m:
            rep.extra['request_bytes'] = int(m.group(1))
            if rep.extra['request_bytes'] >= ADDRESS_SPACE:
                rep.signal = 'HUGE_ALLOC'
            return
