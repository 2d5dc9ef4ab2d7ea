"""The campaign driver: GNU Parallel over the job list, a deadline, triage as
results arrive, a progress line, Ctrl-C and --resume.

Files in the campaign directory OUT:
  campaign.json   settings (preset, budget, hosts, seed, VM); fixed at creation
  plan.json       the expanded plan (specs); fixed at creation
  jobs.txt        GNU Parallel's input: one job a line (ci/cilib/plan.py)
  state.json      sessions, budget used, status; rewritten every tick
  joblog          GNU Parallel --joblog (what --resume reads)
  parallel.log    GNU Parallel's own messages
  build.log       output of the make runs
  progress.tsv    one sample every few seconds (for the plots)
  results/jobs/ID one directory per job (ci/job): the tree triage reads
  work/           fuzzer state that outlives a job (corpora, AFL sync dirs)
  triage/         crash-triage/triage --out (incremental)
  report.md, report.json, report.html"""
import ctypes
import fcntl
import math
import os
import random
import shlex
import signal
import subprocess
import sys
import time

from . import plan as planlib
from . import preset as presetlib
from . import adapt, report, scan, yields
from . import known as knownlib
from .preflight import build, check_hosts_file, check_java, drop_too_new
from .util import (EXIT_UNTESTED, DiskFull, UsageError, hms, iso, read_json, read_state_json, remove_temporaries,
                   si, write_json)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# 3 (EXIT_UNTESTED): nothing, or not everything, could be tested (README "Exit statuses").
EXIT_DONE, EXIT_NOT_RUN, EXIT_PARTIAL, EXIT_INTERRUPTED = 0, EXIT_UNTESTED, EXIT_UNTESTED, 130


# What a campaign directory may hold before the campaign is created: ci/premerge
# writes its known list and outputs there, and its base/patched sides.
LOCK = 'campaign.lock'
OWN_NAMES = {'known-empty.txt', 'junit.xml', 'summary.md', 'base', 'patched', 'campaign.log', LOCK}


def reserve_of(camp, budget):
    """The time kept back for the last triage: the preset's, at most a quarter of the budget."""
    return min(camp['reserve'], budget / 4)


def budget_problem(camp, budget=None):
    """Why a new campaign of the preset's campaign section camp and this budget (None: the
    preset's) would test nothing, or None."""
    budget = camp['budget'] if budget is None else budget
    reserve = reserve_of(camp, budget)
    return short_budget(budget, camp['min_attempt'], reserve) if budget < camp['min_attempt'] + reserve else None


def short_budget(budget, min_attempt, reserve):
    """Why a new campaign of this budget tests nothing: say so, never "done"."""
    return ('budget %s is below one attempt (%s: the minimum attempt plus the reserve for triage): '
            'nothing would run' % (hms(budget), hms(min_attempt + reserve)))


def usable_cpus():
    """The CPUs this campaign may use: its affinity mask (taskset, a CI runner's cgroup cpuset)
    when the system has one, as ci/job pins each job within it; else every CPU."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class NothingToRun(Exception):
    """The campaign would run no job (budget below one attempt): exit 3."""


def check_resumable(out, cfg, specs, state):
    """The fields --resume relies on, with their types: a damaged file is named."""
    def bad(name, why):
        raise UsageError('%s is damaged: %s (cannot resume)' % (os.path.join(out, name), why))
    for k, t in (('budget', (int, float)), ('reserve', (int, float)), ('min_attempt', (int, float)),
                 ('seed', int), ('java_home', str), ('jobs', (int, str)), ('cores', int)):
        if not isinstance(cfg.get(k), t) or isinstance(cfg.get(k), bool):
            bad('campaign.json', "'%s' missing or of the wrong type" % k)
    if not specs:
        bad('plan.json', 'no plan job')
    for i, sp in enumerate(specs):
        if not isinstance(sp, dict) or not isinstance(sp.get('id'), str) or \
                not isinstance(sp.get('job_time'), (int, float)) or sp['job_time'] <= 0 or \
                not isinstance(sp.get('params'), dict) or not isinstance(sp.get('kind'), str):
            bad('plan.json', 'plan job %d lacks id, kind, params or a positive job_time' % (i + 1))
    if not isinstance(state.get('sessions'), list) or not isinstance(state.get('consumed'), (int, float)):
        bad('state.json', "'sessions' or 'consumed' missing or of the wrong type")
# Seconds after the deadline before jobs still running are stopped: room for
# stress/run to detect a hang in the last attempt (its limit is the run time
# + 30 s + a quarter) and dump the threads.
GRACE = 45
TICK = 0.5


def _child_setup():
    """In GNU Parallel's process: its own session (the terminal's Ctrl-C is
    ours to handle) and SIGTERM when the runner dies."""
    os.setsid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _idle_priority():
    """In a triage started while jobs run: take only the CPU time the jobs leave.
    Its symbolizer reads the VM's debug info for seconds, and at normal priority
    it took a sixth of both CPUs from the smoke preset's libFuzzer job, which
    then made 80-97k execs/s against 110-130k without it (docs/figures.md,
    2026-11-27 afternoon). SCHED_IDLE yields at once to any job thread that
    wakes, which nice 19 did not do measurably. The final triage, after the
    jobs, runs at normal priority."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        try:
            os.nice(19)
        except OSError:
            pass


def check_known(path):
    """Read a known-buckets list the way triage will, so that a bad line stops the campaign
    before it runs (triage would refuse it at every triage pass)."""
    sys.path.insert(0, os.path.join(ROOT, 'crash-triage'))
    from ctlib import report as known_list, signature
    try:
        known_list.load_known(path, signature.Rules.load())
    except known_list.KnownError as e:
        raise UsageError('bad known-buckets file: %s' % e)
    except OSError as e:
        raise UsageError('cannot read known-buckets file %s: %s' % (path, e.strerror or e))
    except signature.RulesError as e:
        raise UsageError('cannot read known-buckets file %s: %s' % (path, e))


def known_origin(cfg):
    """How a campaign's known list was chosen: 'shipped' (ci/known/'s list for its VM
    build), 'empty' (none shipped: pre-merge wrote an empty one) or None (given with
    --known, to the run or to a later --report-only)."""
    how = cfg.get('known_chosen', 'unrecorded')
    if how == 'unrecorded':   # runs before 2026-11-28 did not record it: told by its place
        path = cfg.get('known') or ''
        how = ('shipped' if os.path.dirname(path).endswith(os.sep + os.path.join('ci', 'known'))
               else 'empty' if os.path.basename(path) == 'known-empty.txt' else None)
    return how


KNOWN_ORIGIN = {'shipped': 'shipped for its VM build', 'empty': 'none is shipped for its VM build',
                None: 'given with --known'}


def carried_known(cfg, out):
    """The path a resumed or re-reported campaign reads its known list from, and a line
    saying so when it is not the one the run recorded (None otherwise). The recorded path is
    absolute, so a run judged from another clone, or moved, would read a list that is gone or
    stale: a list the run took by itself from its checkout's ci/known/ is read from this
    checkout's (the shipped lists are updated as VM bugs are met); one given with --known is
    read where it was given; the empty list pre-merge writes
    into its directory (one level up in a --base pair) from where that directory is now.
    Raises UsageError when the list can be found nowhere."""
    path = cfg.get('known')
    if not path:
        return None, None
    name = os.path.basename(path)
    here = path
    how = known_origin(cfg)
    if how == 'shipped':
        shipped = os.path.join(knownlib.KNOWN_DIR, name)
        if os.path.exists(shipped):
            here = shipped
    elif how == 'empty':
        for d in (out, os.path.dirname(out)):
            if os.path.exists(os.path.join(d, name)):
                here = os.path.join(d, name)
                break
    if not os.path.exists(here):
        raise UsageError("the campaign's known list '%s' is gone (it was read from the checkout or "
                         "directory that ran it): give --known FILE, or --known /dev/null for none" % path)
    if here == path:
        return path, None
    return here, 'known list %s (the run recorded %s)' % (here, path)


class Campaign:
    def __init__(self, out, quiet=False, log=sys.stderr, resume_hint=None):
        self.out = os.path.abspath(out)
        self.quiet = quiet
        # what an interrupted run's last line says to do next, when not a plain
        # resume (ci/premerge: a resumed campaign alone writes no verdict)
        self.resume_hint = resume_hint
        self.log = log
        self.interrupts = 0
        self.interrupts_at_finish = 0
        self.triage_proc = None
        self.tty = hasattr(log, 'isatty') and log.isatty()

    # --- files ---
    def path(self, *p):
        return os.path.join(self.out, *p)

    def say(self, msg):
        if self.tty:
            self.log.write('\r\033[K')
        self.log.write('campaign: %s\n' % msg)
        self.log.flush()

    # --- creation and resumption ---
    def lock(self):
        """OUT/campaign.lock, held while this process owns OUT: a second campaign started on
        the same --out, even at the same instant, is told so."""
        if os.path.lexists(self.out) and not os.path.isdir(self.out):
            raise UsageError("--out '%s' exists and is not a directory" % self.out)
        os.makedirs(self.out, exist_ok=True)
        self._lock = open(self.path(LOCK), 'a')
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UsageError('another campaign is starting or running in %s (it holds %s)'
                             % (self.out, self.path(LOCK)))

    def check_new_out(self):
        """UsageError when --out cannot take a new campaign (it holds one, is a file, or holds
        other files); reads only: a refused run makes nothing."""
        if os.path.exists(self.path('campaign.json')):
            raise UsageError('%s already holds a campaign: use --resume to continue it, '
                             'or another --out' % self.out)
        if os.path.lexists(self.out) and not os.path.isdir(self.out):
            raise UsageError("--out '%s' exists and is not a directory" % self.out)
        if os.path.isdir(self.out):
            # The user's own files would be mixed with (or overwritten by) the campaign's.
            foreign = sorted(n for n in os.listdir(self.out) if n not in OWN_NAMES)
            if foreign:
                raise UsageError("--out '%s' is not empty and holds no campaign (it holds %s): give an "
                                 "empty or new directory" % (self.out, ', '.join("'%s'" % n for n in foreign[:3])
                                                              + (' ...' if len(foreign) > 3 else '')))

    def create(self, preset, opts):
        self.check_new_out()   # again, under the lock
        os.makedirs(self.path('results', 'jobs'), exist_ok=True)
        os.makedirs(self.path('work'), exist_ok=True)
        camp = preset['campaign']
        budget = opts.budget if opts.budget is not None else camp['budget']
        cfg = {
            'preset': preset['name'], 'preset_path': preset['path'],
            'description': camp['description'], 'budget': budget,
            'job_time': camp['job_time'], 'min_attempt': camp['min_attempt'],
            'reserve': reserve_of(camp, budget), 'halt': camp['halt'],
            'triage_every': camp['triage_every'], 'progress_every': camp['progress_every'],
            'rounds_fixed': camp['rounds'], 'jobs': opts.jobs or camp['jobs'], 'adapt': camp['adapt'] == '1',
            'seed': opts.seed if opts.seed is not None else random.SystemRandom().randrange(1, 1 << 30),
            'java_home': opts.java_home, 'known': os.path.abspath(opts.known) if opts.known else None,
            'known_chosen': getattr(opts, 'known_chosen', None) if opts.known else None,
            'sshloginfile': os.path.abspath(opts.sshloginfile) if opts.sshloginfile else None,
            'remote_root': opts.remote_root or ROOT,
            'remote_out': opts.remote_out or 'asgf-campaign/%s' % os.path.basename(self.out),
            'shared': bool(opts.shared), 'created': iso(), 'root': ROOT,
            'cores': usable_cpus(),
        }
        return cfg

    def start(self, preset, opts):
        """New campaign (preset) or resumed one (preset None). Runs it; returns the exit status."""
        java_version = None
        if preset is not None:
            if opts.known:
                check_known(opts.known)     # before OUT is made: a bad list leaves no trace
            java_version = check_java(opts.java_home)   # nor does an unusable JDK
            try:
                self.check_new_out()        # nor a used --out (usage errors come first)
            except UsageError:
                # A campaign that took OUT an instant ago has files there but no
                # campaign.json yet: say that one is running, not that OUT is foreign.
                busy = out_busy(self.out)
                if busy:
                    raise UsageError(busy) from None
                raise
            why = budget_problem(preset['campaign'], opts.budget)
            if why:
                raise NothingToRun(why)     # nor a budget that cannot start (no build either)
        self.lock()
        if preset is not None:
            cfg = self.create(preset, opts)
            specs = preset['specs']
            state = {'sessions': [], 'consumed': 0.0, 'status': 'new', 'warnings': []}
        else:
            cfg = read_state_json(self.path('campaign.json'), dict)
            specs = read_state_json(self.path('plan.json'), list)
            state = read_state_json(self.path('state.json'), dict)
            if not cfg or specs is None or state is None:
                raise UsageError('%s holds no campaign to resume (campaign.json, plan.json, '
                                 'state.json)' % self.out)
            check_resumable(self.out, cfg, specs, state)
            self._check_not_running()
            remove_temporaries(self.out)   # a write a kill or a full disk cut short
            for key in ('budget', 'jobs', 'java_home', 'sshloginfile', 'known'):
                v = getattr(opts, key, None)
                if v is not None:
                    cfg[key] = os.path.abspath(v) if key in ('sshloginfile', 'known') else v
            if getattr(opts, 'known', None) is None:
                self._carry_known(cfg)
            else:
                cfg['known_chosen'] = None
        self.cfg, self.state = cfg, state
        self.java_version = java_version or check_java(cfg['java_home'])
        if cfg['sshloginfile']:
            check_hosts_file(cfg['sshloginfile'])
        if preset is None and getattr(opts, 'budget', None) is not None and any('job_time_planned' in sp for sp in specs):
            # slots shrunk for the first budget: fitted again to this session's (in memory,
            # as the budget itself: a later resume without --budget has the run's again)
            specs, _ = planlib.fit_one_round(planlib.unfit(specs), cfg['budget'], cfg['reserve'], self.slots(),
                                             cfg['min_attempt'])
        if preset is not None:
            specs, warnings = build(ROOT, specs, cfg['java_home'], self.path('build.log'),
                                    do_build=not opts.no_build)
            specs, too_new = drop_too_new(specs, self.java_version)
            warnings += too_new
            clamped = planlib.jobs_clamped(cfg['jobs'], cfg['cores'])
            if clamped and not cfg['sshloginfile']:
                warnings.append(clamped)
            specs, factor = planlib.fit_one_round(specs, cfg['budget'], cfg['reserve'], self.slots(),
                                                  cfg['min_attempt'])
            if factor:
                if planlib.round_cost(specs, self.slots()) <= (cfg['budget'] - cfg['reserve']) * self.slots():
                    self.say('the budget (%s) is short of one round of the plan: every job slot shrinks to '
                             '%.0f %% (at least %s) so that each plan job runs once' % (
                                 hms(cfg['budget']), 100 * factor, hms(cfg['min_attempt'])))
                else:
                    # even at the floor the round does not fit: never promise that it will. The
                    # reserve grows with the budget (reserve_of), so the advice allows for it.
                    camp = preset['campaign']
                    per_slot = planlib.floor_cost(specs, self.slots(), cfg['min_attempt']) / self.slots()
                    need = math.ceil(max(per_slot + camp['reserve'], per_slot * 4 / 3) / 60)
                    warnings.append('the budget (%s) is short of one round of the plan even with every job slot at '
                                    'its minimum (%s): its %d jobs need at least %s on %d slots, with each job\'s '
                                    'start, and %s of the budget is held back for the final triage, so the last '
                                    'plan jobs will not start; --budget %dm runs each once (ci/premerge --base '
                                    'gives each build half of its --budget)'
                                    % (hms(cfg['budget']), hms(cfg['min_attempt']), len(specs), hms(per_slot),
                                       self.slots(), hms(cfg['reserve']), need))
            errors = []
            presetlib.check_agent_options(specs, errors)
            if errors:
                raise UsageError('preset %s:\n  %s' % (preset['path'], '\n  '.join(errors)))
            state['warnings'] = warnings
            for w in warnings:
                self.say('warning: ' + w)
            write_json(self.path('plan.json'), specs)
            write_json(self.path('campaign.json'), cfg)
        elif not opts.no_build:
            build(ROOT, specs, cfg['java_home'], self.path('build.log'))
        self.specs = specs
        return self.run(dry_run=opts.dry_run)

    def report_only(self, known=None):
        """Triage and report a campaign's directory again, with no job run: what a run cut
        short by a signal or a full disk left, or the same run against another known list
        (known: it replaces the campaign's, as a resume's would). Returns the campaign's
        exit status."""
        self.lock()
        cfg = read_state_json(self.path('campaign.json'), dict)
        specs = read_state_json(self.path('plan.json'), list)
        state = read_state_json(self.path('state.json'), dict)
        if not cfg or specs is None or state is None:
            raise UsageError('%s holds no campaign (campaign.json, plan.json, state.json)' % self.out)
        self._check_not_running()
        remove_temporaries(self.out)
        if known:
            check_known(known)
            cfg['known'], cfg['known_chosen'] = os.path.abspath(known), None
            write_json(self.path('campaign.json'), cfg)
        else:
            self._carry_known(cfg)
            # A list given to an earlier --report-only stays the run's: say which one
            # judges it, so that a run judged once against /dev/null is not taken for
            # one judged against the shipped list.
            if cfg.get('known'):
                self.say("known list %s, the run's (%s); --known FILE judges it against another"
                         % (cfg['known'], KNOWN_ORIGIN[known_origin(cfg)]))
        self.cfg, self.state, self.specs = cfg, state, specs
        # the VM is not run again: its version is the one the run's report names
        self.java_version = (read_json(self.path('report.json'), {}) or {}).get('java_version') or ''
        self.triage_proc = None
        # a "running" state with no live runner is a run that was cut short
        code = EXIT_INTERRUPTED if state.get('status') in ('interrupted', 'running') else EXIT_DONE
        if state.get('status') == 'running':
            state['status'] = 'interrupted'
        rows = planlib.jobs(specs, state.get('rounds', 1), cfg['seed'])
        old_int = signal.signal(signal.SIGINT, self._on_signal_late)
        old_term = signal.signal(signal.SIGTERM, self._on_signal_late)
        try:
            return self.finish(rows, code)
        finally:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)

    def _carry_known(self, cfg):
        """For this session only: campaign.json keeps what the run recorded."""
        cfg['known'], moved = carried_known(cfg, self.out)
        if moved:
            self.say(moved)

    def _check_not_running(self):
        for name in ('runner.pid', 'parallel.pid'):
            try:
                pid = int(open(self.path(name)).read().strip())
            except (OSError, ValueError):
                continue
            try:
                os.kill(pid, 0)
                cmdline = open('/proc/%d/cmdline' % pid, 'rb').read()
            except OSError:
                continue
            if b'campaign' in cmdline or b'parallel' in cmdline:
                raise UsageError('the campaign in %s is still running (pid %d)' % (self.out, pid))

    # --- the job list ---
    def slots(self):
        local = planlib.parse_jobs_arg(self.cfg['jobs'], self.cfg['cores'])
        if self.cfg['sshloginfile']:
            return planlib.slots_from_hosts(self.cfg['sshloginfile'], local)
        return local

    def job_rows(self):
        cfg = self.cfg
        rounds = planlib.rounds_for(self.specs, cfg['budget'], cfg['reserve'], self.slots(),
                                    cfg['rounds_fixed'])
        if cfg.get('adapt') and not cfg['rounds_fixed']:
            rounds *= adapt.OVERBOOK     # skipped jobs leave their time to the next ones
        old = self.state.get('rounds', 0)
        rounds = max(rounds, old)          # a resumed list only grows
        self.state['rounds'] = rounds
        return planlib.jobs(self.specs, rounds, cfg['seed'])

    # --- running ---
    def parallel_argv(self, resume):
        cfg = self.cfg
        q = shlex.quote
        local_root, remote_root = ROOT, cfg['remote_root']
        command = ('if [ -z "$PARALLEL_SSHLOGIN" ] || [ "$PARALLEL_SSHLOGIN" = : ]; '
                   'then r=%s; else r=%s; fi; exec "$r/ci/job" {1} {2} {3} {4} {5}'
                   % (q(local_root), q(remote_root)))
        slot_max = max(s['job_time'] for s in self.specs)
        # Here the plan's own count: GNU Parallel refuses a -N that leaves no core ('-j -3' on
        # 2 cores), where the plan counts one slot. Remote hosts read -j against their own cores.
        jobs = str(cfg['jobs']) if cfg['sshloginfile'] else str(self.slots())
        argv = ['parallel', '--joblog', self.path('joblog'), '-a', self.path('jobs.txt'),
                '--colsep', '\t', '-j', jobs, '--halt', cfg['halt'],
                # a job may first wait, up to a slot, for the CPUs it keeps busy (ci/job)
                '--timeout', str(int(slot_max * 2.25 + 30 + 60)), '--line-buffer',
                # a stopped job records its attempt and writes job.json from its trap; Parallel's
                # own sequence (KILL after 375 ms) killed it half way on a busy machine, and the
                # report had the job with no host or CPUs. The runner's SIGKILL comes at 20 s.
                '--termseq', 'TERM,10000,TERM,5000,KILL,25']
        if resume:
            argv.append('--resume')
        if cfg['sshloginfile']:
            argv += ['--sshloginfile', cfg['sshloginfile'], '--retries', '2']
            for var in ('ASGFCI_DEADLINE', 'ASGFCI_OUT', 'ASGFCI_SHARED',
                        'ASGFCI_GEN', 'ASGFCI_MIN_ATTEMPT', 'JAVA_HOME'):
                argv += ['--env', var]
            if os.environ.get('ASGFCI_CPU_LOCKS'):
                # chosen by the caller (tests/run: apart from a campaign the user runs): every host's
                argv += ['--env', 'ASGFCI_CPU_LOCKS']
            if not cfg['shared']:
                # Remote jobs run in --workdir and pack their directory; the pack
                # comes back to OUT/results/jobs/ and is removed there.
                argv += ['--workdir', cfg['remote_out'], '--return', 'results/jobs/{1}.tgz', '--cleanup']
        argv.append(command)
        return argv

    def run(self, dry_run=False):
        cfg, state = self.cfg, self.state
        rows = self.job_rows()
        planlib.write_joblist(self.path('jobs.txt'), rows)
        remaining = cfg['budget'] - state['consumed']
        gen = len(state['sessions'])
        resume = gen > 0
        if remaining < cfg['min_attempt'] + cfg['reserve']:
            if not resume:
                raise NothingToRun(short_budget(cfg['budget'], cfg['min_attempt'], cfg['reserve']))
            self.say('the budget (%s) is used up; reporting only' % hms(cfg['budget']))
            state['status'] = 'done'
            write_json(self.path('state.json'), state)
            return self.finish(rows, EXIT_DONE)
        t0 = time.time()
        deadline = t0 + remaining - cfg['reserve']
        if cfg.get('adapt') and not os.path.exists(self.path(adapt.FILE)):
            adapt.write(self.out, self.specs, [])
        env = dict(os.environ, ASGFCI_DEADLINE=str(int(deadline)), ASGFCI_OUT=self.out,
                   ASGFCI_SHARED='1' if cfg['shared'] else '0',
                   ASGFCI_GEN=str(gen), ASGFCI_MIN_ATTEMPT=str(int(cfg['min_attempt'])),
                   JAVA_HOME=cfg['java_home'])
        argv = self.parallel_argv(resume)
        # A job waits for the CPUs it keeps busy (ci/job): one that keeps every CPU busy
        # runs with no other, whatever the slots.
        alone = sum(1 for sp in self.specs if int(sp['params'].get('cores', 1)) >= cfg['cores'] > 1)
        self.say('%s %s: %d plan jobs x %d rounds on %d slots%s, budget %s (%s left), seed %d, out %s'
                 % ('resuming' if resume else 'starting', cfg['preset'], len(self.specs),
                    state['rounds'], self.slots(),
                    '' if not alone or self.slots() < 2 or cfg['sshloginfile'] else
                    ' (every plan job keeps all %d CPUs busy: one runs at a time)' % cfg['cores']
                    if alone == len(self.specs) else
                    ' (%d of the plan jobs keep all %d CPUs busy: each runs alone)' % (alone, cfg['cores']),
                    hms(cfg['budget']), hms(remaining), cfg['seed'], self.out))
        if dry_run:
            write_json(self.path('state.json'), state)    # --resume can start it
            self.say('dry run: would run %d jobs (%d plan jobs x %d rounds), each up to its slot: %s'
                     % (len(rows), len(self.specs), state['rounds'],
                        ', '.join('%s %ds' % (sp['id'], sp['job_time']) for sp in self.specs[:6]) +
                        (', ...' if len(self.specs) > 6 else '')))
            print(' '.join(shlex.quote(a) for a in argv))
            return EXIT_DONE
        session = {'gen': gen, 'start': t0, 'end': None, 'status': 'running'}
        state['sessions'].append(session)
        state['status'] = 'running'
        consumed0 = state['consumed']
        write_json(self.path('state.json'), state)
        with open(self.path('runner.pid'), 'w') as f:
            f.write('%d\n' % os.getpid())

        old_int = signal.signal(signal.SIGINT, self._on_signal)
        old_term = signal.signal(signal.SIGTERM, self._on_signal)
        plog = open(self.path('parallel.log'), 'ab')
        proc = subprocess.Popen(argv, cwd=self.out, env=env, stdin=subprocess.DEVNULL,
                                stdout=plog, stderr=subprocess.STDOUT, preexec_fn=_child_setup)
        with open(self.path('parallel.pid'), 'w') as f:
            f.write('%d\n' % proc.pid)
        self.scanner = scan.Scanner(self.out)
        self.triage_proc = None
        self.next_triage = self._after(t0)
        self.rate = Rate()
        self.buckets = self._bucket_counts()
        grace = GRACE + max(s['job_time'] for s in self.specs) / 4
        try:
            self._watch(proc, t0, consumed0, deadline, grace, session)
        except DiskFull:
            # Nothing more can be kept: stop every job, leave no pid file and no
            # "running" state behind (the last whole state.json says running; a
            # resume takes a campaign with no live runner for an interrupted one).
            self._stop(proc)
            plog.close()
            self._remove_pids()
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)
            raise
        plog.close()
        # Signals from here on (the final triage, the report): counted and answered
        # by stopping the triage child; the report is still written (finish).
        signal.signal(signal.SIGINT, self._on_signal_late)
        signal.signal(signal.SIGTERM, self._on_signal_late)
        now = time.time()
        state['consumed'] = consumed0 + (now - t0)
        session['end'] = now
        session['parallel_exit'] = proc.returncode
        if self.interrupts:
            status, code = 'interrupted', EXIT_INTERRUPTED
        else:
            status, code = 'done', EXIT_DONE
        session['status'] = state['status'] = status
        try:
            write_json(self.path('state.json'), state)
            return self.finish(rows, code)
        finally:
            self._remove_pids()
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)

    def _remove_pids(self):
        for name in ('runner.pid', 'parallel.pid'):
            try:
                os.unlink(self.path(name))
            except OSError:
                pass

    def _stop(self, proc):
        """GNU Parallel and its jobs (they get SIGTERM from it), then SIGKILL after 20 s."""
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.triage_proc is not None and self.triage_proc.poll() is None:
            self.triage_proc.terminate()

    def _watch(self, proc, t0, consumed0, deadline, grace, session):
        """The campaign's loop while GNU Parallel runs: signals, deadline, triage, progress."""
        cfg, state = self.cfg, self.state
        last_progress = last_sample = 0.0
        hup_at = deadline - cfg['min_attempt']
        hup_sent = term_sent = False
        stop_sent_at = None
        interrupted_handled = False
        while proc.poll() is None:
            time.sleep(TICK)
            now = time.time()
            state['consumed'] = consumed0 + (now - t0)
            if self.interrupts and not interrupted_handled:
                interrupted_handled = True
                self.say('interrupted: stopping the jobs (results so far are kept; '
                         'continue with --resume)')
                proc.send_signal(signal.SIGINT)
                stop_sent_at = now
            if self.interrupts > 1 or (stop_sent_at and now - stop_sent_at > 20):
                proc.kill()
            if not hup_sent and now >= hup_at:
                proc.send_signal(signal.SIGHUP)      # GNU Parallel: start no new jobs
                hup_sent = True
            if not term_sent and now >= deadline + grace:
                self.say('deadline passed %ds ago: stopping the jobs still running' % grace)
                proc.terminate()
                term_sent, stop_sent_at = True, now
            if cfg['sshloginfile'] and not cfg['shared']:
                scan.unpack_returned(self.out)
            self._triage_tick(now, final=False)
            snap = None
            if now - last_sample >= 2:
                snap = self.scanner.snapshot()
                self.rate.add(now, snap['execs'])
                last_sample = now
                write_json(self.path('state.json'), state)
                self._sample(now - t0 + consumed0, snap)
            every = 1 if self.tty else cfg['progress_every']
            if not self.quiet and now - last_progress >= every:
                snap = snap or self.scanner.snapshot()
                self._progress(state['consumed'], snap)
                last_progress = now

    def _on_signal(self, signum, frame):
        self.interrupts += 1

    def _on_signal_late(self, signum, frame):
        # Counted, and the triage child stopped; never raised: an exception from here
        # lands in whatever finish() is doing (writing state.json, the report), and a
        # campaign interrupted there would leave no report and its lock behind.
        self.interrupts += 1
        p = getattr(self, 'triage_proc', None)
        if p is not None and p.poll() is None:
            p.terminate()

    # --- triage ---
    def triage_argv(self, final=True):
        """The triage command. One while jobs run leaves fuzzer artifacts for the final
        one to replay: it runs at idle priority (_idle_priority), which its replay JVMs
        would inherit, and on cores the jobs fill they would time out."""
        argv = [os.path.join(ROOT, 'crash-triage', 'triage'), '--out', self.path('triage'), '-q']
        if not final:
            argv.append('--no-replay')
        if self.cfg.get('known'):
            argv += ['--known', self.cfg['known']]
        return argv + [self.path('results')]

    def triage_env(self):
        """Triage replays fuzzer artifacts with fuzz/replay, which runs JAVA_HOME's VM: the
        campaign's, not whatever the caller's environment names (under --base, one side's
        artifacts would otherwise replay on the other build)."""
        return dict(os.environ, JAVA_HOME=self.cfg['java_home']) if self.cfg.get('java_home') else None

    def _triage_tick(self, now, final):
        p = self.triage_proc
        if p is not None and p.poll() is not None:
            self.triage_proc = None
            self.buckets = self._bucket_counts()
            self.next_triage = self._after(now)
            if self.cfg.get('adapt') or not final:   # one scan for both
                jobs = scan.job_outcomes(self.out, planlib.jobs(self.specs, self.state.get('rounds', 1),
                                                                self.cfg['seed']))
            if self.cfg.get('adapt'):
                self._adapt(jobs)
            if not final:
                self._interim_report(jobs)
        if self.triage_proc is None and self.next_triage is not None and now >= self.next_triage and not final:
            log = open(self.path('triage.log'), 'ab')
            self.triage_proc = subprocess.Popen(self.triage_argv(final=False), stdout=log,
                                                stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, preexec_fn=_idle_priority,
                                                env=self.triage_env())
            log.close()

    def _after(self, now):
        """When the next triage while jobs run starts; None with triage_every = off."""
        every = self.cfg['triage_every']
        return None if every is None else now + every

    def _interim_report(self, jobs):
        """report.md/.json/.html while the campaign runs, after each triage, so that the page
        a user opens in the night says where it stands (the final one replaces it). Without
        the walker's source lines: addr2line takes seconds, the loop has signals to watch."""
        try:
            report.write(self.out, self.cfg, self.state, self.specs, jobs,
                         java_version=getattr(self, 'java_version', ''), lines=False)
        except (OSError, ValueError, KeyError, DiskFull) as e:
            if not getattr(self, 'interim_failed', False):
                self.say('could not rewrite the report while running (%s); the final one is written at the end' % e)
            self.interim_failed = True

    def _adapt(self, jobs):
        """New keep probabilities from the yield so far (ci/cilib/adapt.py)."""
        tri = read_json(self.path('triage', 'report.json'), {}) or {}
        adapt.write(self.out, self.specs, yields.table(self.out, self.specs, jobs, tri.get('buckets', [])))

    def _bucket_counts(self):
        r = read_json(self.path('triage', 'report.json'), {}) or {}
        t = r.get('totals', {})
        return {'buckets': t.get('buckets', 0), 'new': t.get('new', 0), 'reports': t.get('reports', 0)}

    def final_triage(self):
        if self.triage_proc is not None:
            try:
                self.triage_proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                self.triage_proc.kill()
                self.triage_proc.wait()     # gone before the final one starts on the same --out
            self.triage_proc = None
        if self.interrupts > self.interrupts_at_finish:
            return 130               # a signal while finishing: the buckets stay as the last triage left them
        with open(self.path('triage.log'), 'ab') as log:
            # kept in triage_proc, so that a signal now stops it (_on_signal_late)
            self.triage_proc = subprocess.Popen(self.triage_argv(), stdout=log, stderr=subprocess.STDOUT,
                                                env=self.triage_env())
            if self.interrupts > self.interrupts_at_finish:
                self.triage_proc.terminate()    # a signal between the check above and the child
            rc = self.triage_proc.wait()
        self.triage_proc = None
        self.buckets = self._bucket_counts()
        return rc

    # --- progress ---
    def _progress(self, consumed, snap):
        done = len(scan.read_joblog(self.path('joblog')))
        b = self.buckets
        line = ('%s/%s jobs %d done %d running | execs/s %s | crashes %d hangs %d faults %d | '
                'buckets %d (%d new)' % (hms(consumed), hms(self.cfg['budget']), done, snap['running'],
                                         si(self.rate.per_second()), snap['crashed'], snap['hung'],
                                         snap['faults'], b['buckets'], b['new']))
        if self.tty:
            self.log.write('\r\033[Kcampaign: ' + line)
            self.log.flush()
        else:
            self.say(line)

    def _sample(self, elapsed, snap):
        path = self.path('progress.tsv')
        new = not os.path.exists(path)
        with open(path, 'a', encoding='utf-8') as f:
            if new:
                f.write('time\telapsed\tjobs_done\trunning\texecs\texecs_per_s\tcrashed\thung\tfaults\tbuckets\tnew\n')
            f.write('%d\t%.1f\t%d\t%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%d\n' % (
                time.time(), elapsed, len(scan.read_joblog(self.path('joblog'))), snap['running'],
                snap['execs'], self.rate.per_second(), snap['crashed'], snap['hung'], snap['faults'],
                self.buckets['buckets'], self.buckets['new']))

    # --- the end ---
    def finish(self, rows, code):
        if self.tty:
            self.log.write('\n')
        # One signal during the run stopped the jobs and still gets the final triage; a
        # signal from here on stops it (_on_signal_late).
        self.interrupts_at_finish = self.interrupts
        interrupted_twice = self.interrupts > 1
        scan.unpack_returned(self.out)
        if self.cfg.get('sshloginfile') and not self.cfg.get('shared'):
            # --workdir made this (empty) directory here too, for the local slots.
            try:
                os.removedirs(os.path.join(self.out, self.cfg['remote_out']))
            except OSError:
                pass
        if not interrupted_twice:
            self.say('triage of %s' % self.path('results'))
            trc = self.final_triage()
            if trc not in (0, 1) and not self.interrupts:
                # Results that were not triaged (a full disk, a damaged triage/) may hide
                # new buckets: the campaign cannot say it found nothing new.
                self.say('the final triage failed (exit %d, see %s)' % (trc, self.path('triage.log')))
                if code == EXIT_DONE:
                    code = EXIT_NOT_RUN
            interrupted_twice = self.interrupts > 1
        if self.interrupts and self.state.get('status') != 'interrupted':
            # SIGTERM or SIGINT during the final triage: what it had is reported, and
            # --resume (or ci/premerge --report-only) triages the rest.
            self.state['status'] = 'interrupted'
            self.state['sessions'][-1]['status'] = 'interrupted' if self.state.get('sessions') else None
            write_json(self.path('state.json'), self.state)
            code = EXIT_INTERRUPTED
        if hasattr(self, 'scanner') and not interrupted_twice:
            self._sample(self.state['consumed'], self.scanner.snapshot())   # the final counts, for the plots
        jobs = scan.job_outcomes(self.out, rows)
        started = [j for j in jobs if j['outcome'] != 'not started']
        not_run = [j for j in jobs if j['outcome'] == 'not run']
        execs = sum(j['execs'] for j in started)
        if started and len(not_run) == len(started) and code == EXIT_DONE:
            code = EXIT_NOT_RUN
        elif code == EXIT_DONE and (not started or execs == 0):
            # Jobs that "ran" without one execution or walk (a java that only prints
            # a version, a workload that never sampled) tested nothing.
            self.say('tested nothing: %d job(s) started, 0 executions or walks counted'
                     % len(started))
            code = EXIT_NOT_RUN
        elif not_run and code == EXIT_DONE:
            code = EXIT_PARTIAL
        paths = report.write(self.out, self.cfg, self.state, self.specs, jobs,
                             java_version=getattr(self, 'java_version', ''))
        b = self._bucket_counts()
        counts = {}
        for j in jobs:
            counts[j['outcome']] = counts.get(j['outcome'], 0) + 1
        self.say('%s after %s: %s; %d buckets (%d new)%s' % (
            self.state['status'], hms(self.state['consumed']),
            ', '.join('%d %s' % (n, k) for k, n in sorted(counts.items())), b['buckets'], b['new'],
            '; %s' % (self.resume_hint or 'resume with: ci/campaign --resume --out %s' % shlex.quote(self.out))
            if self.state['status'] == 'interrupted' else ''))
        halted = [x for x in self.state.get('sessions', []) if x.get('parallel_exit') not in (None, 0, 255)]
        if halted and not_run:
            self.say('GNU Parallel stopped starting jobs (halt policy %s)' % self.cfg['halt'])
        if not_run:
            self.say('%d jobs could not run, e.g. %s: see %s' % (
                len(not_run), not_run[0]['id'],
                os.path.join(self.out, 'results', 'jobs', not_run[0]['id'], 'job.log')))
        for p in paths:
            print('report: %s' % p)
        sys.stdout.flush()
        return code


def out_busy(out):
    """Why OUT cannot be used now (a campaign process holds its lock), or None."""
    path = os.path.join(out, LOCK)
    if not os.path.exists(path):
        return None
    with open(path, 'a') as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 'another campaign is starting or running in %s (it holds %s)' % (out, path)
    return None


class Rate:
    """Executions per second over the last ~20 s."""
    def __init__(self):
        self.samples = []

    def add(self, t, n):
        self.samples.append((t, n))
        while len(self.samples) > 2 and self.samples[-1][0] - self.samples[0][0] > 20:
            self.samples.pop(0)

    def per_second(self):
        if len(self.samples) < 2:
            return 0.0
        (t0, n0), (t1, n1) = self.samples[0], self.samples[-1]
        return max(0.0, (n1 - n0) / (t1 - t0)) if t1 > t0 else 0.0
