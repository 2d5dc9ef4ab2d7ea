"""Presets: a campaign's plan and budget, as data (ci/presets/NAME.preset).

A preset is an INI file. [campaign] holds the budget and timing; every other
section is a job group whose name starts with its kind: stress, libfuzzer or
afl ("[stress]", "[stress near]", "[libfuzzer asan]"). In a stress section the
matrix keys take blank-separated alternatives and the plan gets one job per
combination (scenario x mode x api x interval x mutate x agent x threads); a
comma list inside one alternative stays together (scenarios that run in one
JVM, agent options). Fuzzer sections give a number of instances. See
ci/README.md for every key."""
import ast
import configparser
import glob
import itertools
import os
import re
import subprocess

from .util import UsageError, seconds

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESET_DIR = os.path.join(HERE, 'presets')

CAMPAIGN_DEFAULTS = {
    'description': '',
    'budget': '10m',          # wall time for the jobs and the final triage
    'job_time': '60s',        # one job's time slot (sections may override)
    'min_attempt': '4s',      # no attempt (restart) shorter than this
    'reserve': '5s',          # kept at the end for the final triage and report
    'halt': 'soon,fail=3',    # GNU Parallel --halt: jobs that could not run
    'triage_every': '15s',    # incremental triage period while jobs run; 'off': only the final one
    'progress_every': '10s',  # progress line period when not on a terminal
    'rounds': '',             # plan repetitions; default: as many as the budget fills
    'jobs': '100%',           # GNU Parallel -j on this host
    'adapt': '0',             # 1: later rounds go to the groups that find new buckets (ci/cilib/adapt.py)
}

# Matrix keys in the order they vary (the last varies fastest).
STRESS_MATRIX = ('scenario', 'mode', 'api', 'interval', 'mutate', 'agent', 'threads', 'jvm')
STRESS_DEFAULTS = {
    'scenario': 'spin,recursion,inline,deopt', 'mode': 'signal', 'api': 'auto',
    'interval': '100us', 'mutate': 'none', 'agent': '', 'threads': '2', 'jvm': 'default',
}
STRESS_FIXED = ('flags', 'job_time', 'heap', 'jcmd', 'cores')
FUZZ_KEYS = {
    'libfuzzer': ('instances', 'job_time', 'asan', 'keep_going', 'scenario', 'workers', 'api',
                  'protect', 'test_plant', 'feedback', 'extra', 'jvm', 'cores'),
    'afl': ('instances', 'job_time', 'keep_going', 'scenario', 'workers', 'api', 'protect',
            'test_plant', 'feedback', 'extra', 'jvm', 'cores'),
}


def busy_threads(kind, params):
    """The CPUs a job keeps busy, which ci/job takes (and pins the job to) before
    it starts: a stress job's workload threads; a fuzzer's thread and its busy
    workers (the worker held in its handler, the fuzzer thread posting cases).
    A section's `cores` overrides it: 1 puts a fuzzer and its worker on one
    CPU, where the hand-off is a context switch instead of a wake-up across
    CPUs."""
    if params.get('cores'):
        return int(params['cores'])
    if kind == 'stress':
        return int(params.get('threads') or 2)
    return 1 + int(params.get('workers') or 1)
KINDS = ('stress', 'libfuzzer', 'afl')

MODES = ('signal', 'thread', 'queue')
APIS = ('auto', 'asgst', 'agct')
MUTATE_RE = re.compile(r'none|random|near|blind|forge|corpus:\S+')
# One JVM flag set: 'default' (none), or JVM options joined by commas.
JVM_RE = re.compile(r'default|-[A-Za-z][^\s,]*(,-[A-Za-z][^\s,]*)*')
INTERVAL_RE = re.compile(r'\d+(ns|us|ms|s)?')
FLAGS = ('jfr', 'jsig', 'whitebox')
TOKEN_RE = re.compile(r'[^\s=]+(=[^\s]*)?|')   # no blanks inside a value


def find(name_or_path):
    """A preset name (smoke, premerge, overnight, ...) or a file path."""
    if os.sep in name_or_path or name_or_path.endswith('.preset') or os.path.exists(name_or_path):
        path = name_or_path
    else:
        path = os.path.join(PRESET_DIR, name_or_path + '.preset')
    if not os.path.isfile(path):
        names = sorted(f[:-7] for f in os.listdir(PRESET_DIR) if f.endswith('.preset'))
        raise UsageError("no preset '%s' (known: %s, or a file path)" % (name_or_path, ', '.join(names)))
    return os.path.abspath(path)


def load(name_or_path):
    """Reads and checks a preset. Returns {'name', 'path', 'campaign', 'specs'}."""
    path = find(name_or_path)
    cp = configparser.ConfigParser(inline_comment_prefixes=('#', ';'), interpolation=None,
                                   default_section='\0none')
    cp.optionxform = str
    try:
        with open(path, encoding='utf-8') as f:
            cp.read_file(f)
    except UnicodeDecodeError as e:
        raise UsageError('preset %s: not UTF-8 text (byte 0x%02x at offset %d)' % (path, e.object[e.start], e.start))
    except (OSError, configparser.Error) as e:
        if isinstance(e, configparser.MissingSectionHeaderError):
            raise UsageError("preset %s: line %d: '%s' comes before any [section]" % (path, e.lineno, e.line.strip()))
        if isinstance(e, configparser.ParsingError):   # its errors hold each line's repr()
            raise UsageError('preset %s: %s' % (path, '; '.join(
                "line %d: '%s' is neither 'key = value' nor a [section]" % (n, ast.literal_eval(line).strip())
                for n, line in e.errors[:3])))
        where = ' (line %d)' % e.lineno if getattr(e, 'lineno', None) and '[line' not in str(e) else ''
        raise UsageError('preset %s%s: %s' % (path, where, str(e).splitlines()[0]))
    errors = []
    camp = dict(CAMPAIGN_DEFAULTS)
    if cp.has_section('campaign'):
        for k, v in cp.items('campaign'):
            if k not in CAMPAIGN_DEFAULTS:
                errors.append("[campaign]: unknown key '%s' (known: %s)" % (k, ', '.join(CAMPAIGN_DEFAULTS)))
            camp[k] = v.strip()
    for k in ('budget', 'job_time', 'min_attempt', 'reserve', 'triage_every', 'progress_every'):
        if k == 'triage_every' and camp[k] == 'off':
            camp[k] = None
            continue
        try:
            camp[k] = seconds(camp[k])
        except UsageError as e:
            errors.append('[campaign] %s: %s' % (k, e))
    if camp['triage_every'] == 0:
        errors.append("[campaign] triage_every: 0 would triage without pause; give a period or 'off'")
    if camp['rounds'] and not re.fullmatch(r'[1-9]\d*', camp['rounds']):
        errors.append("[campaign] rounds: '%s' is not a positive number" % camp['rounds'])
    if camp['adapt'] not in ('0', '1'):
        errors.append("[campaign] adapt: 0 or 1, got '%s'" % camp['adapt'])
    elif camp['adapt'] == '1' and camp['triage_every'] is None:
        errors.append("[campaign] adapt = 1 weighs the groups at each triage while jobs run: "
                      "it needs triage_every, not 'off'")
    from .plan import parse_jobs_arg   # here: plan imports this module
    try:
        parse_jobs_arg(camp['jobs'], 1)
    except ValueError:
        errors.append("[campaign] jobs: expected N, N%%, +N or -N (GNU Parallel -j), got '%s'" % camp['jobs'])
    if not re.fullmatch(r'(never|(soon|now),(fail|success|done)=\d+%?)', camp['halt']):
        errors.append("[campaign] halt: '%s' is not a GNU Parallel --halt value" % camp['halt'])
    specs = []
    for section in cp.sections():
        if section == 'campaign':
            continue
        kind = section.split()[0]
        if kind not in KINDS:
            errors.append("[%s]: a section name starts with one of %s" % (section, ', '.join(KINDS)))
            continue
        items = dict(cp.items(section))
        expand = _stress if kind == 'stress' else _fuzz
        specs.extend(expand(section, kind, items, camp, errors))
    if not specs and not errors:
        errors.append('the preset has no job sections')
    if not errors:
        check_scenarios(specs, errors)
        check_agent_options(specs, errors, strict=False)
    if errors:
        raise UsageError('preset %s:\n  ' % path + '\n  '.join(errors))
    for n, s in enumerate(specs, 1):
        s['id'] = '%02d-%s' % (n, s['tag'])
    return {'name': os.path.basename(path)[:-7] if path.endswith('.preset') else os.path.basename(path),
            'path': path, 'campaign': camp, 'specs': specs}


STRESS_SOURCES = os.path.join(os.path.dirname(HERE), 'stress', 'java', 'asgstfuzz', 'stress')
FUZZ_WORKLOAD = os.path.join(os.path.dirname(HERE), 'fuzz', 'java', 'asgf', 'fuzz', 'Workload.java')


def scenario_names():
    """(the stress workload's scenario names, the fuzz harness's own whole-value ones),
    read from where each is defined: a scenario class's super("name", ...) in
    stress/java/, the cases of Workload.start in fuzz/java/. None when the sources are
    not there."""
    stress = set()
    for path in glob.glob(os.path.join(STRESS_SOURCES, '*Scenario.java')):
        with open(path, encoding='utf-8') as f:
            m = re.search(r'\bsuper\("([a-z]+)",', f.read())
        if m:
            stress.add(m.group(1))
    try:
        with open(FUZZ_WORKLOAD, encoding='utf-8') as f:
            own = set(re.findall(r'case "([a-z]+)":', f.read()))
    except OSError:
        own = set()
    return (stress, own) if stress else None


def check_scenarios(specs, errors):
    """A scenario the workload does not have would make every job of its section exit
    at start (asgst-stress: unknown scenario): said now, once per section and name. A
    fuzzer section may also name one of the harness's own workloads, alone."""
    names = scenario_names()
    if not names:
        return
    stress, own = names
    seen = set()
    for s in specs:
        value = s['params'].get('scenario') or ''
        if s['kind'] != 'stress' and value in own:
            continue
        for name in value.split(','):
            if name and name not in stress and (s['section'], name) not in seen:
                seen.add((s['section'], name))
                known = sorted(stress) + (['%s (alone)' % n for n in sorted(own)] if s['kind'] != 'stress' else [])
                errors.append("[%s] scenario: unknown scenario '%s' (known: %s)" % (
                    s['section'], name, ', '.join(known)))


# Agent keys the job sets from the section's own keys (ci/job, stress/run):
# given again in `agent = ...` they would be duplicates.
AGENT_SET_BY_JOB = ('out', 'threads', 'mode', 'api', 'interval', 'mutate', 'seed')
AGENT_CHECKER = os.path.join(os.path.dirname(HERE), 'build', 'bin', 'asgf-agent-options')


def agent_line(params):
    """The -agentpath options a stress job passes (as ci/job and stress/run build them),
    with a placeholder out= that does not exist."""
    line = 'out=/nonexistent/asgf-preset-check,threads=asgst-worker-*,mode=%s,api=%s,interval=%s,mutate=%s,seed=1' % (
        params['mode'], params['api'], params['interval'], params['mutate'])
    return line + (',' + params['agent'] if params.get('agent') else '')


def check_agent_options(specs, errors, strict=True):
    """Runs every stress job's agent options through the agent's own checker
    (build/bin/asgf-agent-options): the same rules as -agentpath, one error per
    section. Without the checker: an error when strict (after the build), else
    left to that later check."""
    seen = set()
    for s in specs:
        if s['kind'] != 'stress':
            continue
        p = s['params']
        dup = [k.split('=')[0] for k in (p.get('agent') or '').split(',') if k.split('=')[0] in AGENT_SET_BY_JOB]
        for k in dup:
            if (s['section'], k) not in seen:
                seen.add((s['section'], k))
                errors.append("[%s] agent: '%s' is set by the section's own key or the job; "
                              "give it there, not in agent" % (s['section'], k))
        if dup:
            continue
        line = agent_line(p)
        if line in seen:
            continue
        seen.add(line)
        if not os.access(AGENT_CHECKER, os.X_OK):
            if strict:
                errors.append('%s missing: run make (it checks agent options)' % AGENT_CHECKER)
                return
            continue
        r = subprocess.run([AGENT_CHECKER, line], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode:
            # The checker counts the options of the whole line; the user wrote those after
            # the job's own ones.
            own = len(line.split(',')) - (len(p['agent'].split(',')) if p.get('agent') else 0)
            msg = re.sub(r'\boption (\d+) ',
                         lambda m: 'option %d of agent ' % (int(m.group(1)) - own) if int(m.group(1)) > own
                         else m.group(0), r.stderr.decode('utf-8', 'replace').strip())
            errors.append('[%s] agent: %s' % (s['section'], msg))


def _slug(text):
    return re.sub(r'[^A-Za-z0-9]+', '-', text).strip('-').lower()


def _job_time(section, items, camp, errors):
    try:
        t = seconds(items['job_time']) if items.get('job_time') else camp['job_time']
    except UsageError as e:
        errors.append('[%s] job_time: %s' % (section, e))
        return camp['job_time']
    if t < camp['min_attempt']:
        errors.append('[%s] job_time %gs is shorter than min_attempt %gs' % (section, t, camp['min_attempt']))
    return t


# Worker threads per stress job: more would measure thread creation, not walks.
MAX_THREADS = 1024


def _check_stress_value(section, key, value, errors):
    bad = {
        'mode': lambda v: v not in MODES,
        'api': lambda v: v not in APIS,
        'mutate': lambda v: not MUTATE_RE.fullmatch(v),
        'interval': lambda v: not INTERVAL_RE.fullmatch(v),
        'threads': lambda v: not re.fullmatch(r'[1-9]\d*', v) or int(v) > MAX_THREADS,
        'scenario': lambda v: not re.fullmatch(r'[a-z]+(,[a-z]+)*', v),
        'agent': lambda v: not re.fullmatch(r'[a-z_]+=[^\s,]*(,[a-z_]+=[^\s,]*)*', v),
        'jvm': lambda v: not JVM_RE.fullmatch(v),
    }[key]
    if bad(value):
        if key == 'threads':
            errors.append("[%s] threads: a number of workers 1..%d, got '%s'" % (section, MAX_THREADS, value))
        else:
            expected = {
                'mode': 'one of ' + ', '.join(MODES), 'api': 'one of ' + ', '.join(APIS),
                'mutate': 'none, random, near, blind, forge or corpus:DIR',
                'interval': 'a period such as 100us, 1ms or 250000ns',
                'scenario': 'scenario names joined by commas',
                'agent': 'key=value options joined by commas',
                'jvm': "JVM options joined by commas, or 'default'",
            }[key]
            errors.append("[%s] %s: bad value '%s' (expected %s)" % (section, key, value, expected))


def _stress(section, kind, items, camp, errors):
    for k in items:
        if k not in STRESS_MATRIX and k not in STRESS_FIXED:
            errors.append("[%s]: unknown key '%s' (known: %s)"
                          % (section, k, ', '.join(STRESS_MATRIX + STRESS_FIXED)))
    axes = []
    for key in STRESS_MATRIX:
        raw = items.get(key, STRESS_DEFAULTS[key])
        values = raw.split() or ['']
        for v in values:
            if v:
                _check_stress_value(section, key, v, errors)
        axes.append(values)
    flags = [f for f in items.get('flags', '').replace(',', ' ').split()]
    for f in flags:
        if f not in FLAGS:
            errors.append("[%s] flags: unknown flag '%s' (known: %s)" % (section, f, ', '.join(FLAGS)))
    heap = items.get('heap', '')
    if heap and not re.fullmatch(r'\d+[kmgKMG]?', heap):
        errors.append("[%s] heap: bad value '%s'" % (section, heap))
    jcmd = items.get('jcmd', '')
    if jcmd and not re.fullmatch(r'[1-9]\d*', jcmd):
        errors.append("[%s] jcmd: seconds between thread dumps, got '%s'" % (section, jcmd))
    cores = _cores(section, items, errors)
    job_time = _job_time(section, items, camp, errors)
    out = []
    for combo in itertools.product(*axes):
        params = dict(zip(STRESS_MATRIX, combo))
        if params['jvm'] == 'default':
            del params['jvm']     # the job line stays as it was for flag-less groups
        if jcmd:
            params['jcmd'] = jcmd
        if flags:
            params['flags'] = ','.join(flags)
        if heap:
            params['heap'] = heap
        params['cores'] = str(busy_threads(kind, dict(params, cores=cores)))
        mut = params['mutate'].split(':')[0]
        out.append({'kind': kind, 'section': section, 'job_time': job_time,
                    'tag': 'stress-%s-%s' % (params['mode'], mut), 'params': params,
                    'desc': ' '.join('%s=%s' % (k, v) for k, v in params.items() if v)})
    return out


def _cores(section, items, errors):
    v = items.get('cores', '').strip()
    if v and not re.fullmatch(r'[1-9]\d*', v):
        errors.append("[%s] cores: CPUs the job keeps busy, a number >= 1, got '%s'" % (section, v))
        return ''
    return v


def _fuzz(section, kind, items, camp, errors):
    known = FUZZ_KEYS[kind]
    for k in items:
        if k not in known:
            errors.append("[%s]: unknown key '%s' (known: %s)" % (section, k, ', '.join(known)))
    n = items.get('instances', '1')
    if not re.fullmatch(r'[1-9]\d*', n):
        errors.append("[%s] instances: '%s' is not a positive number" % (section, n))
        n = '1'
    for k in ('asan', 'keep_going', 'protect', 'feedback'):
        if items.get(k, '') not in ('', '0', '1'):
            errors.append("[%s] %s: 0 or 1, got '%s'" % (section, k, items[k]))
    if items.get('jvm') and not JVM_RE.fullmatch(items['jvm'].strip()):
        errors.append("[%s] jvm: JVM options joined by commas, got '%s'" % (section, items['jvm']))
    if items.get('api', '') not in ('',) + APIS:
        errors.append("[%s] api: bad value '%s' (expected one of %s)" % (section, items['api'], ', '.join(APIS)))
    if items.get('test_plant') and not re.fullmatch(r'0x[0-9a-fA-F]+|\d+', items['test_plant']):
        errors.append("[%s] test_plant: an address, got '%s'" % (section, items['test_plant']))
    for k in ('scenario', 'extra'):
        if ' ' in items.get(k, '').strip():
            errors.append("[%s] %s: no blanks (separate with commas)" % (section, k))
    job_time = _job_time(section, items, camp, errors)
    _cores(section, items, errors)
    group = _slug(section)
    out = []
    for i in range(int(n)):
        params = {k: items[k].strip() for k in known
                  if k not in ('instances', 'job_time') and items.get(k, '').strip()}
        params['cores'] = str(busy_threads(kind, params))
        if kind == 'afl':
            # Instance 0 is the -M main instance of the group's sync dir, the rest -S.
            params['role'] = 'M' if i == 0 else 'S'
            params['name'] = 'main' if i == 0 else 's%d' % i
            params['group'] = group
            tag = '%s-%s' % (group, params['name'])
        else:
            params['name'] = '%s-%d' % (group, i)
            tag = params['name']
        out.append({'kind': kind, 'section': section, 'job_time': job_time, 'tag': tag,
                    'params': params,
                    'desc': ' '.join('%s=%s' % (k, v) for k, v in params.items())})
    return out


def opts_string(params):
    """Params -> the job's OPTS argument: blank-separated key=value."""
    return ' '.join('%s=%s' % (k, v) for k, v in params.items() if v != '')
