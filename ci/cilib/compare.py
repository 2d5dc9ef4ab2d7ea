"""ci/premerge --base: the same campaign on the base build and on the patched one,
and the buckets that differ. A VM engineer's question is what the patch adds over
the build it is based on, not how a build compares with a list."""
import os
import random
import shlex
import sys

from . import confirm, junit, report, walker
from .preflight import NotRunnable, check_java
from .runner import Campaign, NothingToRun
from .shortfall import could_not_run, shortfall
from .util import EXIT_UNTESTED, EXIT_USAGE, UsageError, hms, read_json, signals_held

EXIT_OK, EXIT_NEW, EXIT_NOT_RUN = 0, 1, EXIT_UNTESTED
SIDES = ('base', 'patched')


def run_side(args, out, pr, java_home, known, opts_fn, budget, seed):
    """One side's campaign in OUT/<side>; (campaign exit status, its report.json)."""
    # A pair is not resumed: its sides must run the same plan in turn, and the one not
    # started would have no campaign to resume.
    camp = Campaign(out, quiet=args.quiet, resume_hint='a pre-merge pair is not resumed: judge what ran with '
                    'ci/premerge --report-only --out %s, or run the check again' % shlex.quote(os.path.dirname(out)))
    code = camp.start(pr, opts_fn(args, java_home, known, budget=budget, seed=seed))
    return code, read_json(os.path.join(out, 'report.json'), {}) or {}


def repro_steps(out, sig, java_home, sources):
    """[(label, text)] that reproduce a patched-side bucket: its smallest saved case, the
    command that reruns the job attempt that met it (on the patched build: the job's own
    --java-home), and crash-triage/repro pointed at the patched build, not at the JDK the
    records name (a wrapper build shares its libjvm path with the base)."""
    src = sources.get(sig, {})
    bucket = os.path.join(out, 'patched', 'triage', 'buckets', sig)
    repro = src.get('repro')
    if repro and '--java-home' not in repro:   # a fuzzer's replay: its VM is JAVA_HOME's
        repro = 'JAVA_HOME=%s %s' % (shlex.quote(java_home), repro)
    return [(k, v) for k, v in (
        ('reproducer', src.get('reproducer')), ('repro command', repro),
        ('triage', 'crash-triage/repro --java-home %s %s' % (shlex.quote(java_home), shlex.quote(bucket))))
        if v]


def buckets_of(doc):
    return {b['signature']: b for b in ((doc.get('triage') or {}).get('buckets') or [])}


def classify(base, patched):
    """(new, gone, shared) as lists of (signature, title, base count, patched count).
    Only a patched-only bucket that triage did not mark known or suppressed is new."""
    new, gone, shared = [], [], []
    for sig in sorted(set(base) | set(patched)):
        b, p = base.get(sig), patched.get(sig)
        row = (sig, (p or b)['title'], b['count'] if b else 0, p['count'] if p else 0)
        if b and p:
            shared.append(row)
        elif p:
            (shared if p.get('status') in ('known', 'suppressed') else new).append(row)
        else:
            gone.append(row)
    key = lambda r: (-max(r[2], r[3]), r[1])
    return sorted(new, key=key), sorted(gone, key=key), sorted(shared, key=key)


def base_vs_patched(args, out, pr, java_home, known, opts_fn, setup_failure, write_outputs):
    base_home = os.path.abspath(args.base)
    try:
        check_java(base_home, '--base')
    except NotRunnable as e:
        return setup_failure(args, out, str(e))
    budget = (args.budget if args.budget is not None else pr['campaign']['budget']) / 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1 << 31)
    homes = {'base': base_home, 'patched': java_home}
    codes, docs = {}, {}
    for side in SIDES:
        if not args.quiet:
            print('premerge: %s side: %s, budget %s, seed %d' % (side, homes[side], hms(budget), seed))
        try:
            codes[side], docs[side] = run_side(args, os.path.join(out, side), pr, homes[side], known,
                                               opts_fn, budget, seed)
        except UsageError as e:
            return setup_failure(args, out, '%s side: %s' % (side, e), EXIT_USAGE)
        except (NotRunnable, NothingToRun) as e:
            return setup_failure(args, out, '%s side: %s' % (side, e))
        if codes[side] == 130:
            break
        if side == 'base' and not tested_anything(docs['base']):
            # Whatever the patched side finds, the pair cannot be judged: no need to spend
            # its half of the budget to say so.
            print('premerge: the base side tested nothing (%s): the patched side is not run'
                  % (shortfall(docs['base'], codes['base']) or 'no job ran'), file=sys.stderr)
            break
    return judge(args, out, homes, codes, docs, budget, seed, write_outputs)


def tested_anything(doc):
    """Whether a side's campaign ran a job that walked or executed anything."""
    return any(not could_not_run(j) and j['outcome'] != 'not started' and j.get('execs', 0) > 0
               for j in doc.get('jobs', []))


def report_again(args, out, write_outputs):
    """--report-only on a --base directory: each side triaged and reported again, then
    judged as after a run (a pair cut short by a signal or a full disk). A side that never
    started counts as not run; one whose known list is gone, or that another runner holds,
    stops it (UsageError: exit 2)."""
    codes, docs = {}, {}
    for side in SIDES:
        d = os.path.join(out, side)
        # no campaign.json: never started; no state.json: refused before its first job (too
        # short a budget): either way not run, judged as such
        if not all(os.path.isfile(os.path.join(d, f)) for f in ('campaign.json', 'state.json')):
            codes[side], docs[side] = 'not started', {}
            continue
        try:
            codes[side] = Campaign(d, quiet=args.quiet).report_only(known=args.known)
        except UsageError as e:    # a known list that is gone, a lock held: exit 2, as for one build
            raise UsageError('%s side: %s' % (side, e))
        docs[side] = read_json(os.path.join(d, 'report.json'), {}) or {}
    camp = {side: docs[side].get('campaign') or {} for side in SIDES}
    homes = {side: camp[side].get('java_home') or '?' for side in SIDES}
    return judge(args, out, homes, codes, docs, (camp['patched'] or camp['base']).get('budget') or 0,
                 (camp['patched'] or camp['base']).get('seed') or 0, write_outputs)


def judge(args, out, homes, codes, docs, budget, seed, write_outputs):
    """The verdict over both sides, with SIGINT and SIGTERM held off until its files are
    written (a CI runner's time-out): a signal stops the retries, the buckets not tried
    stay new, and the exit is 1 if anything is new, else 3."""
    code, got = signals_held(lambda stop: _judge(args, out, homes, codes, docs, budget, seed, write_outputs, stop),
                             confirm.stop_current)
    if got and code != EXIT_NEW:
        print('premerge: interrupted; the files are whole')
        return EXIT_NOT_RUN
    return code


def _judge(args, out, homes, codes, docs, budget, seed, write_outputs, stop):
    base_home, java_home = homes['base'], homes['patched']
    bs = {side: buckets_of(docs.get(side, {})) for side in SIDES}
    new, gone, shared = classify(bs['base'], bs['patched'])
    mismatch = []
    if not getattr(args, 'mismatch_fails', False):
        # As for one build (ci/premerge): the oracle's false-positive rate is not yet shown
        # to be zero, and a mismatch bucket has no case to run again on the base build.
        mismatch = [r for r in new if r[1].startswith('MISMATCH-')]
        new = [r for r in new if r not in mismatch]
    short = {s: shortfall(docs.get(s) or {}, codes.get(s, 'not started')) for s in SIDES}
    not_run = [s for s in SIDES if short[s]]
    tried = {}
    if new and args.confirm > 0 and codes.get('patched') not in (130, 'not started') and '?' not in homes.values():
        if not args.quiet:
            print('premerge: %d bucket(s) only on the patched build: each run again, on the base build first '
                  '(up to %d fresh JVM(s) a build; no retry starts after %s)' % (
                      len(new), args.confirm, hms(args.confirm_time)))
        tried = confirm.run(out, new, homes, args.confirm, args.confirm_time, args.quiet, stop)
    before = [r for r in new if tried.get(r[0], {}).get('verdict') == confirm.PRE_EXISTING]
    new = [r for r in new if r not in before]

    def how(sig):
        return confirm.describe(tried[sig]) if sig in tried else ''

    def told(sig):   # how, and what the retries noted
        notes = '; '.join(tried[sig]['notes']) if sig in tried else ''
        return how(sig) + (' (%s)' % notes if notes else '')

    sources = report.bucket_sources(os.path.join(out, 'patched'))
    steps = {r[0]: repro_steps(out, r[0], java_home, sources) for r in new}
    suites = []
    for name, rows, fail in (('new', new, True), ('pre-existing', before, False), ('gone', gone, False),
                             ('shared', shared, False), ('mismatch', mismatch, False)):
        suite = junit.Suite('premerge.%s-buckets' % name, properties={
            'base': base_home, 'patched': java_home, 'seed': str(seed), 'budget_each': hms(budget)})
        for sig, title, nb, np_ in rows:
            case = suite.add(junit.Case('premerge.%s-buckets' % name, '%s %s' % (sig, title)))
            case.out = 'base: %d, patched: %d%s' % (nb, np_, '; tried again: %s' % told(sig) if how(sig) else '')
            if fail:
                bucket = os.path.join(out, 'patched', 'triage', 'buckets', sig)
                case.fail('new on the patched build: %s' % title, 'new-bucket',
                          'signature: %s\ntitle: %s\ncount on patched: %d\ntried again: %s\nbucket: %s\n%s' % (
                              sig, title, np_, told(sig) or 'no', bucket,
                              '\n'.join('%s: %s' % kv for kv in steps[sig])))
        suites.append(suite)
    setup = junit.Suite('premerge.sides')
    for side in SIDES:
        c = setup.add(junit.Case('premerge.sides', '%s: %s' % (side, homes[side])))
        if short[side]:
            c.error('%s side: %s (campaign exit %s)' % (side, short[side], codes.get(side, 'not started')), 'not-run',
                    os.path.join(out, side, 'campaign.log'))
    suites.insert(0, setup)

    code = EXIT_NEW if new else (EXIT_NOT_RUN if not_run else EXIT_OK)
    label = {EXIT_OK: 'passed: nothing new on the patched build', EXIT_NEW: 'FAILED: new buckets on the patched build',
             EXIT_NOT_RUN: 'could not run completely'}[code]
    for name, rows in (('NEW', new), ('pre-existing', before), ('gone', gone), ('shared', shared),
                       ('mismatch', mismatch)):
        for sig, title, nb, np_ in rows:
            print('premerge: %-12s %s  base %5d  patched %5d  %s%s' % (
                name, sig, nb, np_, title, '  [%s]' % how(sig) if how(sig) else ''))
            for label_, text in steps.get(sig, []) if name == 'NEW' else []:
                print('  %s: %s' % (label_, text))
    if mismatch:
        print('premerge: %d oracle mismatch bucket(s) only on the patched build, not failing without '
              '--mismatch-fails' % len(mismatch))
    print('premerge: %s (%d new, %d pre-existing, %d gone, %d shared)%s; reports %s %s' % (
        label, len(new), len(before), len(gone), len(shared),
        ' - %s side: %s' % (not_run[0], short[not_run[0]]) if not_run and not new else '',
        os.path.join(out, 'base', 'report.html'), os.path.join(out, 'patched', 'report.html')))
    cov = walker_line({side: walker.union(os.path.join(out, side, 'results')) for side in SIDES})
    print('premerge: %s' % cov)
    row = lambda r: {'signature': r[0], 'title': r[1], 'base': r[2], 'patched': r[3],
                     'tried': confirm.tries(tried[r[0]]) if r[0] in tried else ''}
    report.write_sides(out, {
        'state': {EXIT_OK: 'pass', EXIT_NEW: 'fail', EXIT_NOT_RUN: 'untested'}[code],
        'label': 'Pre-merge check %s (exit %d)' % (label, code),
        'why': '%d new, %d pre-existing, %d gone, %d shared; base %s, patched %s, the same campaign (seed %d, '
               '%s each)' % (len(new), len(before), len(gone), len(shared), base_home, java_home, seed, hms(budget)),
        'new': [{'title': t, 'signature': sig, 'count': np_, 'repro': dict(steps[sig])['triage']}
                for sig, t, nb, np_ in new],
        'sides': {'new': [row(r) for r in new], 'pre-existing': [row(r) for r in before],
                  'gone': [row(r) for r in gone], 'shared': [row(r) for r in shared],
                  'mismatch': [row(r) for r in mismatch],
                  'base_report': os.path.join('base', 'report.html'),
                  'patched_report': os.path.join('patched', 'report.html')}})
    print('report: %s' % os.path.join(out, 'report.html'))
    rates = {side: report.throughput_line(docs[side]['totals']) for side in SIDES
             if (docs.get(side) or {}).get('totals')}
    write_outputs(args, out, suites, summary(label, code, homes, budget, seed, new, before, gone, shared, out, cov,
                                             told, steps, rates))
    return code


def walker_line(cov):
    """Blocks reached on each side. The two libjvms are different builds, so their blocks are
    compared by count, not by offset."""
    return 'walker coverage: base %s, patched %s' % (walker.counts(cov['base']), walker.counts(cov['patched']))


def summary(label, code, homes, budget, seed, new, before, gone, shared, out, cov='', how=lambda sig: '', steps=None,
            rates=None):
    lines = ['# Pre-merge check, base vs patched: %s (exit %d)' % (label, code), '',
             'Base `%s`, patched `%s`: the same campaign (seed %d, %s each). '
             '%d new, %d pre-existing, %d gone, %d shared.' % (
                 homes['base'], homes['patched'], seed, hms(budget), len(new), len(before), len(gone), len(shared)),
             '']
    if cov:
        lines += [cov[0].upper() + cov[1:] + '.', '']
    for side in SIDES:
        if (rates or {}).get(side):
            lines += ['Throughput, %s: %s' % (side, rates[side]), '']
    for name, rows, what in (('New', new, 'only on the patched build'),
                             ('Pre-existing', before, 'met only on the patched build, reproduced on the base build'),
                             ('Gone', gone, 'only on the base build'),
                             ('Shared', shared, 'on both builds, or known')):
        lines += ['## %s buckets (%s)' % (name, what), '']
        if not rows:
            lines += ['None.', '']
            continue
        lines += ['| signature | title | base | patched | tried again |', '|---|---|---|---|---|']
        lines += ['| `%s` | %s | %d | %d | %s |' % (sig, title.replace('|', '\\|'), nb, np_, how(sig) or '-')
                  for sig, title, nb, np_ in rows]
        lines.append('')
        if name == 'New' and steps:
            for sig, title, nb, np_ in rows:
                lines += ['Reproduce %s:' % sig, ''] + ['- %s: `%s`' % kv for kv in steps.get(sig, [])] + ['']
    lines += ['Reports: `%s`, `%s`' % (os.path.join(out, 'base', 'report.html'),
                                       os.path.join(out, 'patched', 'report.html')), '']
    return '\n'.join(lines)
