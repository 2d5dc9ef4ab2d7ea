"""libFuzzer / AFL++ crash artifacts: case files that need a replay to give a record.

replay runs the replay tool and reads the files it leaves with the parser its caller
passes (collect.parse_path)."""
import copy
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from .model import Report

LIBFUZZER_RE = re.compile(r'^crash-[0-9a-f]{40}$')
AFL_RE = re.compile(r'^id[:_]\d{6}')
# afl-fuzz's crashes/, and crashes.DATE/ where a resumed session keeps the earlier one's
AFL_CRASH_DIR_RE = re.compile(r'^crashes(\.\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d)?$')
REPLAY_TIMEOUT = 120
REPLAY_ATTEMPTS = 3     # fresh JVMs per artifact before it counts as not crashing
KEEP_DIR = None        # where replay outputs are kept (triage sets OUT/replays)
ENV_FILE = 'replay.env'  # the finding run's harness settings (fuzz/replay-env.sh writes it)
ENV_DEPTH = 3           # how far above the artifact: run-afl's OUT/afl/INSTANCE/crashes/
ENV_LINE = re.compile(r'^(ASGF_[A-Z0-9_]+)=(.*)$')
# Where the finding run wrote, not how its cases ran: a replay writes to its own --record-dir
# and must not add to that run's files. fuzz/replay-env.sh leaves them out of replay.env; a
# replay.env or a bucket's settings from before it did still name them.
RUN_OUTPUTS = ('ASGF_OUT', 'ASGF_WALKER_BLOCKS')


class BadSettings(ValueError):
    """A replay.env line that is not ASGF_NAME=VALUE: 'FILE:LINE: why'."""


def replay_env(path):
    """The harness settings the artifact's fuzzer ran with, as (dict, file): the first
    replay.env in the artifact's directory or up to ENV_DEPTH directories above it;
    ({}, None) when there is none. Raises BadSettings naming the file and line."""
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(ENV_DEPTH + 1):
        f = os.path.join(d, ENV_FILE)
        if os.path.isfile(f):
            return _read_env(f), f
        up = os.path.dirname(d)
        if up == d:
            break
        d = up
    return {}, None


def report_settings(path, artifact):
    """The harness settings a report was made under, as replay_env gives them. `artifact`:
    path is a fuzzer's crash artifact, which carries its run's replay.env along when a later
    run with other settings moves it (fuzz/replay-env.sh). A record or hs_err the harness
    wrote stays where it is, so a replay.env newer than it is a later run's in the same
    directory, perhaps with other settings: ({}, None) then, as for none."""
    settings, f = replay_env(path)
    if f and not artifact:
        try:
            if os.stat(f).st_mtime_ns > os.stat(path).st_mtime_ns:
                return {}, None
        except OSError:
            return {}, None
    return settings, f


def _read_env(f):
    env = {}
    try:
        with open(f, encoding='utf-8', errors='replace') as fh:
            lines = fh.read().splitlines()
    except OSError as e:
        raise BadSettings('%s: cannot read (%s)' % (f, e.strerror))
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith('#'):
            continue
        m = ENV_LINE.match(line)
        if not m:
            raise BadSettings('%s:%d: not ASGF_NAME=VALUE: %r' % (f, n, line[:60]))
        if m.group(1) not in RUN_OUTPUTS:
            env[m.group(1)] = m.group(2)
    return env


def detect_path(path):
    """'libfuzzer' / 'afl' if the file name is a fuzzer crash artifact, else None."""
    base = os.path.basename(path)
    if LIBFUZZER_RE.match(base):
        return 'libfuzzer'
    parent = os.path.basename(os.path.dirname(path))
    if AFL_CRASH_DIR_RE.match(parent) and AFL_RE.match(base):
        return 'afl'
    return None


def replay_command(spec, repo_root):
    """The replay command as an argv list, or None when no replay tool exists."""
    if spec:
        argv = shlex.split(spec)
    else:
        argv = [os.path.join(repo_root, 'fuzz', 'replay')]
    exe = argv[0]
    if os.sep in exe:
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            return None
    return argv


# (argv, attempts, sha1 of the case bytes) -> (reports, note, first path): a fuzzer
# saves the same input under several names (libFuzzer's crash-<sha1> in every job's
# directory, AFL++ instances finding one crash); each distinct case costs JVMs once.
_replayed = {}


def replay(argv, path, parse_file, timeout=REPLAY_TIMEOUT, attempts=None, data=None, settings=None):
    """Run `argv --record-dir DIR FILE` until it leaves a report, at most `attempts` times
    (REPLAY_ATTEMPTS): a case faults in some JVMs and not in others (it is relative to
    live state such as where compiled code lies), so one fresh JVM is often not enough.
    `parse_file(path)` reads each file the replay leaves and returns (kind, Reports,
    reason), as collect.parse_path does; record and hs_err reports count.
    An identical case already replayed in this run with the same settings gives that
    replay's outcome again (`data`: the file's bytes when the caller has read them already).
    `settings`: ASGF_* variables (replay_env) laid over triage's own environment.
    Return (list of Reports, note)."""
    settings = {k: v for k, v in (settings or {}).items() if k not in RUN_OUTPUTS}   # older buckets' too
    if data is None:
        try:
            with open(path, 'rb') as f:
                data = f.read(1 << 20)
        except OSError:
            data = None
    key = None if data is None else (tuple(argv), attempts, tuple(sorted(settings.items())),
                                     hashlib.sha1(data).hexdigest())
    if key in _replayed:
        reps, note, first = _replayed[key]
        out = []
        for r in reps:
            c = copy.deepcopy(r)
            c.path = c.case_path = path
            c.extra['replay_shared_with'] = first
            out.append(c)
        return out, note
    reps, note = _replay(argv, path, parse_file, timeout, attempts, settings)
    if key is not None:
        _replayed[key] = (reps, note, path)
    return reps, note


def failed_to_run(note):
    """Whether a replay's note says the replay itself failed (it could not start, the
    tool refused its settings or the JVM did not come up, it timed out), not that the
    case ran without a fault: worth trying again on a later triage."""
    return (note.startswith('replay could not start') or note in ('replay exit 2', 'replay exit 3')
            or 'timed out' in note)


def _replay(argv, path, parse_file, timeout, attempts, settings):
    notes = []
    for k in range(attempts or REPLAY_ATTEMPTS):
        reports, note = _replay_once(argv, path, parse_file, timeout, settings)
        notes.append(note)
        if reports or note.startswith('replay could not start') or note in ('replay exit 2', 'replay exit 3'):
            if k:
                for r in reports:
                    r.extra['replay_attempt'] = k + 1
            return reports, note
    return [], '%d replays: %s' % (len(notes), ', '.join(sorted(set(notes))))


def _replay_once(argv, path, parse_file, timeout, settings):
    reports = []
    with tempfile.TemporaryDirectory(prefix='triage-replay-') as tmp:
        d = tmp
        if KEEP_DIR:
            d = os.path.join(KEEP_DIR, hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12])
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        try:
            proc = subprocess.run(argv + ['--record-dir', d, path], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  timeout=timeout, env=dict(os.environ, **settings))
            note = 'replay exit %d' % proc.returncode
        except subprocess.TimeoutExpired:
            note = 'replay timed out after %ds' % timeout
        except OSError as e:
            return [], 'replay could not start: %s' % e
        for root, _, files in os.walk(d):
            for name in sorted(files):
                p = os.path.join(root, name)
                kind, reps, _ = parse_file(p)
                if kind not in ('record', 'hs_err'):
                    continue            # the replay may leave other files (inflight cases, logs)
                for rep in reps:
                    rep.extra['replayed_from'] = kind
                    rep.extra['replayed_file'] = name
                    if KEEP_DIR:
                        rep.extra['report_file'] = p
                    rep.kind = 'fuzzer'
                    rep.path = path
                    rep.case_path = path
                    reports.append(rep)
    return reports, note


def needs_replay(path, flavour):
    rep = Report(kind='fuzzer', path=path)
    rep.extra['fuzzer'] = flavour
    rep.flag('needs-replay')
    rep.case_path = path
    return rep
