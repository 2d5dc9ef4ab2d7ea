#!/usr/bin/env bash
# The jtreg group through `make jtreg`, on this JDK: SignalModeWalks passes
# (whatever its short runs find is in the group's known list), and the same
# test fails, quoting the bucket title in jtreg's own output, when every JVM
# of the run carries a known-bad ASGST provider (tests/jvm/standin_crash.c,
# loaded through JAVA_TOOL_OPTIONS as a buggy VM build would be).
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
command -v jtreg > /dev/null || { echo "not ok 1 - jtreg missing: run 'make deps' (Debian jtreg7)"; exit 1; }
standin=$PWD/$BUILD/tests/libstandin_crash.so
title="SIGSEGV in standin_read_caller_frame"   # the API entry is context, not title
test=asgst_fuzz/SignalModeWalks.java
jt() { make --no-print-directory jtreg JDK="$JAVA_HOME" JTREG_TESTS=$test JTREG_SECONDS=4 JTREG_OUT="$d/$1" "${@:2}"; }

jt good > "$d/good.out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^Passed: $test" "$d/good.out" && grep -q "^Test results: passed: 1$" "$d/good.out"
ok $? "stock JDK: $test passes (make jtreg exit $rc: $(grep -m1 '^Test results' "$d/good.out"))"

jt bad "JTREG_OPTS=-e:JAVA_TOOL_OPTIONS=-agentpath:$standin" > "$d/bad.out" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "^Test results: failed: 1$" "$d/bad.out"
ok $? "known-bad provider: $test fails (make jtreg exit $rc: $(grep -m1 '^Test results' "$d/bad.out"))"
grep -q "^TEST RESULT: Failed\..*new bucket: $title" "$d/bad.out"
ok $? "known-bad provider: jtreg's TEST RESULT line carries the bucket title '$title'"
grep -q "^asgf-check: new bucket: $title (signature [0-9a-f]\{12\}" "$d/bad.out"
ok $? "known-bad provider: the test's output names the bucket with its signature"
grep -h -m2 "TEST RESULT\|Test results" "$d/good.out" "$d/bad.out" | sed 's/^/# /'
tap_done
