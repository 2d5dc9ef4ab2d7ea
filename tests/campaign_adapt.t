#!/usr/bin/env bash
# Time follows the yield (preset adapt = 1, ci/cilib/adapt.py): the runner
# writes each plan job's keep probability from the yield table after every
# triage, and from the second round on a job of a group that finds nothing
# runs only with the floor probability; a skipped job leaves its time to the
# next and says so; the report's yield table shows the split.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

# The rule itself: the floor for a group without buckets, 1 for the best one;
# a new bucket counts more than one the known list names.
python3 - <<'EOF' > "$d/rule.out" 2>&1
import sys
sys.path.insert(0, 'ci')
from cilib import adapt
p = adapt.keep_probabilities([{'group': 'a', 'buckets': 4, 'cpu_min': 3.0},
                              {'group': 'b', 'buckets': 0, 'cpu_min': 9.0},
                              {'group': 'c', 'buckets': 1, 'cpu_min': 1.0}])
assert p['a'] == 1.0 and p['b'] == adapt.FLOOR and adapt.FLOOR < p['c'] < 1.0, p
assert set(adapt.keep_probabilities([{'group': 'x', 'buckets': 0, 'cpu_min': 5.0}]).values()) == {1.0}
# One new bucket outweighs three that the known list names, in the same time.
q = adapt.keep_probabilities([{'group': 'n', 'buckets': 1, 'new': 1, 'cpu_min': 4.0},
                              {'group': 'k', 'buckets': 3, 'new': 0, 'cpu_min': 4.0}])
assert q['n'] == 1.0 and adapt.FLOOR < q['k'] < 1.0, q
print(p, q)
EOF
ok $? "keep probabilities: best group 1, a group with nothing the floor, a new bucket above 3 known ($(tail -1 "$d/rule.out"))"

# A job of the second round whose group's keep is 0 does not run.
mkdir -p "$d/camp/results/jobs"
echo '{"keep": {"01-stress-signal-none": 0.0}, "groups": {}}' > "$d/camp/adapt.json"
ASGFCI_OUT=$d/camp ASGFCI_DEADLINE=$(( $(date +%s) + 60 )) ASGFCI_CPU_LOCKS=$d/locks \
  ci/job r002-01-stress-signal-none stress 20 7 "scenario=spin cores=1" > "$d/job.out" 2>&1
rc=$?
jd=$d/camp/results/jobs/r002-01-stress-signal-none
[ $rc = 0 ] && grep -q '"status": "skipped"' "$jd/job.json" && [ -f "$jd/skipped-yield" ] && ! ls -d "$jd"/g0a* > /dev/null 2>&1
ok $? "a round-2 job of a group kept with probability 0 is skipped, no attempt (exit $rc: $(grep -o 'skipped: .*' "$jd/job.log" | cut -c1-70))"
ASGFCI_OUT=$d/camp ASGFCI_DEADLINE=$(( $(date +%s) + 60 )) ASGFCI_CPU_LOCKS=$d/locks \
  ci/job r001-01-stress-signal-none stress 4 7 "scenario=spin cores=1" > "$d/job1.out" 2>&1
grep -q '"status": "done"' "$d/camp/results/jobs/r001-01-stress-signal-none/job.json"
ok $? "the first round always runs (every group gets its chance)"

# A short adaptive campaign: the runner keeps adapt.json up to date and the
# report splits the time by group.
write_preset "$d/a.preset" budget=40s job_time=6s min_attempt=3s reserve=6s triage_every=5s adapt=1 <<'EOF'
[stress forge]
scenario = spin
mutate = forge
interval = 50us
cores = 1
[stress plain]
scenario = spin
cores = 1
EOF
ASGFCI_CPU_LOCKS=$d/locks2 ci/campaign --preset "$d/a.preset" --out "$d/a" --java-home "$JAVA_HOME" > "$d/a.log" 2>&1
rc=$?
[ $rc = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert set(d["groups"]) == {"stress forge", "stress plain"}, d' "$d/a/adapt.json"
ok $? "the runner wrote keep probabilities per group (exit $rc: $(tr -d '\n' < "$d/a/adapt.json" 2>/dev/null | cut -c1-150))"
grep -q '^| stress forge | [0-9]* ([0-9]*) | [0-9.]* ([0-9]* %)' "$d/a/report.md" && grep -q '^| stress plain |' "$d/a/report.md"
ok $? "the report's yield table shows each group's jobs, skips and share of the time"
# A job that ended before its first attempt is counted as skipped, whatever ended it (the
# yield weighting, the budget, a stop); one that made an attempt and then ran out of budget ran.
python3 - "$PWD" >"$d/yt.out" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + '/ci')
from cilib import yields
specs = [{'id': 's1', 'section': 'g', 'params': {'cores': '2'}}]
att = [{'secs': 30, 'verdict': 'clean'}]
jobs = [dict(id='j%d' % i, spec='s1', outcome=o, attempts=a) for i, (o, a) in enumerate([
    ('clean', att), ('skipped (budget)', []), ('skipped (yield)', []), ('skipped (budget)', att),
    ('interrupted', []), ('not started', [])])]
r = yields.table('/nonexistent', specs, jobs, [])[0]
print(r['jobs'], r['skipped'], r['cpu_min'])
PY
grep -qx '2 3 2.0' "$d/yt.out"
ok $? "yield table: jobs that ended before an attempt are skipped, whatever ended them ($(tail -1 "$d/yt.out"))"
tap_done
