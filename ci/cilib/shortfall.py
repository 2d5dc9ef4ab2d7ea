"""What a finished campaign did not test of its plan: the one rule behind a pre-merge's
exit 3, for a single build and for each side of a --base pair."""

UNRUN = ('not run', 'killed (timeout)')


def could_not_run(job):
    """A job that was meant to run and did not (it failed, timed out, or could not start)."""
    return job['outcome'] in UNRUN or job['outcome'].startswith('failed')


def shortfall(doc, campaign_code):
    """Why the campaign of report.json `doc` (its runner's exit status `campaign_code`)
    tested less than its plan, or None when it tested it all."""
    plan = doc.get('plan', [])
    jobs = doc.get('jobs', [])
    not_run = [j for j in jobs if could_not_run(j)]
    # a plan job ran if one of its jobs made an attempt: one started too late for its first
    # (skipped (budget)) tested nothing more than one never started
    unstarted = [r['id'] for r in plan if not any(j.get('attempts') for j in jobs if j['spec'] == r['id'])]
    started = [j for j in jobs if j['outcome'] != 'not started']
    if campaign_code == 130:
        return 'interrupted'
    if not_run:
        return '%d job(s) could not run' % len(not_run)
    if not started:
        return 'no job started'
    if sum(j.get('execs', 0) for j in started) == 0:
        return 'tested nothing: %d job(s) ran 0 walks or executions' % len(started)
    if unstarted:
        return 'the budget covered %d of %d plan jobs (not run: %s)' % (
            len(plan) - len(unstarted), len(plan), ', '.join(unstarted[:5]) + (' ...' if len(unstarted) > 5 else ''))
    if campaign_code != 0:
        return 'campaign exit %s' % campaign_code
    return None
