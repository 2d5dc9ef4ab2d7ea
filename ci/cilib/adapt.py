"""Adaptive time split for long campaigns (preset key adapt = 1), as AFL++ and
syzkaller weigh their strategies: the plan lists more rounds than the budget
can run, and from the second round on a job runs only with its group's
keep probability, which the runner recomputes from the yield table after
every incremental triage and writes to OUT/adapt.json. A job that draws
"skip" ends at once ("skipped (yield)"), and the time goes to the next job
in the list: the groups that find buckets the known list does not name get
more of it. Every group keeps a floor, so none is starved of the chance to
find something.

Remote hosts that do not share OUT read no adapt.json: their jobs all run."""
import os

from .util import write_json

FLOOR = 0.25        # keep probability of a group that has found nothing yet
KNOWN_WEIGHT = 0.25  # a bucket the known list names, against a new one's 1
OVERBOOK = 3        # rounds listed per round the budget fills, with adapt = 1
FILE = 'adapt.json'


def keep_probabilities(rows):
    """{group: probability} from yields.table rows: FLOOR plus the rest in
    proportion to buckets first found per CPU-minute (plus one, so a group
    with little time yet is not judged on it). A new bucket counts 1 and one
    the known list names KNOWN_WEIGHT: on an unpatched build a group that
    keeps meeting its known bugs shows it reaches fragile code, but the time
    is for what is not known yet. No bucket anywhere: all 1."""
    def found(r):
        new = r.get('new', 0)
        return new + KNOWN_WEIGHT * (r['buckets'] - new)
    score = {r['group']: found(r) / (r['cpu_min'] + 1.0) for r in rows}
    best = max(score.values() or [0])
    if best <= 0:
        return {g: 1.0 for g in score}
    return {g: round(FLOOR + (1 - FLOOR) * s / best, 3) for g, s in score.items()}


def write(out, specs, rows):
    """OUT/adapt.json: keep probability per plan job (its group's), and the table it came from."""
    p = keep_probabilities(rows)
    write_json(os.path.join(out, FILE), {
        'keep': {s['id']: p.get(s['section'], 1.0) for s in specs},
        'groups': {r['group']: {'keep': p.get(r['group'], 1.0), 'cpu_min': round(r['cpu_min'], 2),
                                'buckets': r['buckets']} for r in rows}})
    return p
