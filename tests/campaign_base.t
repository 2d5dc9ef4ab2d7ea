#!/usr/bin/env bash
# ci/premerge --base JDK_A --java-home JDK_B: the same campaign on both builds.
# The same JDK on both sides: nothing new, exit 0. A "patched" build that is the
# same JDK with a stand-in walker bug preloaded (tests/jvm/standin_onebug.c, via
# LD_PRELOAD from its bin/java, which stress/run must keep): exactly that bucket
# is new, confirmed by a retry on the patched build alone, exit 1; the JUnit file
# and the summary show the same lists. A bug the base side missed but its build
# has: pre-existing after a retry on the base build, exit 0. A side that left plan
# jobs untested: exit 3, as for one build; a gone known list when judged again: exit 2;
# a --base that is no JDK: exit 3, named as --base; one that starts no VM: exit 3 after
# the base side alone.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
standin=$(readlink -f "$BUILD/tests/libstandin_onebug.so")

# The patched build: the same JDK, its java started with the stand-in preloaded.
mkdir -p "$d/patched/bin"
for f in "$JAVA_HOME"/*; do [ "$(basename "$f")" = bin ] || ln -s "$f" "$d/patched/"; done
for f in "$JAVA_HOME"/bin/*; do ln -s "$f" "$d/patched/bin/"; done
rm "$d/patched/bin/java"
cat >"$d/patched/bin/java" <<EOS
#!/bin/sh
LD_PRELOAD="\${LD_PRELOAD:+\$LD_PRELOAD:}$standin" exec "$JAVA_HOME/bin/java" "\$@"
EOS
chmod +x "$d/patched/bin/java"

# job_time 10 s: a stress attempt is its slot less about 3 s of JVM start and stop (ci/job), and a
# 1-2 s run on a loaded machine could end before its agent walked (CI runs saw 0 walks with 5 s
# and once with 8 s).
write_preset "$d/base.preset" budget=22s job_time=10s min_attempt=3s rounds=1 triage_every=4s <<'EOF2'

[stress]
scenario = spin
agent = stats=0
EOF2

ci/premerge --preset "$d/base.preset" --base "$JAVA_HOME" --java-home "$JAVA_HOME" --seed 3 \
  --out "$d/same" --no-build -q -j 2 >"$d/same.out" 2>&1; rc=$?
ok $rc "the same JDK on both sides: exit 0 ($(grep 'premerge: passed\|premerge: FAILED\|could not' "$d/same.out"))"
grep -q '(0 new, 0 pre-existing, 0 gone, [0-9]* shared)' "$d/same.out"; ok $? "nothing new, nothing gone"
grep -q 'seed 3' "$d/same/summary.md" && [ -f "$d/same/base/report.json" ] && [ -f "$d/same/patched/report.json" ]
ok $? "both sides ran with the same seed, each with its own report"
grep -q '^Throughput, base: Campaign total [0-9.]*[kM]* ' "$d/same/summary.md" && grep -q '^Throughput, patched: Campaign total ' "$d/same/summary.md"
ok $? "the summary gives each side's rates ($(grep -m1 '^Throughput, patched' "$d/same/summary.md" | cut -c1-100))"

# --confirm 1: the new bucket's case runs once more on each build, in a fresh JVM.
ci/premerge --preset "$d/base.preset" --base "$JAVA_HOME" --java-home "$d/patched" --seed 3 --confirm 1 \
  --out "$d/bug" --no-build -q -j 2 >"$d/bug.out" 2>&1; rc=$?
ok $(( rc != 1 )) "a bug only on the patched build: exit 1 ($rc: $(grep 'premerge: passed\|premerge: FAILED\|could not' "$d/bug.out"))"
grep -q '(1 new, 0 pre-existing, 0 gone, [0-9]* shared)' "$d/bug.out"; ok $? "exactly one bucket is new"
grep -q "^  triage: crash-triage/repro --java-home $d/patched $d/bug/patched/triage/buckets/[0-9a-f]*\$" "$d/bug.out" &&
  grep -q '^  repro command: .*stress/run .*--java-home '"$d/patched" "$d/bug.out" &&
  grep -q "^- triage: \`crash-triage/repro --java-home $d/patched " "$d/bug/summary.md"
ok $? "the new bucket's reproduce commands name the patched build, printed and in summary.md ($(grep -m1 '^  triage:' "$d/bug.out" | cut -c1-120))"
grep -q '^premerge: NEW          [0-9a-f]*  base     0  patched *[1-9][0-9]*  SIGSEGV in standin_read_frame  \[confirmed: base 0/1, patched 1/1\]$' "$d/bug.out"
ok $? "the new bucket is the stand-in's bug, with counts for both sides, reproduced on the patched build alone ($(grep 'NEW ' "$d/bug.out"))"
python3 - "$d/bug" <<'EOF2' >"$d/junit.out" 2>&1; ok $? "JUnit and summary show the same new/gone/shared lists ($(cat "$d/junit.out"))"
import sys, xml.etree.ElementTree as ET
out = sys.argv[1]
root = ET.parse(out + '/junit.xml').getroot()
suites = {s.get('name'): s for s in root.findall('testsuite')}
assert {'premerge.new-buckets', 'premerge.gone-buckets', 'premerge.shared-buckets'} <= set(suites), set(suites)
new = suites['premerge.new-buckets'].findall('testcase')
assert len(new) == 1 and new[0].find('failure') is not None and 'standin_read_frame' in new[0].get('name'), new
for name in ('gone', 'shared'):
    assert all(c.find('failure') is None for c in suites['premerge.%s-buckets' % name].findall('testcase'))
md = open(out + '/summary.md').read()
sig = new[0].get('name').split()[0]
assert '## New buckets' in md and '## Gone buckets' in md and '## Shared buckets' in md
assert md.split('## New buckets')[1].split('## Gone')[0].count('`%s`' % sig) == 1, md
for c in suites['premerge.shared-buckets'].findall('testcase'):
    assert '`%s`' % c.get('name').split()[0] in md.split('## Shared buckets')[1]
print('%d new, %d gone, %d shared' % (len(new), len(suites['premerge.gone-buckets'].findall('testcase')),
                                      len(suites['premerge.shared-buckets'].findall('testcase'))))
EOF2

# The report leads with the verdict, the new bucket inside it with the command
# that reruns it, then both sides; Chromium shows the verdict in the first screen.
python3 - "$d/bug/report.html" <<'EOF2' >"$d/html.out" 2>&1
import re, sys
page = open(sys.argv[1]).read()
body = page.split('<body>', 1)[1]
first = re.search(r'<(section|table|div|p)[^>]*id="([^"]+)"', body)
assert first and first.group(2) == 'verdict', first and first.group(2)
verdict = body.split('<section id="verdict"', 1)[1].split('</section>', 1)[0]
assert 'class="fail"' in body.split('<section id="verdict"', 1)[1][:30]
assert 'id="new-buckets"' in verdict and 'standin_read_frame' in verdict and 'crash-triage/repro ' in verdict
assert 'id="base-vs-patched"' in verdict and 'href="base/report.html"' in verdict
print('verdict first, new bucket with its command, base against patched')
EOF2
ok $? "report.html leads with the verdict and the new bucket ($(tail -1 "$d/html.out"))"
ci/check-report-screenshot "$d/bug/report.html" "$d/bug/report.png" >"$d/shot.out" 2>&1
rc=$?
if [ $rc = 77 ]; then skip "Chromium: the failing verdict is in the first screen" "$(cat "$d/shot.out")"
else ok $rc "Chromium: the failing verdict is in the first screen ($(tail -1 "$d/shot.out"))"; fi

# Preloads are appended: stress/run --jsig keeps the stand-in the caller preloaded.
LD_PRELOAD=$standin stress/run --jsig --scenario spin --time 2s --out "$d/pre" --agent stats=0 >"$d/pre.v" 2>&1
grep -qP '/libjsig\.so(\t[0-9a-f]+)?$' "$d/pre/libraries" && grep -qF "$(readlink -f "$standin")" "$d/pre/libraries"
ok $? "stress/run --jsig with the caller's LD_PRELOAD: the VM mapped both libjsig and the stand-in"
crash-triage/triage -q --out "$d/pre-t" "$d/pre" >/dev/null 2>&1
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["buckets"]; sys.exit(not any("standin_read_frame" in x["title"] for x in b))' "$d/pre-t/report.json"
ok $? "stress/run --jsig with the caller's LD_PRELOAD: the preloaded build is the one tested ($(cat "$d/pre.v"))"
# A base side that did not meet a bug its build has: the same stand-in build on
# both sides, then the base side's records taken away and the pair judged again
# (--report-only). The patched-only bucket reproduces on the base build, so it is
# pre-existing and the check passes; with --confirm 0 it is new.
ci/premerge --preset "$d/base.preset" --base "$d/patched" --java-home "$d/patched" --seed 3 --confirm 1 \
  --out "$d/pair" --no-build -q -j 2 >"$d/pair1.out" 2>&1; rc=$?
grep -q '(0 new, 0 pre-existing, 0 gone, [1-9][0-9]* shared)' "$d/pair1.out"
ok $(( rc != 0 || $? != 0 )) "the stand-in build on both sides: its bug is shared, exit 0 ($rc: $(grep 'premerge: passed\|premerge: FAILED\|could not' "$d/pair1.out"))"
# An oracle mismatch met only on the patched build fails the pair only with
# --mismatch-fails, as it does a single build (a record put into a patched job).
att=$(dirname "$(find "$d/pair/patched/results/jobs" -name cmd | head -1)")
printf 'ASGF-RECORD 1\npid: 99\ntid: 99\nthread: t\ntime_ns: 1\nbackend: agct\nentry: AsyncGetCallTrace\nmode: oracle\nkey: 00000000000000aa\nmismatch: wrong-oldest\nat: 1\nmethod: LFoo;.bar()V\nwhy: planted by the test\nEND\n' > "$att/record-99-99-0.txt"
rm -rf "$d/pair/patched/triage"
ci/premerge --report-only --out "$d/pair" --confirm 0 -q >"$d/mm1.out" 2>&1; rc=$?
grep -q 'oracle mismatch bucket(s) only on the patched build, not failing without --mismatch-fails' "$d/mm1.out" && grep -q '(0 new,' "$d/mm1.out" &&
  grep -q 'MISMATCH-WRONG-OLDEST in Foo.bar' "$d/pair/report.md"
ok $(( rc != 0 || $? != 0 )) "base vs patched: a patched-only oracle mismatch does not fail without --mismatch-fails ($rc: $(grep 'premerge: passed\|premerge: FAILED\|could not' "$d/mm1.out"))"
ci/premerge --report-only --out "$d/pair" --confirm 0 --mismatch-fails -q >"$d/mm2.out" 2>&1; rc=$?
grep -q '(1 new,' "$d/mm2.out"
ok $(( rc != 1 || $? != 0 )) "... and with --mismatch-fails it is new, exit 1 ($rc)"
rm -f "$att/record-99-99-0.txt"; rm -rf "$d/pair/patched/triage"
find "$d/pair/base/results" \( -name 'record-*' -o -name 'faults-*' -o -name 'hs_err*' \) -delete
rm -rf "$d/pair/base/triage"
ci/premerge --report-only --out "$d/pair" --confirm 1 -q >"$d/pair2.out" 2>&1; rc=$?
grep -q '(0 new, 1 pre-existing, 0 gone, [0-9]* shared)' "$d/pair2.out"
ok $(( rc != 0 || $? != 0 )) "base records gone, judged again: the bucket reproduces on the base build, pre-existing, exit 0 ($rc: $(grep 'premerge: passed\|premerge: FAILED\|could not' "$d/pair2.out"))"
grep -q '^premerge: pre-existing [0-9a-f]*  base     0  patched *[1-9][0-9]*  SIGSEGV in standin_read_frame  \[pre-existing: base 1/1, patched -\]$' "$d/pair2.out" &&
  grep -q '## Pre-existing buckets' "$d/pair/summary.md" && grep -q 'pre-existing<br><small>tried again: base 1/1, patched -' "$d/pair/report.html" &&
  python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); s = {x.get("name"): x for x in r.findall("testsuite")}; c = s["premerge.pre-existing-buckets"].findall("testcase"); sys.exit(not (len(c) == 1 and c[0].find("failure") is None and not s["premerge.new-buckets"].findall("testcase")))' "$d/pair/junit.xml"
ok $? "the pre-existing bucket in the output, the summary, report.html and the JUnit file, not failing"
ci/premerge --report-only --out "$d/pair" --confirm 0 -q >"$d/pair3.out" 2>&1; rc=$?
grep -q '(1 new, 0 pre-existing, 0 gone, [0-9]* shared)' "$d/pair3.out"
ok $(( rc != 1 || $? != 0 )) "the same pair with --confirm 0: the bucket is new, exit 1 ($rc)"
ci/premerge --report-only --out "$d/pair" --confirm-time 2y -q >"$d/pair4.out" 2>&1; rc=$?
ok $(( rc != 2 )) "a bad --confirm-time: exit 2, naming it ($rc: $(cat "$d/pair4.out"))"
# A side that left part of its plan untested makes the pair untested (exit 3), as it does a
# single build: 12 s a side hold at most two of the four 5 s plan jobs one after the other
# (the runner starts none after 9 s less min_attempt).
for scen in spin park recursion inline; do printf '\n[stress %s]\nscenario = %s\nagent = stats=0\n' "$scen" "$scen"; done |
  write_preset "$d/four.preset" budget=24s job_time=5s min_attempt=5s rounds=1 triage_every=off
ci/premerge --preset "$d/four.preset" --base "$JAVA_HOME" --java-home "$JAVA_HOME" --seed 3 \
  --out "$d/short" --no-build -q -j 1 >"$d/short.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q '^premerge: could not run completely (0 new, .* - base side: the budget covered [12] of 4 plan jobs' "$d/short.out" &&
  grep -q 'base side: the budget covered [12] of 4 plan jobs' "$d/short/junit.xml"
ok $? "a pair whose sides ran 2 of 4 plan jobs at most: exit 3, saying so ($rc: $(grep 'premerge: passed\|could not' "$d/short.out" | cut -c1-160))"
# Judged again with a known list that is gone: exit 2 naming it, as for a single build.
python3 -c 'import json,sys; p=sys.argv[1]; c=json.load(open(p)); c["known"]="/gone/my-known.txt"; json.dump(c,open(p,"w"))' "$d/short/base/campaign.json"
ci/premerge --report-only --out "$d/short" -q >"$d/short2.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "base side: the campaign's known list '/gone/my-known.txt' is gone" "$d/short2.out"
ok $? "a pair judged again with its base side's known list gone: exit 2 naming it ($rc: $(head -c 160 "$d/short2.out"))"
# A --base that is no JDK is named as --base, not as JAVA_HOME: exit 3 before any job.
ci/premerge --preset "$d/base.preset" --base "$d/no-such-jdk" --java-home "$JAVA_HOME" --out "$d/nobase" --no-build -q \
  >"$d/nobase.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q "^premerge: could not run: --base '$d/no-such-jdk' is not a directory" "$d/nobase.out"
ok $? "a --base that is not a directory: exit 3 naming --base ($rc: $(head -c 160 "$d/nobase.out"))"
# A --base whose java answers -version but starts no VM: every base job fails, so the
# pair cannot be judged, and the patched half of the budget is not spent to say so.
mkdir -p "$d/deadvm/bin"
for f in "$JAVA_HOME"/*; do [ "$(basename "$f")" = bin ] || ln -s "$f" "$d/deadvm/"; done
cat >"$d/deadvm/bin/java" <<EOS
#!/bin/sh
for a in "\$@"; do [ "\$a" = -version ] && exec "$JAVA_HOME/bin/java" -version; done
echo 'Error occurred during initialization of VM' >&2; exit 1
EOS
chmod +x "$d/deadvm/bin/java"
ci/premerge --preset "$d/base.preset" --base "$d/deadvm" --java-home "$JAVA_HOME" --out "$d/deadbase" --no-build \
  >"$d/deadbase.out" 2>&1; rc=$?
[ $rc = 3 ] && grep -q '^premerge: the base side tested nothing (.*): the patched side is not run$' "$d/deadbase.out" &&
  ! ls "$d"/deadbase/patched/results/jobs/*/job.json >/dev/null 2>&1
ok $? "a base build that starts no VM: exit 3 after the base side, no patched job run ($rc: $(grep -m1 'base side tested' "$d/deadbase.out"))"
tap_done
