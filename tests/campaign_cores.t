#!/usr/bin/env bash
# A campaign never runs more busy threads than the host has cores: every job
# takes the CPUs it keeps busy (its plan's cores=N) before it starts, one lock
# file per CPU, and runs pinned to them. Two 2-core jobs on two GNU Parallel
# slots run one after the other; two 1-core jobs run side by side, each on a
# CPU of its own; every job's job.json says which CPUs it had. The CPUs
# counted are those of the campaign's affinity mask; a job of more cores
# than those says so.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
export ASGFCI_CPU_LOCKS=$d/locks     # apart from any campaign running on this host
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
[ "$ncpu" -ge 2 ] || { echo "ok 1 # SKIP one CPU: nothing to share"; echo 1..1; exit 0; }

# The campaign counts the CPUs it may use, as ci/job pins within them: under
# taskset (a CI runner's cpuset) that is fewer than the host has.
got=$(taskset -c 0 python3 -c 'import sys; sys.path[:0] = ["ci", "crash-triage"]
from cilib import runner; print(runner.usable_cpus())' 2>&1)
[ "$got" = 1 ]
ok $? "under taskset -c 0 the campaign counts 1 CPU of the host's $ncpu (got '$got')"

campaign() {  # NAME CORES: two stress jobs of CORES each, on two slots
  cat >"$d/$1.preset" <<EOF
[campaign]
budget = 50s
job_time = 8s
min_attempt = 3s
reserve = 6s
rounds = 1
jobs = 2
[stress a]
scenario = spin
cores = $2
[stress b]
scenario = spin
cores = $2
EOF
  ci/campaign --preset "$d/$1.preset" --out "$d/$1" --java-home "$JAVA_HOME" > "$d/$1.log" 2>&1
}
jobs_json() {  # DIR: "start end cores cpus" per job, by start
  python3 - "$1" <<'EOF'
import glob, json, sys
rows = [json.load(open(p)) for p in glob.glob(sys.argv[1] + '/results/jobs/*/job.json')]
for j in sorted(rows, key=lambda j: j['started']):
    held = j.get('cpus_held') or [j['started'], j['ended']]
    print('%.2f %.2f %d %s %s' % (held[0], held[1], j['cores'], j['cpus'] or '-', j['status']))
EOF
}

campaign two 2; rc=$?
jobs_json "$d/two" > "$d/two.jobs"
ok $rc "a campaign of two 2-core jobs runs (exit $rc: $(grep 'campaign: done' "$d/two.log"))"
read -r s1 e1 c1 p1 st1 < <(sed -n 1p "$d/two.jobs")
read -r s2 e2 c2 p2 st2 < <(sed -n 2p "$d/two.jobs")
[ "$st1" = done ] && [ "$st2" = done ] && [ "$p1" = "$p2" ] && [ "$(echo "$p1" | tr ',' '\n' | wc -l)" = 2 ]
ok $? "each held two CPUs ($p1 / $p2)"
python3 -c "import sys; sys.exit(not $s2 >= $e1)"
ok $? "the second took its CPUs after the first let them go: never more busy threads than cores ($(tr '\n' ';' < "$d/two.jobs"))"
grep -q 'pinned to CPUs .* (cores=2, waited [1-9]' "$d"/two/results/jobs/*/job.log
ok $? "the job that waited says so ($(grep -h 'pinned to CPUs' "$d"/two/results/jobs/*/job.log | cut -d: -f4- | tr '\n' ';'))"

campaign one 1; rc=$?
jobs_json "$d/one" > "$d/one.jobs"
read -r s1 e1 c1 p1 st1 < <(sed -n 1p "$d/one.jobs")
read -r s2 e2 c2 p2 st2 < <(sed -n 2p "$d/one.jobs")
[ $rc = 0 ] && [ "$st1" = done ] && [ "$st2" = done ] && [ "$p1" != "$p2" ] && [[ $p1 =~ ^[0-9]+$ ]] && [[ $p2 =~ ^[0-9]+$ ]]
ok $? "two 1-core jobs each had a CPU of their own ($p1, $p2)"
python3 -c "import sys; sys.exit(not $s2 < $e1)"
ok $? "... and ran side by side ($(tr '\n' ';' < "$d/one.jobs"))"
# The JVMs ran where the locks said: the agent reports the CPUs it was allowed.
bad=0 seen=""
for j in "$d"/one/results/jobs/*/; do
  want=$(cat "$j/cpus") got=$(json_field "$j/g0a1/summary.json" cpus_allowed)
  seen="$seen $want=$got"
  [ "$want" = "$got" ] || bad=1
done
[ $bad = 0 ]; ok $? "the JVMs were confined to those CPUs (lock=allowed:$seen)"

# A job that keeps more threads busy than the CPUs it may use still runs, on
# those it has, and says so.
mkdir -p "$d/over/results/jobs"
ASGFCI_OUT=$d/over ASGFCI_DEADLINE=$(( $(date +%s) + 60 )) taskset -c 0 \
  ci/job r001-01-stress-over stress 4 7 "scenario=spin cores=2" > "$d/over.out" 2>&1
jl=$d/over/results/jobs/r001-01-stress-over/job.log
grep -q 'cores=2 is more than the 1 CPU(s) this job may use' "$jl" && grep -q 'pinned to CPUs 0 (cores=2' "$jl"
ok $? "a job of more cores than its CPUs says so and runs on what it has ($(grep -m1 'more than' "$jl" | cut -d: -f4-))"
tap_done
