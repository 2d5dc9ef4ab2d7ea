#!/usr/bin/env bash
# Backend asgst: a provider exporting the entry points (ASGST_ or JFRLL_
# prefix) is found by api=auto and calls reach it; without one, api=asgst
# refuses to start with a reason; bad agent options name the option.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
for p in asgst jfrll; do
  LD_PRELOAD=$PWD/$BUILD/tests/libfake_$p.so run_tap "fake-$p" "$JAVA" $PROBE=api=auto,out=$d $PROBE_CP Probe fake
done
LD_PRELOAD=$PWD/$BUILD/tests/libfake_jfrll.so "$JAVA" $PROBE=api=auto,out=$d $PROBE_CP Probe fake 2>&1 \
  | grep -q "entry points found with prefix JFRLL_"; ok $? "the report names the JFRLL_ prefix"
"$JAVA" $PROBE=api=asgst $PROBE_CP Probe fake > "$d/out" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "exports neither ASGST_RunWithIterator nor JFRLL_RunWithIterator" "$d/out"
ok $? "api=asgst on a stock JDK stops the VM with the reason (exit $rc)"
"$JAVA" $PROBE=api=auto $PROBE_CP Probe walk > "$d/out" 2>&1
grep -q "api: backend agct" "$d/out" && ! grep -q "not binding asgst" "$d/out"
ok $? "api=auto falls back to agct on a stock JDK, without a word about asgst"
# An older snapshot's exports have other shapes: bound by name, its calls
# would go wrong in ways triage would blame on the VM.
LD_PRELOAD=$PWD/$BUILD/tests/libfake_asgst_older.so "$JAVA" $PROBE=api=asgst $PROBE_CP Probe fake > "$d/out" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "exports ASGST_QueueSize: an older prototype snapshot" "$d/out"
ok $? "api=asgst refuses an older snapshot's exports, naming the symbol (exit $rc)"
LD_PRELOAD=$PWD/$BUILD/tests/libfake_asgst_older.so "$JAVA" $PROBE=api=auto $PROBE_CP Probe walk > "$d/out" 2>&1
grep -q "not binding asgst: the running libjvm exports ASGST_QueueSize" "$d/out" && grep -q "api: backend agct" "$d/out"
ok $? "api=auto says why it did not bind an older snapshot, then runs agct"
for bad in "api=foo" "protect=maybe" "colour=blue" "api=agct,,out=x"; do
  "$JAVA" "$PROBE=$bad" $PROBE_CP Probe walk > "$d/out" 2>&1; rc=$?
  [ $rc -ne 0 ] && grep -q "probe: option [0-9]" "$d/out"; ok $? "bad option '$bad' is refused, naming it: $(grep 'probe: option' "$d/out")"
done
tap_done
