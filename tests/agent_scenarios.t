#!/usr/bin/env bash
# Every stress scenario under the agent (signal mode, 100us, no mutation,
# agct): no VM crash, walks happen, and every long-lived worker thread was
# walked. Short version for make test (4 s each); `make bench` runs 20 s.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
secs=${SCENARIO_SECONDS:-4}
for s in $("$JAVA" -cp "$BUILD/stress/classes" asgstfuzz.stress.Main --list | awk '{print $1}'); do
  out="$d/$s"
  run_stress "$out" "interval=100us,mode=signal,mutate=none,api=agct" "$s" "$secs"
  rc=$?
  ok $rc "$s: clean exit under the agent (exit $rc$(ls "$out"/hs_err* 2>/dev/null | sed 's/^/, /'))"
  walks=$(json_field "$out/summary.json" walks)
  reg=$(json_field "$out/summary.json" threads_registered)
  walked=$(json_field "$out/summary.json" threads_walked)
  faults=$(json_field "$out/summary.json" faults)
  echo "# $s: walks $walks, threads registered $reg, walked $walked, faults $faults, interval p50 $(json_field "$out/summary.json" interval_p50_us)us"
  if [ "$s" = vthreads ] && grep -q "needs JDK 21" "$out/log"; then
    skip "$s: the agent walked" "the workload needs JDK 21"; continue
  fi
  [ "$walks" -gt 0 ]; ok $? "$s: the agent walked ($walks walks)"
  if [ "$s" = threads ]; then
    # Children live for microseconds; many end before a signal reaches them.
    [ "$walked" -ge 2 ]; ok $? "$s: at least the 2 long-lived workers were walked ($walked of $reg threads)"
  else
    [ "$walked" -eq "$reg" ] && [ "$reg" -ge 2 ]; ok $? "$s: every registered worker thread was walked ($walked of $reg)"
  fi
  [ "$faults" -eq 0 ]; ok $? "$s: no fault on unmutated contexts"
done
tap_done
