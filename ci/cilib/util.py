"""Small helpers shared by the campaign modules: durations, JSON files, time."""
import errno
import json
import os
import re
import signal
import sys
import time

# The atomic write is crash-triage's (one owner); ci and triage run from one checkout.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                'crash-triage'))
from ctlib import outdir  # noqa: E402
from ctlib.usage import EXIT_USAGE  # noqa: E402  (argparse's errors exit with it too)

_UNITS = {'ms': 0.001, 's': 1, 'm': 60, 'h': 3600, 'd': 86400}


# Exit statuses shared by every command (README "Exit statuses").
EXIT_OK, EXIT_FOUND, EXIT_UNTESTED = 0, 1, 3
# Longer budgets are refused: they are typing mistakes, and the job list of
# one would not fit in memory.
MAX_BUDGET = 30 * 86400


def signals_held(work, on_signal=None):
    """Runs work(stop) with SIGINT and SIGTERM held off (a CI runner's time-out): a signal
    only makes stop() true, and on_signal() runs (it may kill a child work waits for).
    Returns (work's result, whether a signal came). ci/premerge's verdicts use it, so that
    their files are whole however they are cut short."""
    got = []

    def handler(signum, frame):
        got.append(signum)
        if on_signal:
            on_signal()
    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return work(lambda: bool(got)), bool(got)
    finally:
        for s, h in old.items():
            signal.signal(s, h)


class UsageError(Exception):
    """A bad option, preset or plan: reported as one line, exit status 2."""


def budget_seconds(text, what='--budget'):
    """A --budget value in seconds: a duration of at most MAX_BUDGET. One too short
    for an attempt is the campaign's to refuse (exit 3, nothing tested)."""
    try:
        secs = seconds(text)
    except UsageError as e:
        raise UsageError('%s: %s' % (what, e))
    if secs > MAX_BUDGET:
        raise UsageError("%s '%s' is longer than %d days: refused (a typo?)" % (what, text, MAX_BUDGET // 86400))
    return secs


def seconds(text):
    """'90', '90s', '10m', '8h', '1h30m', '500ms' -> seconds (float)."""
    t = str(text).strip()
    if re.fullmatch(r'\d+(\.\d+)?', t):
        return float(t)
    parts = re.findall(r'(\d+(?:\.\d+)?)(ms|s|m|h|d)', t)
    if not parts or ''.join(n + u for n, u in parts) != t:
        raise UsageError("'%s' is not a duration (e.g. 60s, 10m, 8h, 1h30m)" % text)
    return sum(float(n) * _UNITS[u] for n, u in parts)


def hms(secs):
    """Seconds -> 'H:MM:SS' or 'M:SS'."""
    secs = int(max(0, round(secs)))
    h, rest = divmod(secs, 3600)
    m, s = divmod(rest, 60)
    return '%d:%02d:%02d' % (h, m, s) if h else '%d:%02d' % (m, s)


def si(n):
    """1234567 -> '1.2M'."""
    n = float(n)
    for unit, div in (('G', 1e9), ('M', 1e6), ('k', 1e3)):
        if abs(n) >= div:
            return '%.1f%s' % (n / div, unit)
    return '%d' % n if n == int(n) else '%.1f' % n


def iso(ts=None):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(time.time() if ts is None else ts))


def read_json(path, default=None):
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_state_json(path, kind):
    """A campaign file that must be there and be a JSON object or list of the
    given kind (dict or list): else a UsageError naming the file and the reason."""
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise UsageError('%s is damaged: %s' % (path, e))
    if not isinstance(data, kind):
        raise UsageError('%s is damaged: a JSON %s expected' % (path, 'object' if kind is dict else 'list'))
    return data


class DiskFull(Exception):
    """A write that failed for want of space or with an I/O error: one line naming the
    file, exit status 3. The file keeps its last whole version."""


def write_text(path, text):
    """Atomic: readers never see half a file; a failed write leaves no temporary
    (path.tmp.PID, so that two processes never share one)."""
    try:
        outdir.write_atomic(path, text, tmp='%s.tmp.%d' % (path, os.getpid()))
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise DiskFull('no space left on device writing %s' % path)
        if e.errno == errno.EIO:
            raise DiskFull('I/O error writing %s' % path)
        raise


def write_json(path, data):
    write_text(path, json.dumps(data, indent=2, sort_keys=True) + '\n')


def remove_temporaries(directory):
    """The .tmp.PID files a write left behind when its process was killed."""
    for name in os.listdir(directory):
        if re.search(r'\.tmp\.\d+$', name):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


def tail(path, nbytes=8192):
    """The last nbytes of a file as text ('' if unreadable)."""
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - nbytes))
            return f.read().decode('utf-8', 'replace')
    except OSError:
        return ''
