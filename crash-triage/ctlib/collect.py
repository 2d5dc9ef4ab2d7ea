"""Find crash reports in trees, detect their kind and run the right parser.

A file taken for an hs_err log in which parse_hserr finds no header is read as a
fragment; a fuzzer artifact is replayed and the files the replay leaves are read with
parse_path."""
import os
import re

from . import case as casefmt
from . import parse_asan, parse_fragment, parse_fuzzer, parse_hserr, parse_record
from .hserr_grammar import module_paths
from .model import NO_FAULT_REASON, NotAReport, Reason, decode, one_line, read_bounded

HEAD = 1 << 20
HSERR_NAME = re.compile(r'^hs_err_pid\d+(\.\d+)?\.log$')
RECORD_NAME = re.compile(r'^record-\d+-\d+-\d+\.txt$')
# in-flight case files: the core's inflight-<pid>-<tid>.bin (src/inflight.h) and the
# older bare form inflight-<tid>.case (raw case bytes)
INFLIGHT_NAME = re.compile(r'^inflight-(?:\d+-)?\d+\.(?:bin|case)$')
TAINT_NAME = re.compile(r'^tainted-\d+\.txt$')
INFLIGHT_MAGIC = b'ASGFINF1'
# per-key fault counters next to the records: one line per fault of that key
# (docs/crash-record.md), records kept or not
COUNT_NAME = re.compile(r'^faults-([0-9a-f]{16})\.txt$')
INFLIGHT_HEADER = 16
CASE_MAX = casefmt.MAX_SIZE  # the largest case any version allows
SKIP_DIRS = {'.git', '__pycache__'}


def parse_hserr_or_fragment(data, path):
    """parse_hserr.parse, or parse_fragment.parse for a file without the header (one
    named hs_err_pid*.log may be cut before it, or hold a paste).  Fails with both
    parsers' reasons; a benign reason of the fragment parser passes through as it is."""
    try:
        return parse_hserr.parse(data, path)
    except parse_hserr.NoHeader as no_header:
        try:
            return parse_fragment.parse(data, path)
        except NotAReport as e:
            if e.benign:
                raise
            raise NotAReport('%s and %s' % (no_header.reason, e.reason))


PARSERS = {
    'record': parse_record.parse,
    'hs_err': parse_hserr_or_fragment,
    'asan': parse_asan.parse,
    'fragment': parse_fragment.parse,
}
NOT_A_REPORT = ('not a crash report: no hs_err header, record magic, ASan error line, '
                'fuzzer artifact name or frame list')


def detect(data, path):
    """Kind of report in data ('record', 'hs_err', 'asan', 'fuzzer', 'fragment'), or None.

    'fragment' is the last resort: any other text that holds a frame list (pasted from
    a bug tracker, or an hs_err cut before its header)."""
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
    if parse_fragment.detect(head):
        return 'fragment'
    return None


def parse_data(data, path, kind=None, replay_argv=None):
    """Parse bytes; return (list of Reports, None) or ([], one-line reason).

    Never raises for any input."""
    try:
        kind = kind or detect(data, path)
        if kind is None:
            return [], NOT_A_REPORT
        if kind == 'fuzzer':
            flavour = parse_fuzzer.detect_path(path)
            if replay_argv:
                bad = casefmt.validate(data)
                if bad:         # the replay tool would refuse it too, a process later
                    return [], 'fuzzer artifact is not a valid case (%s): nothing to replay' % bad
                try:
                    settings, _ = parse_fuzzer.replay_env(path)
                except parse_fuzzer.BadSettings as e:
                    return [], Reason.make('fuzzer artifact not replayed: %s' % e, retry=True)
                reps, note = parse_fuzzer.replay(replay_argv, path, parse_path, data=data,
                                                 settings=settings)
                for r in reps:
                    r.extra['settings'] = settings   # attach_settings need not read them again
                if reps:
                    return reps, None
                if parse_fuzzer.failed_to_run(note):
                    return [], Reason.make('fuzzer artifact: the replay failed (%s)' % note, retry=True)
                return [], '%s (%s)' % (NO_FAULT_REASON, note)
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
        return None, [], NOT_A_REPORT
    if len(head) < HEAD:
        data, oversize = head, False    # the whole file is already here
    else:
        try:
            data, oversize = read_bounded(path)
        except OSError as e:
            return kind, [], 'unreadable: %s' % one_line(e)
    reps, reason = parse_data(data, path, kind=kind, replay_argv=replay_argv)
    for r in reps:
        if oversize:
            r.flag('oversize')
        attach_inflight(r)
        attach_taint(r, path)
        attach_sysroot(r, path)
        attach_run_libraries(r, path)
        attach_settings(r, path)
    return kind, reps, reason


def _parse_job(job):
    return parse_path(job[0], replay_argv=job[1])


def parse_paths(paths, replay_argv=None, jobs=None):
    """parse_path for each path, results in order, by `jobs` processes (default one per
    CPU) when there is enough to share: files, and the replays of fuzzer artifacts, are
    independent of each other."""
    jobs = jobs or os.cpu_count() or 1
    if jobs < 2 or len(paths) < 64:
        return [parse_path(p, replay_argv=replay_argv) for p in paths]
    import multiprocessing
    with multiprocessing.get_context('fork').Pool(min(jobs, 64)) as pool:
        return pool.map(_parse_job, [(p, replay_argv) for p in paths], chunksize=16)


def read_inflight(path, tid=None):
    """Case bytes of an in-flight file, or None.

    inflight-<pid>-<tid>.bin: "ASGFINF1" | u32 LE length | u32 LE tid | case bytes.
    The tid in the header must match `tid` when given; an empty or over-long payload,
    or one that does not start with the case magic, is no case (the thread had not
    made a call yet, or the file is damaged)."""
    try:
        with open(path, 'rb') as f:
            data = f.read(INFLIGHT_HEADER + CASE_MAX + 1)
    except OSError:
        return None
    if data[:8] == INFLIGHT_MAGIC:
        if len(data) < INFLIGHT_HEADER:
            return None
        n = int.from_bytes(data[8:12], 'little')
        htid = int.from_bytes(data[12:16], 'little')
        if tid is not None and htid != tid:
            return None
        body = data[INFLIGHT_HEADER:INFLIGHT_HEADER + n]
        if n < 16 or n > CASE_MAX or len(body) != n or body[:4] != b'ASGF':
            return None
        return body
    if data[:4] == b'ASGF' and 16 <= len(data) <= CASE_MAX:
        return data          # bare case bytes (inflight-<tid>.case)
    return None


def attach_sysroot(rep, path):
    """A report from a JVM run in a JDK's root (ci/install-jdk) names modules as the root
    sees them: the run directory's `sysroot` file (stress/run and the fuzz harnesses write
    it) says where that root is, for reports that do not say so themselves (hs_err files)."""
    if rep.extra.get('sysroot'):
        return
    root = sysroot_of(os.path.dirname(path))
    if root:
        rep.extra['sysroot'] = root


def sysroot_of(run_dir):
    """The root named by run_dir's `sysroot` file, or None (no file: not run in a root)."""
    try:
        with open(os.path.join(run_dir, 'sysroot')) as f:
            root = f.read(300).strip()
    except OSError:
        return None
    return root if root.startswith('/') and '\n' not in root else None


def run_libraries(path):
    """{path: build-id or None} of the run directory's `libraries` file beside path (one
    module a line: its path, then a tab and the build-id it was loaded with, when the
    writer knew it), or None when there is none or it was written after the report: a
    later run's in a reused directory, perhaps of another JDK."""
    libs = os.path.join(os.path.dirname(path), 'libraries')
    try:
        if os.stat(libs).st_mtime_ns > os.stat(path).st_mtime_ns:
            return None
        with open(libs, errors='replace') as f:
            lines = f.read(1 << 16).splitlines()
    except OSError:
        return None
    out = {}
    for line in lines:
        p, _, bid = line.strip().partition('\t')
        if p.startswith('/'):
            out[p] = bid if re.fullmatch(r'[0-9a-f]{2,128}', bid) else None
    return out


def attach_run_libraries(rep, path):
    """Module paths for frames that name a module without its path, and the build-id
    each module ran with, from the run directory's `libraries` file (the agent and the
    fuzz harnesses write it once the VM is up; stress/run, without build-ids, when the
    agent did not).

    An hs_err cut short before its `Dynamic libraries:` list needs the paths: HotSpot's
    report can stall in its symbol lookup (another thread that faulted at the same time
    holds a lock the lookup needs) and then ends at `[libjvm.so+0x...]` with no name,
    which only addr2line on the VM's own libjvm can give. The build-ids say whether the
    libjvm at that path now is still that VM (a build directory rebuilt since has other
    code at those offsets); a record names its own."""
    libs = run_libraries(path)
    if not libs:
        return
    if not all(f.module in rep.module_paths for f in rep.frames if f.module and '/' not in f.module):
        listed = module_paths(list(libs), rep.frames, path_of=lambda l: l)
        rep.module_paths = {**listed, **rep.module_paths}    # the report's own list comes first
    # a replay's report ran on the VM here now, not on the run's: no build-ids of that run
    if rep.kind != 'record' and not rep.extra.get('build_ids') and not rep.extra.get('replayed_from'):
        used = {os.path.basename(f.module) for f in rep.frames if f.module}
        ids = {p: b for p, b in libs.items() if b and (os.path.basename(p) in used or p.endswith('/libjvm.so'))}
        if ids:
            rep.extra['build_ids'] = ids


def attach_settings(rep, path):
    """The harness settings of the fuzzer run that made the report (its replay.env), for a
    replay of its case to run as that run did: crash-triage/repro reads them off the bucket
    member, which thus needs no replay.env beside it any more. A replay.env that cannot
    be read leaves none here; repro, looking for them itself, names its bad line."""
    if 'settings' in rep.extra:     # a replayed artifact's, read for its replay
        return
    try:
        settings, _ = parse_fuzzer.report_settings(path, artifact=rep.kind == 'fuzzer')
    except parse_fuzzer.BadSettings:
        return
    if settings:
        rep.extra['settings'] = settings


def attach_taint(rep, path):
    """hs_err: the process's taint, from the tainted-PID.txt its guard wrote beside it when a
    fault was caught inside a state-changing call (a record carries its own line). One
    written after the report belongs to a later process that reused the pid."""
    if rep.kind != 'hs_err' or rep.pid is None:
        return      # a record carries its own line; the tainting fault's own record has none
    tf = os.path.join(os.path.dirname(path), 'tainted-%d.txt' % rep.pid)
    try:
        if os.stat(tf).st_mtime_ns > os.stat(path).st_mtime_ns:
            return
        with open(tf, errors='replace') as f:
            taint = parse_record.parse_taint(f.read(200))
    except OSError:
        return
    if taint:
        rep.extra['tainted'] = taint


def attach_inflight(rep):
    """hs_err: pair the in-flight case the harness left for the crashing thread.

    Looks next to the hs_err for inflight-<pid>-<tid>.bin (the core's format), then
    for inflight-<tid>.case.  Files of other pids or threads are not used."""
    if rep.kind != 'hs_err' or rep.tid is None or rep.case_path or rep.case is not None:
        return
    d = os.path.dirname(rep.path) or '.'
    cands = []
    if rep.pid is not None:
        cands.append(os.path.join(d, 'inflight-%d-%d.bin' % (rep.pid, rep.tid)))
    cands.append(os.path.join(d, 'inflight-%d.case' % rep.tid))
    for p in cands:
        if not os.path.isfile(p):
            continue
        case = read_inflight(p, rep.tid)
        if case is not None:
            rep.case = case
            rep.extra['inflight'] = os.path.basename(p)
            return


def count_file(path):
    """(key, faults) for a record-count file, None for any other file."""
    m = COUNT_NAME.match(os.path.basename(path))
    if not m:
        return None
    total = 0
    try:
        with open(path, 'rb') as f:
            for chunk in iter(lambda: f.read(1 << 16), b''):
                total += chunk.count(b'\n')
    except OSError:
        return None
    return m.group(1), total


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
                if INFLIGHT_NAME.match(name) or TAINT_NAME.match(name):
                    continue         # paired with its hs_err, not a report itself
                if name.startswith('.') and name.endswith('.tmp'):
                    continue         # a record being written (renamed when whole)
                p = os.path.join(root, name)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                yield p
