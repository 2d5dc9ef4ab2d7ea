#!/usr/bin/env bash
# AFL++ jobs in a campaign: two [afl] groups, each with its own sync
# directory whose first instance is "main" (so both find a crash with the
# same id:000000), each get their crash copied into their attempts and
# triaged; neither is taken for the other's.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
command -v afl-fuzz >/dev/null || { echo "ok 1 # SKIP afl-fuzz not installed"; tap_done; exit; }

write_preset "$d/afl.preset" rounds=1 budget=25s job_time=12s min_attempt=5s reserve=5s triage_every=10s progress_every=5s <<'EOF'

[afl]
test_plant = 0x10
cores = 1

[afl second]
test_plant = 0x10
cores = 1
EOF
# One CPU each, so that both groups run at once within the budget.
out=$d/c
ci/campaign --preset "$d/afl.preset" --out "$out" --no-build --seed 5 >"$d/stdout" 2>"$d/stderr"
rc=$?
ok $rc "a campaign of two AFL++ groups exits 0 (got $rc; $(tail -1 "$d/stderr"))"

python3 - "$out" <<'EOF' >"$d/groups.out" 2>&1
import csv, glob, os, sys
out = sys.argv[1]
found = {}
for tsv in glob.glob(os.path.join(out, 'results/jobs/*/attempts.tsv')):
    job = os.path.basename(os.path.dirname(tsv))
    for r in csv.DictReader(open(tsv), delimiter='\t'):
        files = glob.glob(os.path.join(os.path.dirname(tsv), r['dir'], 'crashes', 'id:*'))
        found.setdefault(job, []).extend(os.path.basename(f)[:9] for f in files)
print(sorted(found.items()))
assert len(found) == 2 and all(v for v in found.values()), found
assert all('id:000000' in v for v in found.values()), found
EOF
ok $? "each group's own crash id:000000 is copied into its attempts ($(tail -1 "$d/groups.out" | cut -c1-200))"

# Triage replayed both groups' crash files with their attempt's settings (its
# replay.env: the planted fault comes from ASGF_TEST_PLANT, so without them a
# replay would not fault) and filed them as fuzzer reports.
python3 - "$out" <<'EOF' >"$d/triaged.out" 2>&1
import glob, json, sys
fuzzer = [m['path'] for f in glob.glob(sys.argv[1] + '/triage/buckets/*/bucket.json')
          for m in json.load(open(f))['members'] if m['kind'] == 'fuzzer']
seen = {g: any('-%s/' % g in p and '/crashes/id:' in p for p in fuzzer) for g in ('afl-main', 'afl-second-main')}
print(seen, len(fuzzer))
assert all(seen.values())
EOF
ok $? "both groups' crash files replay, with their attempt's settings, into buckets ($(tail -1 "$d/triaged.out"))"

# Their rerun lines name the VM the jobs ran on: copied into another shell, a replay would
# otherwise run on that shell's JAVA_HOME.
python3 - "$out" "$(cd "${JAVA_HOME:-/nonexistent}" 2>/dev/null && pwd)" <<'EOF' >"$d/rerun.out" 2>&1
import json, shlex, sys
bs = [b for b in json.load(open(sys.argv[1] + '/report.json'))['triage']['buckets'] if b.get('replay_command')]
print([b['repro_command'][:160] for b in bs])
want = 'JAVA_HOME=%s ' % shlex.quote(sys.argv[2])
assert bs and all(b['repro_command'].startswith(want) and b['replay_command'].startswith(want) for b in bs)
EOF
ok $? "the fuzzer buckets' rerun and replay lines start with the jobs' JAVA_HOME ($(tail -1 "$d/rerun.out" | cut -c1-200))"
tap_done
