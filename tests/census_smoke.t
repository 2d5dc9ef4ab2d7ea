#!/usr/bin/env bash
# ci/census in small: both campaigns side by side (tiny budget, each on its
# own core), the protect=0 confirmation of every candidate, and the table.
# The best campaign here is the test hook (test_plant=0x10: every AGCT walk
# faults in libjvm, and with protect=0 the JVM dies with an hs_err), so the
# census has exactly one candidate to confirm; the blind baseline has none
# to find in 16 s. The real census runs for 30 minutes (README).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

write_preset "$d/best.preset" budget=16s job_time=10s min_attempt=4s reserve=4s triage_every=5s progress_every=5s jobs=1 <<'P'
[stress plant]
scenario = spin
agent = test_plant=0x10
jvm = -XX:+UseSerialGC,-XX:-UseCompressedOops
P
write_preset "$d/blind.preset" budget=16s job_time=10s min_attempt=4s reserve=4s triage_every=5s progress_every=5s jobs=1 <<'P'
[stress blind]
scenario = spin
mutate = blind
agent = aim=0
P
ci/census --jdk "$JAVA_HOME" --budget 16s --best "$d/best.preset" --blind "$d/blind.preset" --out "$d/c" \
  --confirm 1 --repro-time 2s --test-plant 0x10 --no-build >"$d/stdout" 2>"$d/stderr"; rc=$?
ok $rc "ci/census exits 0 (got $rc: $(tail -1 "$d/stderr"))"
grep -q '^| # | root cause (triage title) | records best | records blind | first best | first blind | found by | protect=0 | real |$' "$d/stdout"
ok $? "it prints the table header"
row=$(grep '^| 1 |' "$d/stdout")
printf '%s\n' "$row" | grep -Eq '^\| 1 \| `SIGSEGV in forte_fill_call_trace_given_top[^`]*` \| [1-9][0-9]* \| 0 \| [0-9:]+ \| - \| best \| 1/1 hs_err \(1 case\) \| yes \|$'
ok $? "the planted fault is one real root cause, found by best only, confirmed by an hs_err ($row)"
grep -q '^real root causes: best 1, blind 0; candidates 1 (confirmed 1)' "$d/stdout"
ok $? "the totals line counts it for best only ($(grep '^real root' "$d/stdout"))"
grep -q '^throughput, best: Campaign total [0-9.]*[kM]* executions .*/s per job (median)' "$d/stdout" &&
  grep -q '^throughput, blind: Campaign total ' "$d/stdout"
ok $? "each campaign's rates are printed ($(grep -m1 '^throughput, best' "$d/stdout" | cut -c1-110))"
grep -q -- "crash-triage/repro .* --via stress --protect 0 -n 1 .*--test-plant 0x10" "$d/c/jdk1/confirm.log" &&
  ls "$d"/c/jdk1/confirm-*.json >/dev/null 2>&1
ok $? "the confirmation replayed the candidate with protection off (confirm.log, confirm-*.json)"
grep -q -- "crash-triage/repro .* '--jvm-flags=-XX:+UseSerialGC -XX:-UseCompressedOops'" "$d/c/jdk1/confirm.log"
ok $? "the replay runs under the JVM flags of the job that found it"
[ "$(grep -c '^production situation: ' "$d/stdout")" -eq 4 ]
ok $? "the production crash situations are listed"
python3 - "$d/c/census.json" <<'PY'; ok $? "census.json has both campaigns' walks and the row"
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert r['execs']['best'] > 0 and r['execs']['blind'] > 0, r['execs']
assert len(r['rows']) == 1 and r['rows'][0]['confirm']['hs_err'] == 1, r['rows']
PY
md=$(ls "$d"/c/reproducers/*.md 2>/dev/null | head -1)
[ -n "$md" ] && [ -s "${md%.md}.case" ] && head -1 "$md" | grep -Eq '^verify: case=jdk[0-9]+-forte-fill-call-trace-given-top-[0-9a-f]{6}\.case jdk=[0-9]+ build=[0-9][^ ]* via=stress scenario=spin jvm=-XX:\+UseSerialGC,-XX:-UseCompressedOops time=10s agent=mode=signal,interval=100us stress=--threads,[0-9]+ expect=[0-9a-f]+$' &&
  grep -q '^- reachability: ' "$md"
ok $? "the real root cause's reproducer is written with its verify: line and report ($(head -1 "$md" 2>/dev/null))"
python3 - "$md" <<'EOF' >"$d/block.out" 2>&1
import os, sys
sys.path.insert(0, 'crash-triage')
from ctlib import case
md = sys.argv[1]
path = md[:-3] + '.case'
text = open(md).read()
head = '(%d bytes; corpus/FORMAT.md):' % os.path.getsize(path)
block = text.split(head, 1)[1].split('```', 2)[1].strip('\n')
assert block == case.load(path)[0].text().rstrip(), block
print('the note shows the %d-byte case beside it' % os.path.getsize(path))
EOF
ok $? "the note's Minimized input is the .case written beside it ($(tail -1 "$d/block.out"))"
# The campaigns are kept: confirming again needs no new campaign, and no
# --jdk (the first run recorded its JDK in jdk1/jdk).
ci/census --out "$d/c" --reconfirm --confirm 1 --repro-time 2s --test-plant 0x10 >"$d/again" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^real root causes: best 1, blind 0; candidates 1 (confirmed 1)' "$d/again" && ! grep -q 'census: JDK' "$d/again" &&
  grep -qF "$(cat "$d/c/jdk1/jdk" 2>/dev/null || echo no-jdk-file)" "$d/c/census.md"
ok $? "--reconfirm without --jdk confirms and tabulates the kept campaigns on the first run's JDK, without running them (rc $rc)"
mkdir -p "$d/empty"
ci/census --out "$d/empty" --reconfirm >"$d/empty.log" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'records no JDKs.*give --jdk again' "$d/empty.log"
ok $? "--reconfirm on a directory without a census says --jdk is needed (rc $rc: $(head -1 "$d/empty.log"))"
ci/census --budget 1m >"$d/nojdk.log" 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- '--jdk is required' "$d/nojdk.log"; ok $? "a census without --jdk is refused (rc $rc)"
tap_done
