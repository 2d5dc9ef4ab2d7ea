#!/usr/bin/env bash
# ci/premerge: exit 1 with an empty known list when crashes occur (title,
# reproducer and repro command printed), exit 0 when every bucket is known,
# exit 3 when JAVA_HOME is unusable (nothing tested); JUnit XML with one test case per plan
# job and per new bucket; a Markdown summary.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

# Crashes (protect=0: hs_err) and faults caught under protection (records).
# Four jobs of 7 s on two slots need about 20 s; the budget leaves room for a
# slow JVM start or hs_err, or a plan job would go unrun (exit 3), and a
# campaign whose rounds are done ends before its budget anyway.
write_preset "$d/crashing.preset" budget=60s job_time=7s min_attempt=3s rounds=1 triage_every=5s <<'EOF'

[stress planted]
scenario = spin
agent = test_plant=0x10,protect=0

[stress caught]
scenario = spin recursion
agent = test_plant=0x10

[stress clean]
scenario = park
EOF
: >"$d/known-empty.txt"
ci/premerge --preset "$d/crashing.preset" --known "$d/known-empty.txt" --out "$d/pm1" --no-build -q -j 2 \
  >"$d/pm1.out" 2>&1; rc=$?
ok $(( rc != 1 )) "premerge with an empty known list and crashes exits 1 (got $rc)"
grep -q 'NEW bucket' "$d/pm1.out"; ok $? "it announces the new buckets"
grep -q '^  title: SIGSEGV in forte_fill_call_trace_given_top' "$d/pm1.out"; ok $? "it prints the new bucket's title"
rep=$(sed -n 's/^ *reproducer: //p' "$d/pm1.out" | head -1)
ok "$([ -n "$rep" ] && [ -f "$rep" ]; echo $?)" "it prints a reproducer path that exists ($rep)"
grep -q '^ *repro command: .*stress/run .*--agent .*seed=' "$d/pm1.out"; ok $? "it prints a repro command with the seed"

python3 - "$d/pm1" <<'EOF' >"$d/junit1.out" 2>&1
import json, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
root = ET.parse(out + '/junit.xml').getroot()
assert root.tag == 'testsuites', root.tag
suites = {s.get('name'): s for s in root.findall('testsuite')}
assert set(suites) == {'premerge.plan', 'premerge.new-buckets'}, set(suites)
plan = json.load(open(out + '/plan.json'))
cases = suites['premerge.plan'].findall('testcase')
assert len(cases) == len(plan) == 4, (len(cases), len(plan))
for c, spec in zip(cases, plan):
    assert c.get('name').startswith(spec['id'] + ':') and c.get('classname') == 'premerge.plan'
    assert c.get('time') is not None
failed = [c for c in cases if c.find('failure') is not None]
assert len(failed) == 3 and cases[3].find('failure') is None, [c.get('name') for c in failed]
report = json.load(open(out + '/report.json'))
new = [b for b in report['triage']['buckets'] if b['status'] == 'new']
bcases = suites['premerge.new-buckets'].findall('testcase')
assert len(bcases) == len(new) >= 1
for c in bcases:
    f = c.find('failure')
    assert f is not None and f.get('type') == 'new-bucket' and 'reproducer:' in f.text
for s in suites.values():
    n = len(s.findall('testcase'))
    assert s.get('tests') == str(n)
    assert s.get('failures') == str(sum(1 for c in s.findall('testcase') if c.find('failure') is not None))
    for attr in ('timestamp', 'hostname', 'time', 'errors', 'skipped'):
        assert s.get(attr) is not None, attr
assert root.get('failures') == str(len(failed) + len(bcases))
print(len(cases), 'plan cases,', len(bcases), 'bucket cases')
EOF
ok $? "JUnit XML: a test case per plan job and per new bucket ($(tail -1 "$d/junit1.out"))"
grep -q '^# Pre-merge check: FAILED' "$d/pm1/summary.md" && grep -q '## New buckets' "$d/pm1/summary.md"
ok $? "the Markdown summary lists the new buckets"
grep -q '^Campaign total [0-9.]*[kM]* executions (stress: walks) per second of wall time; .*/s per job (median)' "$d/pm1/summary.md"
ok $? "the Markdown summary gives the jobs' rates and the total ($(grep -m1 '^Campaign total' "$d/pm1/summary.md" | cut -c1-120))"

# All buckets known: exit 0. The known list is what the first run found.
python3 -c 'import json,sys
for b in json.load(open(sys.argv[1]))["triage"]["buckets"]: print(b["signature"], " # ", b["title"])' \
  "$d/pm1/report.json" >"$d/known.txt"
# The same run judged again against that list (--report-only --known): it passes, and the
# list it used is the run's from then on; a bad list is refused with its line.
ci/premerge --report-only --known "$d/known.txt" --out "$d/pm1" -q >"$d/pm1r.out" 2>&1; rc=$?
ok $(( rc != 0 )) "report-only against a list of every bucket exits 0 (got $rc: $(grep -m1 '^premerge: \(passed\|FAILED\)' "$d/pm1r.out"))"
grep -q "\"known\": \"$d/known.txt\"" "$d/pm1/campaign.json"; ok $? "campaign.json now names that list"
ci/premerge --report-only --out "$d/pm1" -q >"$d/pm1k.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^campaign: known list $d/known.txt, the run's (given with --known); --known FILE judges it against another" "$d/pm1k.out"
ok $? "report-only without --known names the list that judges the run, the one given last (exit $rc: $(grep -m1 'known list' "$d/pm1k.out" | cut -c1-100))"
# An hs_err cut before any stack (a VM that hung while writing it) is no new bucket: its
# frameless bucket is suppressed, said on the console and in the summary, and the check passes.
aj=$(ls -d "$d"/pm1/results/jobs/*/g0a1 | head -1)
cp crash-triage/testdata/hs_err-17-plant-hung-truncated "$aj/hs_err_pid999999.log"
ci/premerge --report-only --known "$d/known.txt" --out "$d/pm1" -q >"$d/pm1s.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^premerge: suppressed (not failing): [0-9a-f]* SIGSEGV with no stack (1): no frame at all' "$d/pm1s.out" &&
  grep -q '^## Suppressed buckets' "$d/pm1/summary.md"
ok $? "a frameless hs_err is a suppressed bucket, said, not a failure (exit $rc: $(grep -m1 'suppressed' "$d/pm1s.out" | cut -c1-90))"
rm "$aj/hs_err_pid999999.log"
grep -q '^| VM | .* (openjdk version ' "$d/pm1/report.md"; ok $? "the report judged again still names the VM's version ($(grep '^| VM |' "$d/pm1/report.md" | cut -c1-90))"
printf '0b5b50d41a5\n' >"$d/known-bad.txt"   # 11 hex digits: neither signature nor title
cp "$d/pm1/summary.md" "$d/pm1-summary.b"; cp "$d/pm1/junit.xml" "$d/pm1-junit.b"
ci/premerge --report-only --known "$d/known-bad.txt" --out "$d/pm1" -q >"$d/pm1b.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'known-bad.txt' "$d/pm1b.out" && cmp -s "$d/pm1/summary.md" "$d/pm1-summary.b" && cmp -s "$d/pm1/junit.xml" "$d/pm1-junit.b"
ok $? "report-only with a bad known list exits 2 naming it, and leaves the run's verdict files as they were (got $rc)"
ci/premerge --report-only --known "$d/no-such-list" --out "$d/pm1" -q >"$d/pm1n.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "cannot read known-buckets file $d/no-such-list: No such file or directory" "$d/pm1n.out" && ! grep -q 'Errno' "$d/pm1n.out" &&
  cmp -s "$d/pm1/summary.md" "$d/pm1-summary.b"
ok $? "report-only with a missing known list: exit 2 naming it, in words (got $rc: $(grep -m1 known-buckets "$d/pm1n.out" | cut -c1-100))"
# --confirm retries a bucket on a --base pair's two builds; one campaign has no second one.
cp "$d/pm1/summary.md" "$d/pm1-summary.c"
ci/premerge --report-only --confirm 2 --out "$d/pm1" -q >"$d/pm1c.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "go with a --base pair; '$d/pm1' is one campaign" "$d/pm1c.out" && cmp -s "$d/pm1/summary.md" "$d/pm1-summary.c"
ok $? "report-only --confirm on one campaign: exit 2, its summary untouched (got $rc: $(head -c 120 "$d/pm1c.out"))"
# A new check on a finished one's --out is refused before it writes anything there: the
# earlier verdict stays.
cp "$d/pm1/summary.md" "$d/pm1-summary.before"
ci/premerge --preset "$d/crashing.preset" --out "$d/pm1" --no-build -q >"$d/pm1again.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "holds an earlier pre-merge: judge it again with --report-only --out" "$d/pm1again.out" &&
  cmp -s "$d/pm1/summary.md" "$d/pm1-summary.before"
ok $? "premerge on a finished pre-merge's --out: exit 2 pointing at --report-only, its summary untouched ($rc: $(head -c 150 "$d/pm1again.out"))"
# A run judged from elsewhere: its campaign.json holds absolute paths. A list the run took from
# its checkout's ci/known/ is read from this checkout's; the empty list pre-merge keeps in its
# directory is read from where the directory is now; a list found nowhere stops it with exit 2.
shipped=$(ls ci/known/*.known | head -1)
cp -a "$d/pm1" "$d/moved"
# set_known DIR PATH HOW: what campaign.json records (HOW: shipped, empty, or given: null)
set_known() { python3 -c 'import json,sys; p=sys.argv[1]+"/campaign.json"; c=json.load(open(p)); c["known"]=sys.argv[2]; c["known_chosen"]=None if sys.argv[3] == "given" else sys.argv[3]; json.dump(c,open(p,"w"))' "$@"; }
set_known "$d/moved" "/gone/clone/ci/known/$(basename "$shipped")" shipped
ci/premerge --report-only --out "$d/moved" >"$d/moved1.out" 2>&1; rc=$?
grep -q "^campaign: known list $PWD/$shipped (the run recorded /gone/clone/ci/known/" "$d/moved1.out" &&
  grep -q "known\": \"/gone/clone/ci/known/" "$d/moved/campaign.json"
ok $? "a shipped list of a gone checkout is read from this one's ci/known/, said, and campaign.json keeps the run's record (exit $rc)"
: >"$d/moved/known-empty.txt"
set_known "$d/moved" "/gone/premerge-out/known-empty.txt" empty
ci/premerge --report-only --out "$d/moved" >"$d/moved2.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "^campaign: known list $d/moved/known-empty.txt (the run recorded" "$d/moved2.out"
ok $? "the empty list of a moved pre-merge directory is read from where it is now (exit $rc)"
# A list given with --known stays the one given, even inside another clone's ci/known/.
mkdir -p "$d/other/ci/known" && cp "$d/known.txt" "$d/other/ci/known/$(basename "$shipped")"
ci/premerge --report-only --known "$d/other/ci/known/$(basename "$shipped")" --out "$d/moved" -q >/dev/null 2>&1
ci/premerge --report-only --out "$d/moved" >"$d/moved4.out" 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -q "the run recorded" "$d/moved4.out"
ok $? "a given list that sits in a ci/known/ directory is not swapped for the shipped one (exit $rc)"
set_known "$d/moved" "/gone/my-known.txt" given
ci/premerge --report-only --out "$d/moved" -q >"$d/moved3.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "known list '/gone/my-known.txt' is gone.*--known" "$d/moved3.out"
ok $? "a recorded list found nowhere: exit 2 naming it and --known (got $rc: $(head -c 200 "$d/moved3.out"))"
write_preset "$d/caught.preset" budget=45s job_time=7s min_attempt=3s rounds=1 <<'EOF'

[stress caught]
scenario = spin recursion
agent = test_plant=0x10
EOF
ci/premerge --preset "$d/caught.preset" --known "$d/known.txt" --out "$d/pm2" --no-build -q -j 2 \
  >"$d/pm2.out" 2>&1; rc=$?
ok $(( rc != 0 )) "premerge with every bucket known exits 0 (got $rc: $(grep '^premerge:' "$d/pm2.out" | tail -1))"
python3 - "$d/pm2" <<'EOF'; ok $? "its JUnit XML has no failure and no new-bucket case"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1] + '/junit.xml').getroot()
assert root.get('failures') == '0' and root.get('errors') == '0', root.attrib
assert not root.findall(".//testsuite[@name='premerge.new-buckets']/testcase")
assert len(root.findall(".//testsuite[@name='premerge.plan']/testcase")) == 2
EOF
grep -q '^# Pre-merge check: passed' "$d/pm2/summary.md"; ok $? "summary says passed"

# Could not run: a JAVA_HOME with no usable java.
ci/premerge --java-home "$d/nothing-here" --out "$d/pm3" -q >"$d/pm3.out" 2>&1; rc=$?
ok $(( rc != 3 )) "premerge with an unusable JAVA_HOME exits 3 (got $rc)"
python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); assert r.get("errors") == "1"' \
  "$d/pm3/junit.xml"; ok $? "its JUnit XML parses and holds the error"
ci/premerge --preset "$d/caught.preset" --known "$d/no-such-list.txt" --out "$d/pm4" -q >/dev/null 2>&1
ok $(( $? != 2 )) "premerge with an unreadable known list exits 2"
# ci/campaign refuses an unusable JDK before it makes OUT: a retry with a good one is not
# told that OUT "holds no campaign".
mkdir -p "$d/jdkbuild/images/jdk/bin" && ln -s "$JAVA_HOME/bin/java" "$d/jdkbuild/images/jdk/bin/java"
ci/campaign --preset "$d/caught.preset" --java-home "$d/jdkbuild" --out "$d/c5" -q >"$d/c5.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q "images/jdk" "$d/c5.out" && [ ! -e "$d/c5" ]
ok $? "ci/campaign with a build directory as JAVA_HOME: exit 3 with the images/jdk hint, OUT not made ($rc: $(head -c 160 "$d/c5.out"))"
# No JAVA_HOME and no java on PATH: said so, not "JAVA_HOME '<cwd>' has no bin/java".
mkdir -p "$d/pathbin" && for f in /usr/bin/*; do [ "${f##*/}" = java ] || ln -s "$f" "$d/pathbin/"; done
nojava=$(env -u JAVA_HOME PATH="$d/pathbin" ci/premerge --out "$d/pm6" -q 2>&1)
printf '%s\n' "$nojava" | grep -q 'no JAVA_HOME given and no java on PATH'
ok $? "premerge with no JAVA_HOME and no java on PATH says so ($(printf '%s' "$nojava" | head -c 120))"
nojava=$(env -u JAVA_HOME PATH="$d/pathbin" stress/run --time 1s --out "$d/sr6" 2>&1)
printf '%s\n' "$nojava" | grep -q 'no JAVA_HOME given (--java-home or JAVA_HOME) and no java on PATH'
ok $? "stress/run with no JAVA_HOME and no java on PATH says so ($(printf '%s' "$nojava" | head -c 120))"
tap_done
