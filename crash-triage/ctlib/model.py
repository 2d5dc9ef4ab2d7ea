"""Report and frame types shared by every parser, plus bounded reading."""
import os
from dataclasses import dataclass, field
from typing import List, Optional

MAX_READ = 32 << 20        # bytes of one file we look at, at most
MAX_LINE = 4096            # characters we keep of any one line
MAX_FRAMES = 256           # frames we keep of any one stack
# Raised whenever a parser reads a file differently (HUGE_ALLOC: 2): an incremental triage
# then reads every file of an earlier output again, as it does when rules.json changes.
PARSE_VERSION = 2
# The fatal signals a crash report names, by their Linux numbers (x86_64 and aarch64 agree).
SIGNOS = {'SIGSEGV': 11, 'SIGBUS': 7, 'SIGILL': 4, 'SIGFPE': 8, 'SIGABRT': 6, 'SIGTRAP': 5}
SIGNAMES = {v: k for k, v in SIGNOS.items()}
MAX_CASE = 1 << 20         # bytes of case data we keep from a record


@dataclass
class Frame:
    module: Optional[str] = None     # basename or absolute path, None if unknown
    offset: Optional[int] = None     # module-relative offset
    function: Optional[str] = None   # raw symbol text, None if unknown
    kind: str = '?'                  # hs_err frame kind (V, C, j, J, v, A) or '?' / 'N' (native)
    inlined: bool = False            # came from an addr2line -i chain, not the outermost
    source: Optional[str] = None     # file:line when known
    is_return: bool = False          # pc is a return address (symbolize pc-1)
    func_off: Optional[int] = None   # offset into `function` as printed (hs_err +0x..)

    def as_tuple(self):
        return (self.module, self.offset, self.function)

    def to_json(self):
        return {'module': self.module, 'offset': self.offset, 'function': self.function,
                'kind': self.kind, 'inlined': self.inlined, 'source': self.source}


@dataclass
class Report:
    kind: str                        # hs_err | record | asan | fuzzer
    path: str
    signal: Optional[str] = None     # SIGSEGV, SIGBUS, ..., or ASSERT/FATAL/OOM/ASAN type
    signo: Optional[int] = None
    si_code: Optional[int] = None
    si_addr: Optional[int] = None
    pid: Optional[int] = None
    tid: Optional[int] = None
    thread: Optional[str] = None
    frames: List[Frame] = field(default_factory=list)
    flags: List[str] = field(default_factory=list)   # truncated, corrupted, ...
    time: Optional[float] = None     # crash time, seconds since the epoch
    message: Optional[str] = None    # assert/fatal text, ASan headline, ...
    case: Optional[bytes] = None     # case bytes carried by the report
    case_path: Optional[str] = None  # a file holding the case bytes
    module_paths: dict = field(default_factory=dict)  # basename -> absolute path
    extra: dict = field(default_factory=dict)

    def flag(self, name):
        if name not in self.flags:
            self.flags.append(name)

    def to_json(self):
        return {
            'kind': self.kind, 'path': self.path, 'signal': self.signal, 'signo': self.signo,
            'si_code': self.si_code,
            'si_addr': None if self.si_addr is None else '0x%x' % self.si_addr,
            'pid': self.pid, 'tid': self.tid, 'thread': self.thread,
            'frames': [f.to_json() for f in self.frames], 'flags': list(self.flags),
            'time': self.time, 'message': self.message,
            'case_bytes': None if self.case is None else len(self.case),
            'extra': self.extra,
        }


class NotAReport(Exception):
    """Raised by a parser with a one-line reason."""

    def __init__(self, reason, benign=False):
        super().__init__(one_line(reason))
        self.reason = one_line(reason)
        self.benign = benign       # a known non-report (e.g. console copy): not worth listing


# How the reason of a fuzzer artifact whose replay ran and did not fault starts: the index
# keeps it as an invalid file, and the reports tell it from a damaged one by this (Store.no_fault).
NO_FAULT_REASON = 'fuzzer artifact did not crash on replay'


class Reason(str):
    """A one-line reason why a file is not a report; .benign marks expected noise,
    .retry a failure that was not the file's (a replay that timed out or could not
    run), which a later triage tries again."""
    benign = False
    retry = False

    @classmethod
    def make(cls, text, benign=False, retry=False):
        r = cls(text)
        r.benign = benign
        r.retry = retry
        return r


def one_line(s, limit=200):
    s = ' '.join(str(s).split())
    return s if len(s) <= limit else s[:limit - 3] + '...'


def read_bounded(path, limit=MAX_READ):
    """Return (bytes, oversize).  Never reads more than limit bytes."""
    with open(path, 'rb') as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        return data[:limit], True
    return data, False


def decode(data):
    return data.decode('utf-8', errors='replace')


def bounded_lines(text, max_line=MAX_LINE):
    """Split text into lines, each cut to max_line characters (a 10 MB line is fine).

    One line per '\n', so a line's index is the count of '\n' before it."""
    if '\r' not in text:
        lines = text.split('\n')
        if lines and not lines[-1]:
            lines.pop()
        if not lines or max(map(len, lines)) <= max_line:
            return lines          # the usual case, at C speed
    out = []
    start = 0
    n = len(text)
    while start < n:
        end = text.find('\n', start)
        if end < 0:
            end = n
        if end - start > max_line:
            out.append(text[start:start + max_line])
        else:
            out.append(text[start:end])
        start = end + 1
    return [l[:-1] if l.endswith('\r') else l for l in out]


def parse_int(s, base=10):
    try:
        return int(s, base)
    except (TypeError, ValueError):
        return None


def file_mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None
