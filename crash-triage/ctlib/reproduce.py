"""Run a case again and tell whether the same crash comes back (repro, minimize).

Two ways to run a case:
  replay  build/fuzz/asgf-replay: an embedded JVM runs the case on a worker thread,
          -n W times; records (protection on) or an hs_err (off) go to --record-dir.
  stress  stress/run with the agent replaying a one-case corpus (mutate=corpus:DIR)
          on every sample it aims at Java code, for --time.
Every attempt gets a fresh directory; the reports found there are parsed, symbolized
and titled with the same rules as triage, and compared with the expected signature."""
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional

from . import case as casefmt
from . import buckets, collect, outdir, parse_fuzzer, signature
from . import jdk as jdklib
from .symbolize import Symbolizer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIG_RE = re.compile(r'^[0-9a-f]{6,64}$')
FAULTS_RE = re.compile(r'^\s*faults:\s*(\d+)/(\d+) runs')
NOTRUN_RE = re.compile(r'not-run=(\d+)')


class InputError(Exception):
    """Bad target or option: exit status 2."""


@dataclass
class Target:
    label: str                       # what the user gave, for messages
    case: casefmt.Case
    data: bytes                      # canonical binary case
    case_path: str
    bucket_dir: Optional[str] = None
    title: Optional[str] = None      # expected title / signature (None: any fault counts)
    signature: Optional[str] = None
    bucket: Optional[dict] = None
    # a bucket's: the names it also answers to (buckets triage folded into it), and
    # its frames and signal class, which a shallower unwind of the same fault starts with
    also: set = field(default_factory=set)
    frames: List[str] = field(default_factory=list)
    signal: Optional[str] = None
    # the other buckets beside it in its triage output, but those folded into it: their
    # (frames, signal class), and their signatures. A shallow unwind that continues into
    # one of them too, or that has a bucket of its own there, is not one triage would
    # fold into this bucket.
    rivals: list = field(default_factory=list)
    siblings: set = field(default_factory=set)

    def expects(self):
        return self.title is not None or self.signature is not None

    def matches(self, title, sig, found=None):
        """Whether a report of this title and signature is the target's fault: its
        own names, a bucket folded into it, or (found: the Found) a backtrace that ended
        early on the bucket's first frames, which triage would fold into it."""
        if not self.expects():
            return True
        if (self.signature is not None and sig == self.signature) or \
                (self.title is not None and title == self.title):
            return True
        if sig in self.also or title in self.also:
            return True
        return bool(found is not None and found.ended_early
                    and signature.continues(self.frames, self.signal, found.frames, found.signal)
                    and found.signature not in self.siblings
                    and not any(signature.continues(f, g, found.frames, found.signal) for f, g in self.rivals))


@dataclass
class Found:
    title: str
    signature: str
    kind: str
    file: str
    flags: List[str] = field(default_factory=list)
    frames: List[str] = field(default_factory=list)
    ended_early: bool = False
    signal: Optional[str] = None


@dataclass
class Attempt:
    index: int
    ran: bool = True                 # the tool ran the case (False: start-up failure, ...)
    verdict: str = ''                # replay: fault / no fault; stress: its verdict word
    reports: List[Found] = field(default_factory=list)
    walks: Optional[int] = None
    faults: Optional[int] = None
    seconds: float = 0.0
    note: str = ''
    dir: Optional[str] = None

    def matched(self, target):
        return [r for r in self.reports if target.matches(r.title, r.signature, r)]


# -- targets --------------------------------------------------------------------------------

def _bucket_of(path):
    """The bucket directory holding path (the bucket dir itself, or its cases/), or None."""
    p = os.path.abspath(path)
    for d in (p if os.path.isdir(p) else os.path.dirname(p),
              os.path.dirname(os.path.dirname(p))):
        if os.path.isfile(os.path.join(d, 'bucket.json')):
            return d
    return None


# The bucket.json fields the tools read, with the type each must have when present.
BUCKET_FIELDS = {'signature': str, 'title': str, 'count': int, 'jdk': dict, 'representative': dict,
                 'sources': dict, 'members': list, 'via': dict}


def bucket_shape_problem(doc):
    """What is wrong with a bucket.json's shape (as a phrase), or None."""
    if not isinstance(doc, dict):
        return 'holds a %s, not an object' % type(doc).__name__

    def a(name):
        return ('an ' if name[0] in 'aeio' else 'a ') + name

    def wrong(where, v, want):
        return '%s is %s, not %s' % (where, a(type(v).__name__), a(want.__name__))
    for key, want in BUCKET_FIELDS.items():
        if doc.get(key) is not None and not isinstance(doc[key], want):
            return wrong('field %r' % key, doc[key], want)
    # the member records the tools open: the representative's and each member's path
    parts = [('representative', doc.get('representative'))]
    parts += [('members[%d]' % i, m) for i, m in enumerate(doc.get('members') or [])]
    for where, m in parts:
        if m is None and where == 'representative':
            continue
        if not isinstance(m, dict):
            return wrong(where, m, dict)
        if m.get('path') is not None and not isinstance(m['path'], str):
            return wrong(where + '.path', m['path'], str)
        # the harness settings a replay runs in: its environment, names to strings
        st = m.get('settings')
        if st is not None and not isinstance(st, dict):
            return wrong(where + '.settings', st, dict)
        for k, v in (st or {}).items():
            if not isinstance(v, str):
                return wrong('%s.settings[%r]' % (where, k), v, str)
    return None


def read_bucket(bdir):
    """A bucket directory's bucket.json, its shape checked; InputError saying what is wrong,
    as a phrase (the caller names the bucket)."""
    try:
        with open(os.path.join(bdir, 'bucket.json')) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError('unreadable bucket.json: %s' % e)
    why = bucket_shape_problem(doc)
    if why:
        raise InputError('bucket.json %s' % why)
    return doc


def _rivals(bdir, t):
    """The other buckets of bdir's triage output, but those folded into it: [(frames,
    signal class)] and their signatures. A damaged neighbour is skipped: it is the
    target's own file that must be sound. A bucket copied out of its triage output
    (a directory other than OUT/buckets/ of a directory triage marked as its own) has
    none: buckets gathered there by hand came from other runs, which triage never
    weighed against each other."""
    base = os.path.dirname(os.path.abspath(bdir))
    got, names = [], set()
    top = os.path.dirname(base)
    if os.path.basename(base) != 'buckets' or not any(
            os.path.isfile(os.path.join(top, n)) for n in (outdir.MARKER, 'index.json')):
        return got, names
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if d == os.path.abspath(bdir) or name in t.also or not os.path.isfile(os.path.join(d, 'bucket.json')):
            continue
        try:
            b = read_bucket(d)
        except InputError:
            continue
        if b.get('signature') in t.also:
            continue
        names.add(b.get('signature') or name)
        if b.get('frames'):
            got.append((list(b['frames']), b.get('signal')))
    return got, names


def load_target(arg, out=None, expect=None):
    """Resolve TARGET: a bucket directory, its bucket.json, a signature (looked up in
    OUT/buckets/), or a case file (binary or text). Raises InputError."""
    path = arg
    if not os.path.exists(arg) and SIG_RE.match(arg):
        base = os.path.join(out or '.', 'buckets')
        hits = sorted(n for n in (os.listdir(base) if os.path.isdir(base) else [])
                      if n.startswith(arg))
        if len(hits) != 1:
            raise InputError('%s: no such file, and %s bucket%s in %s' % (
                arg, 'no' if not hits else 'several', '' if not hits else 's', base))
        path = os.path.join(base, hits[0])
    if not os.path.exists(path):
        raise InputError('%s: no such file or directory' % arg)
    if os.path.basename(path) == 'bucket.json':
        path = os.path.dirname(path) or '.'
    bdir = None
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, 'bucket.json')):
            raise InputError('%s: a directory without bucket.json (give a bucket directory '
                             'OUT/buckets/<signature> or a case file)' % arg)
        bdir = path
        case_path = os.path.join(path, 'smallest.case')
        if not os.path.isfile(case_path):
            try:
                damaged = read_bucket(path).get('damaged_case')
            except InputError:
                damaged = None
            if isinstance(damaged, dict) and damaged.get('file'):
                raise InputError('%s: this bucket has no valid case file: its reports carried %d, all '
                                 'damaged (see %s)' % (arg, damaged.get('count') or 1,
                                                       os.path.join(path, damaged['file'])))
            raise InputError('%s: this bucket has no case file (none of its reports carried '
                             'one: hs_err without an in-flight file, ASan report)' % arg)
    else:
        case_path = path
        bdir = _bucket_of(path)
    try:
        c, data = casefmt.load(case_path)
    except (OSError, casefmt.CaseError) as e:
        raise InputError('%s: not a case file: %s' % (case_path, e))
    t = Target(label=arg, case=c, data=data, case_path=case_path, bucket_dir=bdir)
    if bdir:
        try:
            t.bucket = read_bucket(bdir)
        except InputError as e:
            raise InputError('%s: %s' % (bdir, e))
        t.title = t.bucket.get('title')
        t.signature = t.bucket.get('signature')
        t.also = {x for f in t.bucket.get('folded') or [] for x in (f.get('signature'), f.get('title')) if x}
        t.frames = list(t.bucket.get('frames') or [])
        t.signal = t.bucket.get('signal')
        t.rivals, t.siblings = _rivals(bdir, t)
    if expect:
        if SIG_RE.match(expect):
            t.signature, t.title = expect, None
        else:
            t.title, t.signature = expect, None
        t.also, t.frames = set(), []
    return t


def case_member(t):
    """The bucket member the target's case file came from (smallest.case: the member triage
    copied it from; cases/NAME: the member that holds it), or None."""
    if not t.bucket:
        return None
    rel = os.path.relpath(os.path.abspath(t.case_path), os.path.abspath(t.bucket_dir))
    if rel == 'smallest.case':
        return buckets.smallest_member(t.bucket)
    members = [m for m in t.bucket.get('members') or [] if isinstance(m, dict)]
    return next((m for m in members if m.get('case') == rel.replace(os.sep, '/')), None)


def harness_settings(t):
    """(ASGF_* settings, where they come from) of the fuzzer run that made the target's case,
    for a replay to run it as that run did (its workload, API, preloaded provider...):
    a bucket member's own (triage keeps them in bucket.json), else the replay.env beside or
    above the member's report, or beside or above a case file given alone (a fuzzer's
    crash-<sha1>). ({}, None) when there are none: a stress job's case, or a case without
    a run. InputError names a replay.env line that is not ASGF_NAME=VALUE."""
    m = case_member(t)
    if m is not None and isinstance(m.get('settings'), dict):
        return dict(m['settings']), '%s (member %s)' % (os.path.join(t.bucket_dir, 'bucket.json'), m.get('id'))
    if m is not None:
        path, artifact = m.get('path'), m.get('kind') == 'fuzzer'
    elif t.bucket is None:
        path, artifact = t.case_path, True
    else:
        return {}, None
    if not path:
        return {}, None
    try:
        settings, f = parse_fuzzer.report_settings(path, artifact)
    except parse_fuzzer.BadSettings as e:
        raise InputError('the harness settings of the run that found this case: %s' % e)
    return settings, f if settings else None


def symcache_for(target):
    """The triage run's symbol cache when the target is one of its buckets, else a
    per-user one in the temp directory (addr2line on libjvm takes seconds when cold)."""
    if target is not None and target.bucket_dir:
        out = os.path.dirname(os.path.dirname(os.path.abspath(target.bucket_dir)))
        p = os.path.join(out, 'symcache.json')
        if os.path.exists(p) and os.access(p, os.W_OK):
            return p
    return os.path.join(tempfile.gettempdir(), 'crash-triage-symcache-%d.json' % os.getuid())


# -- reading what a run left -----------------------------------------------------------------

def classify(d, rules, sym):
    """Titles of every report (record, hs_err) under directory d."""
    reps = []
    for p in collect.walk([d]):
        kind, rs, _ = collect.parse_path(p)
        if kind in ('record', 'hs_err'):
            reps.extend(rs)
    if sym is not None:
        sym.symbolize(reps)
        sym.save()
    out = []
    for r in reps:
        title = signature.describe(r, rules)
        out.append(Found(title, r.extra['signature'], r.kind, r.path, list(r.flags),
                         list(r.extra.get('frames') or []), bool(r.extra.get('ended_early')),
                         rules.signal_class(r)))
    return out


# -- running --------------------------------------------------------------------------------

def wilson(k, n, z=1.96):
    """95 % Wilson score interval for k successes in n trials, as (lo, hi) in [0, 1]."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def seconds_of(spec):
    m = re.fullmatch(r'(\d+(?:\.\d+)?)(ms|s|m|h)?', spec or '')
    v = float(m.group(1)) * {'ms': 0.001, 's': 1, 'm': 60, 'h': 3600, None: 1}[m.group(2)] if m else 0
    if not v > 0:     # a run of no time would run nothing, each attempt "not run"
        raise InputError('--time wants a duration such as 10s or 2m, got %r' % spec)
    return v


def finding_command(member_path):
    """The command of the run that made a report: the attempt's cmd file beside it or one level
    up (ci/job writes one per attempt), or None."""
    d = os.path.dirname(member_path or '')
    for cmd in (os.path.join(d, 'cmd'), os.path.join(os.path.dirname(d), 'cmd')):
        try:
            with open(cmd, encoding='utf-8', errors='replace') as f:
                return f.read().strip()
        except OSError:
            continue
    return None


# Agent options that shape the VM and the sampling a case met, rather than how cases are
# made (mutate, seed, qops) or where results go: a stress run of the case takes them from the
# run that found it. vthread_warmup=0 keeps a VM that never entered a continuation, the only
# state in which 21's ContinuationEntry::to_frame() faults (src/vm_warmup.h); mode decides who
# walks; interval, timer and the other walkers decide how often the VM is caught where.
STATE_OPTIONS = ('vthread_warmup', 'mode', 'interval', 'timer', 'aim', 'depth', 'queue_ops', 'queue_size',
                 'suspend', 'jvmti_walk')

# stress/run options of the workload itself (threads, heap, the VM's own walkers beside the
# samplers) that a stress run of a case carries over: option -> takes a value.
WORKLOAD_OPTIONS = {'--threads': True, '--heap': True, '--jcmd': True, '--jfr': False, '--jsig': False,
                    '--whitebox': False}


def stress_words(cmd):
    """The words of a finding command's last line when it is a stress/run command, else None:
    a stress job's case acts on the thread state of that job's workload."""
    try:
        words = shlex.split(cmd.splitlines()[-1]) if cmd else []
    except ValueError:
        return None
    return words if words and words[0].endswith('stress/run') else None


def stress_settings(cmd):
    """(scenario, JVM flags, agent options) of a stress/run command line (its last line),
    each None when absent; (None, None, None) for anything else. A replay needs all three:
    forged words found under -Xint mean nothing to compiled frames, and the agent options
    kept are the STATE_OPTIONS of its --agent."""
    words = stress_words(cmd)
    if not words:
        return None, None, None

    def value(opt):
        return words[words.index(opt) + 1] if opt in words[:-1] else None
    kept = [o for o in (value('--agent') or '').split(',') if o.partition('=')[0] in STATE_OPTIONS]
    return value('--scenario'), value('--jvm-flags'), ','.join(kept) or None


def workload_args(cmd):
    """The WORKLOAD_OPTIONS of a stress/run command line as one string ('--threads 2 --jfr'),
    or None."""
    words = stress_words(cmd) or []
    out = []
    for i, w in enumerate(words):
        if w in WORKLOAD_OPTIONS:
            out += words[i:i + 2] if WORKLOAD_OPTIONS[w] else [w]
    return ' '.join(shlex.quote(w) for w in out) or None


def check_workload_args(text):
    """The words of a --stress-args value; InputError naming the first word that is not one of
    WORKLOAD_OPTIONS or lacks its value."""
    try:
        words = shlex.split(text or '')
    except ValueError as e:
        raise InputError('--stress-args %r: %s' % (text, e))
    i = 0
    while i < len(words):
        w = words[i]
        if w not in WORKLOAD_OPTIONS:
            raise InputError('--stress-args: word %d, %r, is not one of %s' % (
                i + 1, w, ' '.join(sorted(WORKLOAD_OPTIONS))))
        if WORKLOAD_OPTIONS[w] and (i + 1 >= len(words) or words[i + 1].startswith('--')):
            raise InputError('--stress-args: %s (word %d) needs a value' % (w, i + 1))
        i += 2 if WORKLOAD_OPTIONS[w] else 1
    return words


def replay_binary():
    build = os.environ.get('BUILD') or os.path.join(REPO, 'build')
    if not os.path.isabs(build):
        build = os.path.join(REPO, build)
    return os.path.join(build, 'fuzz', 'asgf-replay')


def default_via():
    b = replay_binary()
    return 'replay' if os.path.isfile(b) and os.access(b, os.X_OK) else 'stress'


def check_output(path, what):
    """Refuses an output path that cannot be written, before any work is done: a result
    computed for minutes and then lost to a typo in -o is worse than an early error."""
    if os.path.isdir(path):
        raise InputError('%s %s is a directory' % (what, path))
    if os.path.exists(path):   # /dev/stdout, or a file in a directory we may not add to
        if not os.access(path, os.W_OK):
            raise InputError('%s %s: not writable' % (what, path))
        return
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError('%s %s: directory %s does not exist' % (what, path, parent))
    if not os.access(parent, os.W_OK):
        raise InputError('%s %s: directory %s is not writable' % (what, path, parent))


def check_output_dir(path, what):
    """As check_output, for a directory that will be made (or is there)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError('%s %s exists and is not a directory' % (what, path))
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK):
        raise InputError('%s %s: %s is not a writable directory' % (what, path, probe))


class Runner:
    """Runs one attempt of a case with replay or stress, in a fresh directory."""

    def __init__(self, via, rules, sym, java_home=None, protect=1, scenario=None,
                 duration='10s', walks=1, api='auto', test_plant=None, agent_extra=None,
                 env=None, keep=None, timeout=None, seed_base=1, jvm_flags=None, stress_args=None,
                 keep_first=False):
        if via not in ('replay', 'stress'):
            raise InputError('--via wants replay or stress, got %r' % via)
        if jvm_flags and via != 'stress':
            # the replay tool starts its JVM with fixed options; a case found
            # under -Xint or another GC must run under the same flags
            raise InputError('--jvm-flags needs --via stress')
        if stress_args and via != 'stress':
            raise InputError('--stress-args needs --via stress')
        self.jvm_flags = jvm_flags
        self.stress_args = stress_args
        self.stress_words = check_workload_args(stress_args)
        self.via = via
        self.rules = rules
        self.sym = sym
        self.java_home = java_home
        self.protect = protect
        # '' for stress: stress/run's own default workload (a finding command that named none)
        self.scenario = scenario if scenario is not None else ('spin,inline' if via == 'stress' else None)
        self.duration = duration
        self.seconds = seconds_of(duration)
        self.walks = walks
        self.api = api
        self.test_plant = test_plant
        self.agent_extra = agent_extra
        self.env = dict(env or {})
        self.keep = keep
        self.timeout = timeout
        self.seed_base = seed_base
        self.count = 0
        # keep_first (without keep): the first faulting attempt's directory stays, as evidence
        self.keep_first, self.kept = keep_first, None
        if timeout is not None and timeout < 1:
            raise InputError('--timeout wants seconds >= 1, got %d' % timeout)
        if java_home:
            why = jdklib.home_problem(java_home, needs_libjvm=via == 'replay')
            if why:
                raise InputError('--java-home %s' % why)
        # (the replay tool finds the JDK it was built with by itself)
        if via == 'stress' and not (java_home or os.environ.get('JAVA_HOME') or shutil.which('java')):
            raise InputError('no JDK to run the case on: give --java-home, set JAVA_HOME, or put java on PATH')
        if via == 'replay':
            self.tool = replay_binary()
            if not (os.path.isfile(self.tool) and os.access(self.tool, os.X_OK)):
                raise InputError('%s is not built (make -f Makefile -f fuzz/fuzz.mk fuzz-build), '
                                 'use --via stress' % self.tool)
        else:
            self.tool = os.path.join(REPO, 'stress', 'run')

    def describe(self):
        if self.via == 'replay':
            return ('replay (%s): fresh JVM per attempt, %d walk%s each, protection %s%s%s%s' % (
                os.path.relpath(self.tool, REPO), self.walks, '' if self.walks == 1 else 's',
                'on' if self.protect else 'off',
                ', scenario %s' % self.scenario if self.scenario else '',
                ', JDK %s' % self.java_home if self.java_home else '',
                ', TEST HOOK test_plant=%s' % self.test_plant if self.test_plant else ''))
        return ('stress (stress/run --scenario %s --time %s%s%s, agent mutate=corpus:<the case>%s): '
                'one run per attempt, protection %s%s%s' % (
                    self.scenario or "(stress/run's default)", self.duration,
                    " --jvm-flags '%s'" % self.jvm_flags if self.jvm_flags else '',
                    ' ' + self.stress_args if self.stress_args else '',
                    ',' + self.agent_extra if self.agent_extra else '',
                    'on' if self.protect else 'off',
                    ', JDK %s' % self.java_home if self.java_home else '',
                    ', TEST HOOK test_plant=%s' % self.test_plant if self.test_plant else ''))

    def _dir(self, index):
        if self.keep:
            d = os.path.join(self.keep, 'attempt-%03d' % index)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            return d, False
        return tempfile.mkdtemp(prefix='triage-repro-'), True

    def attempt(self, data, walks=None):
        """One attempt: a fresh JVM (replay: running the case `walks` times)."""
        self.count += 1
        index = self.count
        d, remove = self._dir(index)
        t0 = time.time()
        try:
            with open(os.path.join(d, 'case.bin'), 'wb') as f:
                f.write(data)
            if self.via == 'replay':
                a = self._replay(d, index, walks or self.walks)
            else:
                a = self._stress(d, index)
            out = os.path.join(d, 'out')
            a.reports = classify(out, self.rules, self.sym) if os.path.isdir(out) else []
            if a.reports and not a.faults:
                a.faults = len(a.reports)
            if remove and a.reports and self.keep_first and self.kept is None:
                # The hs_err file or crash record of a reproduction is the evidence a
                # bug report wants: the first one stays, the rest go unless --keep.
                self.kept, remove = d, False
            a.dir = None if remove else d
            a.seconds = time.time() - t0
            return a
        finally:
            if remove:
                shutil.rmtree(d, ignore_errors=True)

    def _env(self):
        env = dict(os.environ)
        env.update(self.env)
        if self.java_home:
            env['JAVA_HOME'] = self.java_home
        return env

    def _replay(self, d, index, walks):
        env = self._env()
        for k in parse_fuzzer.RUN_OUTPUTS:     # the finding run's files, not this replay's
            env.pop(k, None)
        env['ASGF_PROTECT'] = '1' if self.protect else '0'
        env.setdefault('ASGF_QUIET', '1')
        if self.api:
            env['ASGF_API'] = self.api
        if self.scenario:
            env['ASGF_SCENARIO'] = self.scenario
        if self.test_plant:
            env['ASGF_TEST_PLANT'] = self.test_plant
        # fuzz/replay finds libjvm from JAVA_HOME, and runs the tool inside the root of a
        # JDK that ci/install-jdk put in one: the tool alone cannot load that libjvm (it
        # wants the root's newer glibc), exits 1, and looked like a clean run.
        env['BUILD'] = os.path.dirname(os.path.dirname(self.tool))
        out = os.path.join(d, 'out')
        argv = [os.path.join(REPO, 'fuzz', 'replay'), '-n', str(walks), '--record-dir', out,
                os.path.join(d, 'case.bin')]
        a = Attempt(index)
        timeout = self.timeout or 120 + walks // 100
        p = _run(a, argv, env, timeout, 'replay timed out after %ds', cwd=d)
        if p is None:
            return a
        text = p.stdout.decode('utf-8', 'replace')
        with open(os.path.join(d, 'replay.log'), 'wb') as f:
            f.write(p.stdout + b'\n--- stderr\n' + p.stderr)
        for line in text.splitlines():
            m = FAULTS_RE.match(line)
            if m:
                a.faults, a.walks = int(m.group(1)), int(m.group(2))
            m = NOTRUN_RE.search(line)
            if m and a.walks is not None:
                a.note = '%s walks not run' % m.group(1)
        rc = p.returncode
        if rc in (2, 3):
            a.ran, a.verdict = False, 'not run'
            a.note = 'replay exit %d: %s' % (rc, _last_line(p.stderr) or _last_line(p.stdout))
        elif rc == 4:
            a.verdict, a.note = 'not run', 'the worker never answered (replay exit 4)'
        elif rc >= 0 and a.faults is None:
            # every run of the tool ends with its faults line: without one it never
            # walked (a loader error, 126/127 from the root's runner, a JVM that did not
            # start), whatever its status. A JVM that dies of its crash dies by a signal.
            a.ran, a.verdict = False, 'not run'
            a.note = 'replay exit %d without a result: %s' % (
                rc, _last_line(p.stderr) or _last_line(p.stdout))
        elif rc < 0 and a.faults is None and not _left_a_report(out):
            # Killed before any result, and with nothing HotSpot or the guard wrote: the
            # JVM never came up (a libjvm cut short dies of SIGBUS as it loads). A JVM
            # that dies of the case leaves its hs_err first.
            a.ran, a.verdict = False, 'not run'
            a.note = 'replay killed by signal %d before any result or report: %s' % (
                -rc, _last_line(p.stderr) or _last_line(p.stdout) or 'no output')
        elif rc < 0 or (rc not in (0, 1)):
            a.verdict = 'crashed'          # protection off: the JVM died (hs_err in out/)
            a.note = 'replay exit %d' % rc
            if a.faults is None:
                a.faults, a.walks = None, walks
        else:
            a.verdict = 'fault' if a.faults else 'no fault'
        return a

    def _stress(self, d, index):
        corpus = os.path.join(d, 'corpus')
        os.makedirs(corpus)
        shutil.copy(os.path.join(d, 'case.bin'), os.path.join(corpus, 'case.bin'))
        out = os.path.join(d, 'out')
        opts = ['mutate=corpus:%s' % corpus, 'protect=%d' % (1 if self.protect else 0),
                'seed=%d' % (self.seed_base + index), 'stats=0']
        if self.api:
            opts.append('api=%s' % self.api)
        if self.test_plant:
            opts.append('test_plant=%s' % self.test_plant)
        if self.agent_extra:
            opts.append(self.agent_extra)
        argv = [self.tool] + (['--scenario', self.scenario] if self.scenario else []) + ['--time', self.duration,
                '--agent', ','.join(opts), '--out', out]
        if self.java_home:
            argv += ['--java-home', self.java_home]
        if self.jvm_flags:
            argv += ['--jvm-flags', self.jvm_flags]
        argv += self.stress_words
        a = Attempt(index)
        timeout = self.timeout or int(self.seconds * 1.25) + 90
        p = _run(a, argv, self._env(), timeout, 'stress/run did not return within %ds')
        if p is None:
            return a
        rc = p.returncode
        a.verdict = {0: 'clean', 1: 'faults', 2: 'crashed', 3: 'hung', 4: 'not run'}.get(rc, 'exit %d' % rc)
        if rc == 4:
            a.ran = False
            a.note = _last_line(p.stderr) or _last_line(p.stdout)
        try:
            with open(os.path.join(out, 'summary.json')) as f:
                s = json.load(f)
            a.walks, a.faults = s.get('walks'), s.get('faults')
        except (OSError, ValueError):
            pass
        return a

    def shared(self, data, n):
        """Replay only: one JVM runs the case n times (walks are not independent JVMs)."""
        return self.attempt(data, walks=n)


def _left_a_report(d):
    """Whether a run left an hs_err file or a crash record anywhere under d."""
    for _, _, files in os.walk(d):
        if any(collect.HSERR_NAME.match(f) or collect.RECORD_NAME.match(f) for f in files):
            return True
    return False


def _run(a, argv, env, timeout, hung, cwd=None):
    """Run one attempt's tool; None (with Attempt a's verdict set) if it hung or could not
    start."""
    try:
        return subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        a.verdict, a.note = 'hung', hung % timeout
    except OSError as e:
        a.ran, a.verdict, a.note = False, 'not run', str(e)
    return None


def _last_line(b):
    lines = [l for l in b.decode('utf-8', 'replace').splitlines() if l.strip()]
    return lines[-1][:300] if lines else ''


# -- a reproduction series -------------------------------------------------------------------

def summarize(target, attempts):
    n = len(attempts)
    ran = [a for a in attempts if a.ran]
    fault = [a for a in ran if a.reports or a.faults]
    same = [a for a in ran if a.matched(target)]
    seen = {}
    for a in ran:
        for r in a.reports:
            e = seen.setdefault(r.signature, {'signature': r.signature, 'title': r.title,
                                              'count': 0, 'kinds': {}, 'expected': False})
            e['count'] += 1
            e['kinds'][r.kind] = e['kinds'].get(r.kind, 0) + 1
            e['expected'] = target.expects() and target.matches(r.title, r.signature, r)
    walks = sum(a.walks or 0 for a in ran)
    wfaults = sum(a.faults or 0 for a in ran)
    lo, hi = wilson(len(same), len(ran))
    return {
        'attempts': n, 'ran': len(ran), 'faulted': len(fault), 'same_signature': len(same),
        'rate': len(same) / len(ran) if ran else 0.0, 'rate_ci95': [lo, hi],
        'fault_rate': len(fault) / len(ran) if ran else 0.0,
        'walks': walks, 'walks_faulted': wfaults,
        'signatures': sorted(seen.values(), key=lambda e: (-e['count'], e['signature'])),
        'expected': {'title': target.title, 'signature': target.signature},
        'reproduced': bool(same), 'verdicts': _hist(a.verdict for a in attempts),
        'seconds': sum(a.seconds for a in attempts),
    }


def _hist(it):
    h = {}
    for x in it:
        h[x] = h.get(x, 0) + 1
    return h


def pct(x):
    return '%.0f%%' % (100.0 * x)


def make_symbolizer(target, no_symbolize=False):
    if no_symbolize:
        return None
    return Symbolizer(symcache_for(target))


def load_rules(path=None, top=None):
    try:
        return signature.Rules.load(path, top)
    except signature.RulesError as e:
        raise InputError(str(e))
