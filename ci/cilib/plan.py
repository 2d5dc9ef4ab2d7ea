"""The job list GNU Parallel reads: the preset's specs repeated in rounds.

One line per job, tab-separated: ID KIND SLOT_SECONDS SEED OPTS. The list is
a pure function of (specs, rounds, campaign seed), and later rounds only
append lines, so `parallel --resume` (which matches jobs by line number)
sees the same job under the same number on every run, also when --resume
extends the budget."""
import argparse
import math
import os
import re

from .preset import opts_string

# Seconds a job takes beyond its slot: JVM start-up and the verdict.
JOB_OVERHEAD = 4.0


def job_seed(campaign_seed, round_no, spec_index):
    """A seed per job, stable across runs, different for every job."""
    x = (campaign_seed * 1000003 + round_no * 10007 + spec_index * 7919) & 0x7fffffff
    x ^= x >> 13
    x = (x * 0x5bd1e995) & 0x7fffffff
    return (x ^ (x >> 15)) or 1


def rounds_for(specs, budget, reserve, slots, fixed=None):
    """How many rounds the budget can fill on `slots` CPUs, each job taking the
    CPUs it keeps busy (its `cores`, at most all of them) for its slot. Rounds
    that do not fit are cut by the deadline, so erring high is safe."""
    if fixed:
        return int(fixed)
    slots = max(1, slots)
    per_round = round_cost(specs, slots)
    capacity = max(0.0, budget - reserve) * slots
    return max(1, int(math.ceil(capacity / per_round)))


def round_cost(specs, slots):
    """CPU-seconds one round of the plan takes on `slots` CPUs (each job its slot plus
    start-up, times the CPUs it keeps busy)."""
    return sum((s['job_time'] + JOB_OVERHEAD) * min(max(1, slots), int(s['params'].get('cores', 1))) for s in specs)


def fit_one_round(specs, budget, reserve, slots, min_attempt):
    """A budget too short for one round of the plan would leave its last jobs unstarted,
    and the check untested there (premerge exit 3): a --base pair gives each build half of
    the budget. Then the slots shrink by one factor, none below min_attempt: the cost of
    those held at min_attempt comes off first, so that the rest shrink enough for the whole
    plan to run once when it can (round_cost of the result <= the capacity; see
    floor_cost for when it cannot). Returns (specs, the factor, or None when they fit)."""
    capacity = max(0.0, budget - reserve) * max(1, slots)
    cost = round_cost(specs, slots)
    if cost <= capacity or not specs:
        return specs, None
    floor = float(math.ceil(min_attempt))
    cpus = [min(max(1, slots), int(s['params'].get('cores', 1))) for s in specs]
    held = set()   # indexes of specs at min_attempt (or at their own slot, when shorter)
    factor = 0.0
    for _ in range(len(specs) + 1):
        fixed = sum((min(floor, specs[i]['job_time']) + JOB_OVERHEAD) * cpus[i] for i in held)
        free = sum((s['job_time'] + JOB_OVERHEAD) * cpus[i] for i, s in enumerate(specs) if i not in held)
        factor = max(0.0, capacity - fixed) / free if free else 0.0
        more = {i for i, s in enumerate(specs) if i not in held
                and (s['job_time'] + JOB_OVERHEAD) * factor - JOB_OVERHEAD < floor}
        if not more:
            break
        held |= more
    out = []
    for i, s in enumerate(specs):
        # whole seconds (a job's slot), never under min_attempt nor over the preset's slot;
        # the preset's is kept for a resume with a new budget (unfit)
        t = float(int((s['job_time'] + JOB_OVERHEAD) * factor - JOB_OVERHEAD))
        t = min(max(t, floor), s['job_time'])
        out.append(dict(s, job_time=t, job_time_planned=s.get('job_time_planned', s['job_time'])))
    # the factor of the slots that shrank by it; with every slot held, the plan's share that fits
    shrunk = factor if len(held) < len(specs) else capacity / cost
    return out, min(max(shrunk, 1e-6), 0.999)


def floor_cost(specs, slots, min_attempt):
    """round_cost of the plan with every slot at min_attempt (or its own, when shorter):
    the least one round can take."""
    floor = float(math.ceil(min_attempt))
    return round_cost([dict(s, job_time=min(floor, s['job_time'])) for s in specs], slots)


def unfit(specs):
    """The plan with the preset's slots back (before a resume refits it to its new budget)."""
    out = []
    for s in specs:
        s = dict(s)
        s['job_time'] = s.pop('job_time_planned', s['job_time'])
        out.append(s)
    return out


def jobs(specs, rounds, campaign_seed):
    """[(id, kind, slot, seed, opts, spec_id, round)] for every job."""
    out = []
    for r in range(1, rounds + 1):
        for i, s in enumerate(specs):
            out.append(('r%03d-%s' % (r, s['id']), s['kind'], int(round(s['job_time'])),
                        job_seed(campaign_seed, r, i), opts_string(s['params']), s['id'], r))
    return out


def write_joblist(path, job_rows):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        for j in job_rows:
            f.write('\t'.join(str(x) for x in j[:5]) + '\n')
    os.replace(tmp, path)


def slots_from_hosts(sshloginfile, local_slots):
    """Parallel job slots over the hosts of an --sshloginfile: the N of an
    'N/host' line, else the local count (a guess: parallel asks the host)."""
    total = 0
    with open(sshloginfile, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            head = line.split('/', 1)[0]
            total += int(head) if '/' in line and head.isdigit() else local_slots
    return max(1, total)


JOBS_FORMS = 'N, N%, +N or -N (N a whole number; N% may have a fraction)'


def jobs_arg(value):
    """argparse type of -j: the value unchanged when parse_jobs_arg can read it."""
    try:
        parse_jobs_arg(value, 1)
    except ValueError:
        raise argparse.ArgumentTypeError('expected %s, got %r' % (JOBS_FORMS, value))
    return value


def jobs_clamped(value, cores):
    """A warning when a -j value asks for fewer than one slot here (GNU Parallel's -j 0, 'as
    many as it can', or -N at or past the core count): the campaign runs one; else None."""
    v, asked = _slots_asked(value, cores)
    if asked < 1 and not v.endswith('%'):
        return ('-j %s leaves no job slot on %d cores: the campaign runs 1 (it never runs more busy threads '
                'than cores, so GNU Parallel\'s -j 0 is not taken up)' % (v, cores))
    return None


def parse_jobs_arg(value, cores):
    """GNU Parallel -j forms: N, N%, +N, -N -> a number of slots here, at least one; ValueError on
    anything else (-j and a preset's jobs are both checked by it)."""
    return max(1, _slots_asked(value, cores)[1])


def _slots_asked(value, cores):
    """(the -j text, the slots it asks for here, which may be fewer than one)."""
    v = str(value).strip()
    if not re.fullmatch(r'\+?\d+|-\d+|\d+(\.\d+)?%', v):
        raise ValueError(v)
    if v.endswith('%'):
        pct = float(v[:-1])
        if not pct > 0:
            raise ValueError(v)
        return v, int(cores * pct / 100)
    if v.startswith('-'):
        return v, cores - int(v[1:])
    return v, cores + int(v[1:]) if v.startswith('+') else int(v)
