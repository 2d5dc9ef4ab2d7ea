#!/usr/bin/env bash
# crash-triage: a bucket's smallest.case is what every reproduce command runs. Of the
# cases a fuzzer run's harness recorded for one fault, some fault again in a fresh JVM
# and some never do; triage replays the smallest one (in its run's settings), and
# when it does not fault again, the next, so that the bucket leads with one that does.
# The stand-in replay tool (crash-triage/testdata-gen/fake-replay) faults by the case
# bytes alone: 'mut sp region ...' of 0x100 or more is its bug A.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
. tests/lib.sh
make_scratch
FAKE=crash-triage/testdata-gen/fake-replay
enc() { python3 -c 'import sys; sys.path.insert(0, "crash-triage")
from ctlib import case
open(sys.argv[2], "wb").write(case.parse_text(sys.argv[1]).encode())' "$1" "$2"; }
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
smallest() {   # smallest OUT: "MEMBER-CASE-BYTES REPLAYED" of the one bucket's smallest.case
  python3 -c 'import glob,json,sys; b=json.load(open(glob.glob(sys.argv[1]+"/buckets/*/bucket.json")[0]))
s=b["smallest_case"]; r=s.get("replayed"); print(s["bytes"], "untried" if r is None else "same=%d" % r["same"])' "$1"
}

# A libFuzzer run's record directory: two records of bug A, whose cases differ. The
# smaller one (a register mutation only) does not fault in the stand-in's replay; the
# larger one does.
run=$d/run
mkdir -p "$run/records"
(for v in $(env | sed -n 's/^\(ASGF_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done; unset LD_PRELOAD
 . fuzz/replay-env.sh && ASGF_KEEP_GOING=1 ASGF_SCENARIO=alloc write_replay_env "$run/replay.env")
touch -d '1 minute ago' "$run/replay.env"
enc $'asgf-case 1\nmut sp region code_cache 0x12345\nmut rbx abs 7\n' "$d/big.case"
enc $'asgf-case 1\nmut rbx abs 7\n' "$d/small.case"
"$FAKE" --record-dir "$run/records" "$d/big.case" >/dev/null
rec=$(ls "$run"/records/record-*.txt)
sed "s/^case: .*/case: $(hex "$d/small.case")/" "$rec" >"$run/records/record-1-2-0.txt"
[ "$(wc -c <"$d/small.case")" -lt "$(wc -c <"$d/big.case")" ]; ok $? "the non-faulting case is the smaller one"

# Without a replay (a campaign's periodic triage) nothing is tried: the smallest leads.
crash-triage/triage -q --no-replay --out "$d/o" "$run" >/dev/null 2>&1
got=$(smallest "$d/o"); [ "$got" = "$(wc -c <"$d/small.case") untried" ]
ok $? "with --no-replay the smallest case leads, untried ($got)"

# With one (the final triage): the smallest is replayed, does not fault, and gives way.
FAKE_REPLAY_ENVLOG=$d/env crash-triage/triage --replay-cmd "$FAKE" --out "$d/o" "$run" >"$d/t.out" 2>"$d/t.err"; rc=$?
got=$(smallest "$d/o")
[ $rc = 0 ] && [ "$got" = "$(wc -c <"$d/big.case") same=1" ] && cmp -s "$d"/o/buckets/*/smallest.case "$d/big.case"
ok $? "the final triage replays it, and the bucket leads with the case that faulted again ($got; exit $rc)"
grep -q '^triage: 2 smallest case(s) of fuzzer runs replayed (1000 walks in a fresh JVM each); 1 bucket(s) now lead with another case' "$d/t.err"
ok $? "triage says what it replayed ($(grep smallest "$d/t.err"))"
grep -q 'ASGF_SCENARIO=alloc' "$d/env" && [ "$(wc -l <"$d/env")" = 2 ]
ok $? "each replay ran in the settings of the run that recorded the case ($(wc -l <"$d/env") runs)"
why=$(python3 - "$d/o" <<'PY'
import glob, json, sys
b = json.load(open(glob.glob(sys.argv[1] + '/buckets/*/bucket.json')[0]))
tried = sorted((m['case_bytes'], m['replayed']['same']) for m in b['members'] if 'replayed' in m)
r = [x for x in json.load(open(sys.argv[1] + '/report.json'))['buckets']][0]['smallest_case_replayed']
ok = len(tried) == 2 and tried[0][1] == 0 and tried[1][1] == 1 and r == {'runs': 1000, 'reports': 1, 'same': 1}
print('%s; %s' % (tried, r))
sys.exit(0 if ok else 1)
PY
)
ok $? "both members keep their answer; report.json says the lead case faulted again ($why)"
grep -q 'its case faulted again in a fresh JVM' "$d/o/report.md"; ok $? "report.md says so beside the reproduce command"

# A later run replays nothing again.
FAKE_REPLAY_ENVLOG=$d/env2 crash-triage/triage --replay-cmd "$FAKE" --out "$d/o" "$run" >/dev/null 2>"$d/t2.err"
[ ! -s "$d/env2" ] && ! grep -q smallest "$d/t2.err"; ok $? "a case once tried is not replayed again"

# A case whose replay hangs (the run's settings plant a hang) is answered by the time-out,
# once: the next run does not wait for it again.
mkdir -p "$d/hang/records"
(for v in $(env | sed -n 's/^\(ASGF_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done; unset LD_PRELOAD
 . fuzz/replay-env.sh && ASGF_FAKE_HANG='RunWithIterator@*:1' write_replay_env "$d/hang/replay.env")
touch -d '1 minute ago' "$d/hang/replay.env"
cp "$run/records/record-1-2-0.txt" "$d/hang/records/"
crash-triage/triage --replay-cmd "$FAKE" --out "$d/oh" "$d/hang" >/dev/null 2>&1
got=$(python3 -c 'import glob,json,sys; print(json.load(open(glob.glob(sys.argv[1]+"/buckets/*/bucket.json")[0]))["smallest_case"]["replayed"])' "$d/oh")
FAKE_REPLAY_ENVLOG=$d/envh crash-triage/triage -q --replay-cmd "$FAKE" --out "$d/oh" "$d/hang" >/dev/null 2>&1
[[ $got == *"'hung': 20"* ]] && [ ! -s "$d/envh" ] && grep -q 'its case hung in a fresh JVM' "$d/oh/report.md"
ok $? "a replay that hangs is answered by its time-out, once ($got; $(wc -l <"$d/envh" 2>/dev/null || echo 0) replays the next run)"

# A record a stress job wrote (no harness settings: its case needs the job's workload,
# which the replay tool does not run) is not tried.
mkdir -p "$d/stress"; cp "$run/records/record-1-2-0.txt" "$d/stress/"
FAKE_REPLAY_ENVLOG=$d/env3 crash-triage/triage --replay-cmd "$FAKE" --out "$d/o3" "$d/stress" >/dev/null 2>&1
got=$(smallest "$d/o3"); [ ! -s "$d/env3" ] && [ "$got" = "$(wc -c <"$d/small.case") untried" ]
ok $? "a stress job's case is not replayed by triage ($got)"

# When no case of the bucket faults again, the report says so.
rm "$run/records/record-1-2-0.txt"; sed -i "s/^case: .*/case: $(hex "$d/small.case")/" "$rec"
crash-triage/triage -q --replay-cmd "$FAKE" --out "$d/o4" "$run" >/dev/null 2>&1
got=$(smallest "$d/o4"); [ "$got" = "$(wc -c <"$d/small.case") same=0" ] && grep -q 'no saved case of this bucket faulted again in a fresh JVM' "$d/o4/report.md"
ok $? "a bucket none of whose cases faults again says so in report.md ($got)"
# A later record with the bytes of a case already tried takes its answer: no replay again.
sed "s/^pid: .*/pid: 77/" "$rec" >"$run/records/record-77-78-0.txt"
FAKE_REPLAY_ENVLOG=$d/env5 crash-triage/triage -q --replay-cmd "$FAKE" --out "$d/o4" "$run" >/dev/null 2>&1
got=$(smallest "$d/o4"); [ ! -s "$d/env5" ] && [ "$got" = "$(wc -c <"$d/small.case") same=0" ]
ok $? "a later member with a tried case's bytes is not replayed again ($got; $(wc -l <"$d/env5" 2>/dev/null || echo 0) replays)"
tap_done
