#!/usr/bin/env bash
# Fault injection, campaign and tool side: runs that test nothing must not
# pass (budget 0 / below one attempt, a fake JDK whose java only prints a
# version), a huge budget is refused, damaged --resume state, a preset that is
# not UTF-8 or whose agent line the agent would refuse, stress/run with a
# scenario only the workload rejects or that throws, and the case tools given
# a FIFO, a file as record directory or an out-of-range delta. Exit statuses
# as in README.md "Exit statuses": 2 usage, 3 nothing tested.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

write_preset "$d/one.preset" budget=20s job_time=6s min_attempt=3s rounds=1 <<'EOF'

[stress one]
scenario = spin
EOF

# 1. Budgets: 0 and 3s leave no attempt (3s min_attempt + reserve); a huge one is refused.
for b in 0 3s; do
  ci/premerge --preset "$d/one.preset" --budget $b --out "$d/pm-$b" --no-build -q >"$d/pm-$b.out" 2>&1; rc=$?
  [ $rc = 3 ] && grep -q 'nothing would run' "$d/pm-$b.out"
  ok $? "premerge --budget $b: exit 3, nothing would run (rc $rc: $(grep -m1 premerge: "$d/pm-$b.out"))"
done
# ... and leaves only its verdict files (CI shows them), so the same --out takes the next run
[ "$(ls "$d/pm-0" | tr '\n' ' ')" = "junit.xml summary.md " ]; ok $? "a run that could not start leaves only junit.xml and summary.md ($(ls "$d/pm-0" | tr '\n' ' '))"
ci/premerge --preset "$d/one.preset" --budget 0 --out "$d/pm-0" --no-build -q >"$d/pm-0b.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q 'nothing would run' "$d/pm-0b.out"; ok $? "its --out is not taken for an earlier pre-merge (rc $rc: $(grep -m1 premerge: "$d/pm-0b.out"))"
ci/premerge --preset "$d/one.preset" --confirm 2 --out "$d/pm-confirm" --no-build -q >"$d/pm-confirm.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'go with --base' "$d/pm-confirm.out" && [ ! -e "$d/pm-confirm" ]
ok $? "premerge --confirm without --base: exit 2 before anything runs (rc $rc: $(cat "$d/pm-confirm.out"))"
ci/campaign --preset "$d/one.preset" --budget 1 --out "$d/c-1" --no-build -q >"$d/c-1.out" 2>&1; rc=$?
[ $rc = 3 ] && [ ! -e "$d/c-1" ]; ok $? "campaign with a budget below one attempt: exit 3, no --out made (rc $rc)"
# 5 and 10 seconds leave room for one short attempt: it must really walk, or the run is not 0.
for b in 5 10s; do
  ci/premerge --preset "$d/one.preset" --budget $b --out "$d/pm-$b" --no-build -q >"$d/pm-$b.out" 2>&1; rc=$?
  walks=$(python3 -c 'import json,sys; print(min([j.get("execs") or 0 for j in json.load(open(sys.argv[1]))["jobs"]] or [0]))' "$d/pm-$b/report.json" 2>/dev/null)
  { [ $rc = 3 ] && grep -q 'nothing would run' "$d/pm-$b.out"; } || { [ $rc = 0 ] && [ "${walks:-0}" -gt 0 ]; }
  ok $? "premerge --budget $b: an attempt that walked (fewest walks in a job: ${walks:-none}) or exit 3 (rc $rc)"
done
# a budget the plan does not fit even at its minimum slots: said as such, never "each plan job runs once"
ci/campaign --preset overnight --budget 4m --out "$d/dry-on" --dry-run --no-build >"$d/dry-on.out" 2>&1; rc=$?
need=$(sed -n 's/.*will not start; --budget \([0-9]*m\) runs each once.*/\1/p' "$d/dry-on.out")
ci/campaign --preset overnight --budget "${need:-0}" --out "$d/dry-on2" --dry-run --no-build >"$d/dry-on2.out" 2>&1
[ -n "$need" ] && ! grep -q 'so that each plan job runs once' "$d/dry-on.out" && grep -q 'so that each plan job runs once' "$d/dry-on2.out"
ok $? "overnight in 4 minutes: the plan's last jobs will not start, it says so, and the budget it names fits (--budget $need)"
ci/campaign --preset "$d/one.preset" --budget 2s --out "$d/dry" --dry-run --no-build -q >"$d/dry.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q 'nothing would run' "$d/dry.out"; ok $? "campaign --dry-run with a tiny budget says nothing would run (rc $rc)"
timeout 60 ci/premerge --preset "$d/one.preset" --budget 100000d --out "$d/pm-huge" --no-build -q >"$d/huge.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'longer than 30 days' "$d/huge.out"; ok $? "a huge budget is refused, exit 2 (rc $rc)"

# 2. A fake JDK: java prints a version and exits 0, runs nothing.
mkdir -p "$d/fakejdk/bin"
printf '#!/bin/sh\necho "openjdk version \\"17.0.99\\" 2099-01-01" >&2\nexit 0\n' >"$d/fakejdk/bin/java"
chmod +x "$d/fakejdk/bin/java"
ci/premerge --preset "$d/one.preset" --budget 8s --java-home "$d/fakejdk" --out "$d/pm-fake" --no-build -q -j 1 \
  >"$d/fake.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q 'could not run completely' "$d/fake.out"
ok $? "premerge on a fake JDK: exit 3, not passed (rc $rc: $(grep -m1 '^premerge:' "$d/fake.out"))"
# a VM with no shipped known list and a budget below one attempt: still only the verdict files
ci/premerge --preset "$d/one.preset" --budget 0 --java-home "$d/fakejdk" --out "$d/pm-fake0" --no-build -q >"$d/fake0.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q 'no known list' "$d/fake0.out" && [ "$(ls "$d/pm-fake0" | tr '\n' ' ')" = "junit.xml summary.md " ]
ok $? "premerge refused on a VM without a known list leaves only junit.xml and summary.md (rc $rc: $(ls "$d/pm-fake0" | tr '\n' ' '))"
stress/run --scenario spin --time 1s --java-home "$d/fakejdk" --out "$d/st-fake" >"$d/st-fake.out" 2>&1; rc=$?
[ $rc = 4 ] && grep -q 'not run (no agent summary)' "$d/st-fake.out"; ok $? "stress/run on a fake JDK: not run, exit 4 (rc $rc)"

# Jobs that "ran" clean with 0 walks or executions (what a java that only prints a
# version looks like to the campaign) do not pass the pre-merge check.
mkdir -p "$d/zero"
python3 - "$d/zero" >"$d/zero.out" 2>&1 <<'PY'; rc=$?
import argparse, importlib.machinery, json, os, sys
out = sys.argv[1]
pm = importlib.machinery.SourceFileLoader('premerge', 'ci/premerge').load_module()
json.dump({'plan': [{'id': '01-x', 'desc': 'x', 'jobs': 1, 'verdicts': {'clean': 1}}],
           'jobs': [{'id': 'r001-01-x', 'spec': '01-x', 'outcome': 'clean', 'execs': 0,
                     'attempts': [{'verdict': 'clean', 'secs': 5, 'dir': 'a'}]}],
           'triage': {'buckets': []}}, open(os.path.join(out, 'report.json'), 'w'))
args = argparse.Namespace(junit=None, summary=None)
sys.exit(pm.verdict(args, out, 0))
PY
[ $rc = 3 ] && grep -q 'tested nothing: 1 job(s) ran 0 walks or executions' "$d/zero.out"
ok $? "premerge verdict: clean jobs with 0 walks/execs exit 3 (rc $rc: $(grep -m1 '^premerge:' "$d/zero.out"))"

# 2b. --out: the user's own directory, or a regular file, is refused before anything is written.
mkdir -p "$d/userdir"; echo mine >"$d/userdir/notes.txt"; echo mine >"$d/userfile"
ci/premerge --preset "$d/one.preset" --out "$d/userdir" --no-build -q >"$d/u1.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'is not empty and holds no campaign' "$d/u1.out" && [ "$(ls "$d/userdir")" = notes.txt ]
ok $? "premerge --out holding the user's files: exit 2, nothing written there ($(cat "$d/u1.out"))"
ci/campaign --preset "$d/one.preset" --out "$d/userfile" --dry-run --no-build -q >"$d/u2.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'exists and is not a directory' "$d/u2.out" && [ "$(cat "$d/userfile")" = mine ]
ok $? "campaign --out naming a regular file: exit 2 ($(cat "$d/u2.out"))"

# 3. --resume with damaged state: named, exit 2.
ci/campaign --preset "$d/one.preset" --out "$d/camp" --dry-run --no-build -q >/dev/null 2>&1
cp "$d/camp/state.json" "$d/state.good"
echo '{"sessions": 3, "consumed": "x"}' >"$d/camp/state.json"
ci/campaign --resume --out "$d/camp" --no-build -q >"$d/r1.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "state.json is damaged" "$d/r1.out"; ok $? "--resume with a wrong-typed state.json: exit 2 naming it ($(cat "$d/r1.out"))"
cp "$d/state.good" "$d/camp/state.json"; head -c 30 "$d/camp/plan.json" >"$d/plan.part"; cp "$d/plan.part" "$d/camp/plan.json"
ci/campaign --resume --out "$d/camp" --no-build -q >"$d/r2.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "plan.json is damaged" "$d/r2.out"; ok $? "--resume with a truncated plan.json: exit 2 naming it ($(head -c 200 "$d/r2.out"))"
echo '[{"id": "x", "kind": "stress", "params": {}, "job_time": 0}]' >"$d/camp/plan.json"
ci/campaign --resume --out "$d/camp" --no-build -q >"$d/r3.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "plan.json is damaged" "$d/r3.out"; ok $? "--resume with a zero job_time: exit 2, no ZeroDivisionError ($(cat "$d/r3.out"))"

# 4. Presets: not UTF-8; agent lines checked by the agent's own checker.
printf '[campaign]\nbudget = 20s\n# caf\xe9\n[stress x]\nscenario = spin\n' >"$d/latin1.preset"
ci/campaign --preset "$d/latin1.preset" --out "$d/l1" --dry-run --no-build >"$d/l1.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'not UTF-8 text (byte 0xe9 at offset' "$d/l1.out" && ! grep -q Traceback "$d/l1.out"
ok $? "a preset that is not UTF-8: exit 2 with the offset ($(cat "$d/l1.out"))"
printf '[campaign]\nbudget = 20s\n[stress a]\nagent = interval=0\n[stress b]\nagent = bogus=1\n[stress c]\nagent = queue_size=4\n' >"$d/agent.preset"
ci/campaign --preset "$d/agent.preset" --out "$d/ag" --dry-run --no-build >"$d/ag.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "\[stress a\] agent: 'interval' is set by the section" "$d/ag.out" &&
  grep -q '\[stress b\] agent: bad agent options: option 1 of agent "bogus=1": unknown option' "$d/ag.out" &&
  grep -q '\[stress c\] agent: bad agent options: option 1 of agent "queue_size" does not apply with option [0-9]* "mode=signal"' "$d/ag.out"
ok $? "preset agent lines: one error per section, from the agent's checker (rc $rc)"
printf '[campaign]\nbudget = 20s\n[stress x]\nscenario = spin\nthreads = 1025\n' >"$d/threads.preset"
ci/campaign --preset "$d/threads.preset" --out "$d/th" --dry-run --no-build >"$d/th.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "\[stress x\] threads: a number of workers 1..1024, got '1025'" "$d/th.out"
ok $? "a preset asking for 1025 workers: exit 2 naming the section (rc $rc)"

# 5. stress/run: a scenario only the workload knows is bad; a scenario that throws.
stress/run --scenario bogus --time 1s --out "$d/st1" >"$d/st1.out" 2>&1; rc=$?
[ $rc = 4 ] && grep -q "unknown scenario 'bogus'" "$d/st1.out"; ok $? "stress/run --scenario bogus: exit 4 (rc $rc)"
stress/run --scenario jni --time 1s --out "$d/st2" --jvm-flags "-Dasgst.stress.native=$d/none.so" >"$d/st2.out" 2>&1; rc=$?
[ $rc = 5 ] && grep -q 'stress: workload failed' "$d/st2.out" && ! grep -q crashed "$d/st2.out"
ok $? "a scenario that throws: 'workload failed', exit 5, not a VM crash (rc $rc)"

# 6. Case tools: a FIFO input, a file as record directory, -(2^64-1).
mkfifo "$d/fifo"
timeout 20 "$BUILD/bin/casetool" check "$d/fifo" 2>"$d/c1"; rc=$?
[ $rc = 1 ] && grep -q 'not a regular file' "$d/c1"; ok $? "casetool on a FIFO: refused (rc $rc: $(cat "$d/c1"))"
timeout 20 fuzz/replay "$d/fifo" 2>"$d/c2"; rc=$?
[ $rc = 2 ] && grep -q 'not a regular file' "$d/c2"; ok $? "replay on a FIFO: exit 2 (rc $rc)"
"$BUILD/bin/casetool" encode corpus/seeds/00-signal-plain.txt -o "$d/s.case"
echo keep >"$d/afile"
fuzz/replay --record-dir "$d/afile" "$d/s.case" >"$d/c3.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'is not a directory' "$d/c3.out" && [ "$(cat "$d/afile")" = keep ]
ok $? "replay --record-dir naming a file: exit 2 ($(cat "$d/c3.out"))"
sed 's/^mut .*//' corpus/seeds/00-signal-plain.txt >"$d/d.txt"; echo 'mut sp delta -0xffffffffffffffff' >>"$d/d.txt"
"$BUILD/bin/casetool" encode "$d/d.txt" -o "$d/d.case" 2>"$d/c4"; rc=$?
[ $rc = 1 ] && grep -q "out of range" "$d/c4" && [ ! -e "$d/d.case" ]; ok $? "delta -0xffffffffffffffff: refused ($(cat "$d/c4"))"
sed 's/^mut .*//' corpus/seeds/00-signal-plain.txt >"$d/e.txt"; echo 'mut sp delta 0xffffffffffffffff' >>"$d/e.txt"
"$BUILD/bin/casetool" encode "$d/e.txt" -o "$d/e.case" 2>"$d/c5"; rc=$?
[ $rc = 1 ] && grep -q "out of range" "$d/c5" && [ ! -e "$d/e.case" ]; ok $? "delta 0xffffffffffffffff (would read back as -0x1): refused ($(cat "$d/c5"))"
tap_done
