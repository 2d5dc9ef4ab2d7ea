"""Find crash reports in trees, detect their kind and run the right parser."""
import os
import re

from . import parse_asan, parse_fuzzer, parse_hserr, parse_record
from .model import NotAReport, Reason, decode, one_line, read_bounded

HEAD = 1 << 20
HSERR_NAME = re.compile(r'^hs_err_pid\d+(\.\d+)?\.log$')
RECORD_NAME = re.compile(r'^record-\d+-\d+-\d+\.txt$')
INFLIGHT_NAME = re.compile(r'^inflight-(\d+)\.case$')
SKIP_DIRS = {'.git', '__pycache__'}

PARSERS = {
    'record': parse_record.parse,
    'hs_err': parse_hserr.parse,
    'asan': parse_asan.parse,
}


def detect(data, path):
    """Kind of report in data ('record', 'hs_err', 'asan', 'fuzzer'), or None."""
    base = os.path.basename(path)
    head = decode(data[:HEAD])
    if parse_record.detect(head) or RECORD_NAME.match(base):
        return 'record'
    if parse_hserr.detect(head) or HSERR_NAME.match(base):
        return 'hs_err'
    if parse_fuzzer.detect_path(path):
        return 'fuzzer'
    if parse_asan.detect(head):
        return 'asan'
    return None


def parse_data(data, path, kind=None, replay_argv=None):
    """Parse bytes; return (list of Reports, None) or ([], one-line reason).

    Never raises for any input."""
    try:
        kind = kind or detect(data, path)
        if kind is None:
            return [], 'not a crash report: no hs_err header, record magic, ASan error line or fuzzer artifact name'
        if kind == 'fuzzer':
            flavour = parse_fuzzer.detect_path(path)
            if replay_argv:
                reps, note = parse_fuzzer.replay(replay_argv, path)
                if reps:
                    return reps, None
                return [], 'fuzzer artifact did not crash on replay (%s)' % note
            return [parse_fuzzer.needs_replay(path, flavour)], None
        rep = PARSERS[kind](data, path)
        return [rep], None
    except NotAReport as e:
        return [], Reason.make('%s: %s' % (kind, e.reason), e.benign)
    except Exception as e:          # a parser bug must not stop triage
        return [], 'parser error (%s): %s' % (type(e).__name__, one_line(e))


def parse_path(path, replay_argv=None):
    """Return (kind or None, list of Reports, reason or None) for one file."""
    try:
        with open(path, 'rb') as f:
            head = f.read(HEAD)
    except OSError as e:
        return None, [], 'unreadable: %s' % one_line(e)
    kind = detect(head, path)
    if kind is None:
        return None, [], 'not a crash report'
    try:
        data, oversize = read_bounded(path)
    except OSError as e:
        return kind, [], 'unreadable: %s' % one_line(e)
    reps, reason = parse_data(data, path, kind=kind, replay_argv=replay_argv)
    for r in reps:
        if oversize:
            r.flag('oversize')
        attach_inflight(r)
    return kind, reps, reason


def attach_inflight(rep):
    """hs_err: pair the harness's inflight-<tid>.case sibling by tid."""
    if rep.kind != 'hs_err' or rep.tid is None or rep.case_path:
        return
    p = os.path.join(os.path.dirname(rep.path) or '.', 'inflight-%d.case' % rep.tid)
    if os.path.isfile(p):
        rep.case_path = p


def walk(trees, exclude=()):
    """Yield candidate files under the given trees (files are yielded as given)."""
    excl = {os.path.realpath(e) for e in exclude}
    for t in trees:
        if os.path.isfile(t):
            yield t
            continue
        for root, dirs, files in os.walk(t):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                             and os.path.realpath(os.path.join(root, d)) not in excl)
            for name in sorted(files):
                if INFLIGHT_NAME.match(name):
                    continue         # paired with its hs_err, not a report itself
                p = os.path.join(root, name)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                yield p
