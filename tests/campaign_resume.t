#!/usr/bin/env bash
# Interrupt a campaign half way (SIGINT, as Ctrl-C), then --resume it:
# everything gathered before the interruption is kept, jobs that had
# finished are not run again, and the interrupted ones are.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

write_preset "$d/resume.preset" budget=60s job_time=8s min_attempt=3s rounds=1 triage_every=3s progress_every=5s <<'EOF'

[stress planted]
cores = 1
scenario = spin,recursion inline,deopt spin
agent = test_plant=0x10,protect=0

[stress caught]
cores = 1
scenario = spin recursion
agent = test_plant=0x10
EOF
out=$d/c
# One job at a time: each job is pinned to a CPU of its own and triage runs at
# SCHED_IDLE, so with -j 2 both CPUs of a 2-core machine are taken and the
# report that check 1 waits for could come only after the last job had ended
# (seen once in CI: nothing left to interrupt). -j 1 leaves triage a CPU.
ci/campaign --preset "$d/resume.preset" --out "$out" --no-build -j 1 --seed 5 >"$d/run1.out" 2>&1 &
pid=$!
# Wait until at least one job has finished and others are running.
for _ in $(seq 600); do
  [ "$(tail -n +2 "$out/joblog" 2>/dev/null | wc -l)" -ge 1 ] && [ -n "$(ls "$out"/results/jobs/*/RUNNING 2>/dev/null)" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
# The report is there while it runs (rewritten after each triage), and says so.
running() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["state"]["status"] != "running")' "$out/report.json" 2>/dev/null; }
for _ in $(seq 300); do running && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
running && grep -q '<section id="verdict" class="[a-z]*"><h2>running, [0-9:]* of 1:00 used: ' "$out/report.html"
ok $? "while it runs, report.html is there and leads with 'running, ... used' ($(grep -o '<h2>[^<]*' "$out/report.html" 2>/dev/null | head -1))"
sleep 1
# Interrupt inside an attempt (its directory there, no verdict yet): check 8
# wants the stopped attempt's record, and a SIGINT that lands between one
# attempt's verdict and the next one's start stops no attempt (CI of 696f043:
# 0 recorded, where every other run here had one).
in_attempt() { for a in "$out"/results/jobs/*/g*a*; do [ -d "$a" ] && [ ! -e "$a/verdict" ] && return 0; done; return 1; }
for _ in $(seq 200); do in_attempt && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
kill -INT $pid
wait $pid; rc=$?
ok $(( rc != 130 )) "interrupted campaign exits 130 (got $rc)"
grep -q 'resume with: ci/campaign --resume --out' "$d/run1.out"; ok $? "it says how to resume"
grep -q '<h2>interrupted</h2>' "$out/report.html"; ok $? "a report is written at the interruption, and says so"
status=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$out/state.json")
ok "$([ "$status" = interrupted ]; echo $?)" "state.json says interrupted ($status)"
pgrep -f "$out" >/dev/null; ok $(( $? == 0 )) "no job of the campaign is left running"

# What was there before the resume.
tail -n +2 "$out/joblog" | cut -f1 | sort -n >"$d/done1"
n_done=$(wc -l <"$d/done1")
ok $(( n_done < 1 )) "at least one job finished before the interruption ($n_done)"
find "$out/results" -type f | sort >"$d/files1"
for seq in $(cat "$d/done1"); do
  id=$(sed -n "${seq}p" "$out/jobs.txt" | cut -f1)
  md5sum "$out/results/jobs/$id/attempts.tsv"
done >"$d/done1.md5"
interrupted=$(grep -l 'interrupted' "$out"/results/jobs/*/attempts.tsv 2>/dev/null | wc -l)
ok $(( interrupted < 1 )) "the jobs stopped by the interruption recorded it ($interrupted)"
# ...and wrote job.json (host, CPUs, status) before GNU Parallel gave up on them.
nojson=$(for jd in "$out"/results/jobs/*/; do [ -s "$jd/attempts.tsv" ] && [ ! -s "$jd/job.json" ] && echo "$jd"; done | wc -l)
ok $(( nojson != 0 )) "every job that started has its job.json after the interruption ($nojson without)"

ci/campaign --resume --out "$out" --no-build >"$d/run2.out" 2>&1; rc=$?
ok $rc "resumed campaign exits 0 (got $rc; $(grep 'campaign: done' "$d/run2.out"))"

# Finished jobs were not rerun: their attempts are unchanged, no gen-1 attempt.
md5sum -c --quiet "$d/done1.md5" >/dev/null 2>&1; ok $? "finished jobs were not run again"
rerun=0
for seq in $(cat "$d/done1"); do
  id=$(sed -n "${seq}p" "$out/jobs.txt" | cut -f1)
  ls -d "$out/results/jobs/$id"/g1a* >/dev/null 2>&1 && rerun=1
done
ok $rerun "no finished job has an attempt from the resumed run"
# Nothing lost: every file from before is still there.
find "$out/results" -type f | sort >"$d/files2"
missing=$(comm -23 "$d/files1" "$d/files2" | grep -cv '/RUNNING$')
ok $(( missing != 0 )) "every result file from before the interruption is kept ($missing missing)"
# Every job ran exactly once in the joblog; interrupted ones got a gen-1 attempt.
total=$(wc -l <"$out/jobs.txt")
uniq_seqs=$(tail -n +2 "$out/joblog" | cut -f1 | sort -u | wc -l)
lines=$(tail -n +2 "$out/joblog" | wc -l)
ok $(( uniq_seqs != total || lines != total )) "joblog has each of the $total jobs once ($lines lines)"
g1=$(ls -d "$out"/results/jobs/*/g1a1 2>/dev/null | wc -l)
ok $(( g1 < 1 )) "interrupted or unstarted jobs ran in the resumed run ($g1)"
python3 - "$out" <<'EOF' >"$d/state.out" 2>&1; ok $? "state.json has two sessions and the budget used by both ($(cat "$d/state.out"))"
import json, sys
s = json.load(open(sys.argv[1] + '/state.json'))
assert [x['status'] for x in s['sessions']] == ['interrupted', 'done'], s['sessions']
first = s['sessions'][0]['end'] - s['sessions'][0]['start']
assert s['consumed'] > first, (s['consumed'], first)
r = json.load(open(sys.argv[1] + '/report.json'))
assert all(j['outcome'] != 'not started' for j in r['jobs']), [j['outcome'] for j in r['jobs']]
print('%.0fs used' % s['consumed'])
EOF
# Buckets after the resume include those found before it.
crash-triage/triage --out "$d/fresh" -q "$out/results" >/dev/null 2>&1
python3 - "$out/triage/report.json" "$d/fresh/report.json" <<'EOF'; ok $? "buckets after the resume equal a fresh triage of the whole tree"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: sorted((x['signature'], x['count']) for x in r['buckets'])
assert key(a) == key(b) and key(a), (key(a), key(b))
EOF

# Ctrl-C while the campaign finishes (its final triage, then the report): each signal
# is counted, a second one stops the triage, and the report is still written. A signal
# that raised out of the handler there once left a traceback and no report.
write_preset "$d/late.preset" budget=8s job_time=4s min_attempt=2s rounds=1 triage_every=3s progress_every=5s <<'EOF'

[stress caught]
cores = 1
scenario = spin
agent = test_plant=0x10
EOF
late=$d/late
ci/campaign --preset "$d/late.preset" --out "$late" --no-build -j 1 --seed 7 >"$d/late.out" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q 'campaign: triage of' "$d/late.out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
n=0; while kill -INT $pid 2>/dev/null && [ $n -lt 1500 ]; do n=$((n + 1)); sleep 0.02; done
wait $pid; rc=$?
[ $rc = 130 ] && ! grep -q Traceback "$d/late.out" && [ -s "$late/report.md" ] && grep -q "^report: $late/report.md" "$d/late.out" &&
  ! pgrep -f "$late" >/dev/null
ok $? "Ctrl-C every 20 ms while it finishes ($n signals): exit 130, no traceback, the report written, nothing left running (rc $rc: $(grep -m1 -e Traceback -e 'interrupted after' "$d/late.out"))"

# The same window, made certain: signals while finish() writes state.json and the report
# (a bigger campaign's report takes seconds) are counted and stop a running triage child,
# and raise nothing into the code they interrupt.
python3 - "$PWD" >"$d/late-unit.out" 2>&1 <<'PY'
import subprocess, sys
sys.path.insert(0, sys.argv[1] + '/ci')
from cilib.runner import Campaign
c = Campaign.__new__(Campaign)
c.interrupts, c.triage_proc = 1, subprocess.Popen(['sleep', '60'])
for _ in range(3):
    c._on_signal_late(2, None)
print(c.interrupts, c.triage_proc.wait(timeout=10))
PY
grep -qx '4 -15' "$d/late-unit.out"
ok $? "a late signal is counted and stops the triage child, and raises nothing ($(tail -1 "$d/late-unit.out"))"

# An interrupted pre-merge says how to resume its campaign and then judge it: the campaign
# resumed alone writes no verdict, JUnit file or summary.
pm=$d/pm
ci/premerge --preset "$d/resume.preset" --out "$pm" --no-build -j 1 --seed 5 --known /dev/null >"$d/pm.out" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ -n "$(ls "$pm"/results/jobs/*/RUNNING 2>/dev/null)" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
sleep 1
kill -INT $pid; wait $pid
grep -q "resume with: ci/campaign --resume --out $pm, then judge it with ci/premerge --report-only --out $pm\$" "$d/pm.out"
ok $? "an interrupted pre-merge says to judge the resumed campaign with --report-only ($(grep -o 'resume with.*' "$d/pm.out" | head -1))"
tap_done
