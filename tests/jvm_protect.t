#!/usr/bin/env bash
# Crash protection on a live JVM, in both ways of coexisting with HotSpot's
# handler: primary (no libjsig) and chained (libjsig preloaded).
# protect=1: mutated walks and a planted bad pointer are survived and
# recorded; protect=0: the planted fault kills the VM with an hs_err file
# whose problematic frame is in libjvm; a fault inside the guard's own
# handler ends the VM with an hs_err, not silently.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
jsig="$JAVA_HOME/lib/libjsig.so"
for how in primary chained; do
  pre=""; [ $how = chained ] && pre="$jsig"
  mkdir -p "$d/$how"
  LD_PRELOAD="$pre" run_tap "mutate-$how" "$JAVA" $PROBE=api=agct,out=$d/$how $PROBE_CP Probe mutate "$d/$how"
  LD_PRELOAD="$pre" "$JAVA" $PROBE=api=agct,out=$d/$how $PROBE_CP Probe mutate "$d/$how" 2>&1 \
    | grep -q "probe: guard mode $how,"; ok $? "guard ran in $how mode"

  # the build that ran, as the loader mapped it: triage names the offsets from it alone
  jvm=$(grep -h '^pc: .*/libjvm.so+' "$d/$how"/record-* 2>/dev/null | head -1 | sed 's/^pc: [^ ]* //; s/+0x[0-9a-f]*$//')
  want=$(build_id "$jvm")
  if [ -n "$jvm" ] && [ -z "$want" ]; then
    skip "$how: a record names libjvm's build-id" "this libjvm has no GNU build-id"
  else
    [ -n "$want" ] && grep -qxF "build_id: $jvm $want" $(grep -l '^pc: .*/libjvm.so+' "$d/$how"/record-*)
    ok $? "$how: a record of a libjvm fault names libjvm's build-id (${jvm:-no libjvm record} ${want:-none})"
  fi
  n=$(ls "$d/$how"/record-* 2>/dev/null | wc -l)
  [ "$n" -ge 2 ] && ! grep -q '^tainted:' "$d/$how"/record-*
  ok $? "$how: faults in walks change no VM state: none of the $n records is tainted"

  mkdir -p "$d/$how-off"
  LD_PRELOAD="$pre" "$JAVA" -XX:ErrorFile="$d/$how-off/hs_err_pid%p.log" $PROBE=api=agct,protect=0,out=$d/$how-off \
    $PROBE_CP Probe plant-unprotected > "$d/$how-off/out" 2>&1
  rc=$?
  [ $rc -ne 0 ] && ! grep -q "JVM survived" "$d/$how-off/out"; ok $? "$how, protect=0: the JVM dies on the planted fault (exit $rc)"
  hs=$(ls "$d/$how-off"/hs_err_pid*.log 2>/dev/null | head -1)
  [ -n "$hs" ]; ok $? "$how, protect=0: an hs_err file was written"
  grep -A1 '^# Problematic frame:' "$hs" 2>/dev/null | grep -q 'V  \[libjvm.so+0x'; ok $? "$how, protect=0: hs_err's problematic frame is in libjvm"
  ls "$d/$how-off"/record-* >/dev/null 2>&1; [ $? -ne 0 ]; ok $? "$how, protect=0: no crash record (the guard stayed out of it)"
  check_fault_in_handler "$JAVA" "$how" "$d/$how-nested" "$pre"
done
tap_done
