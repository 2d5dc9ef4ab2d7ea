#!/usr/bin/env bash
# mode=thread and mode=queue on a set of scenarios: no hangs, no crashes;
# queue handlers get the stacks JVMTI sees for a thread parked at a known
# point; a tiny queue reports FULL_QUEUE.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
secs=${SCENARIO_SECONDS:-4}
for mode in thread queue; do
  for s in spin recursion park threads; do
    out="$d/$mode-$s"
    stress/run --scenario "$s" --time "${secs}s" --out "$out" --agent "mode=$mode,api=agct,stats=0" > "$out.verdict" 2>&1
    rc=$?
    ok $rc "mode=$mode $s: clean, no hang (verdict: $(cat "$out.verdict"))"
    walks=$(json_field "$out/summary.json" walks)
    [ "$walks" -gt 0 ]; ok $? "mode=$mode $s: walks happened ($walks)"
  done
done
echo "# thread mode answers on stock AGCT: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["raw_codes"])' "$d/thread-spin/summary.json")"
sw=$(json_field "$d/thread-spin/summary.json" suspend_walks)
[ "$sw" -gt 0 ]; ok $? "mode=thread also ran JVMTI suspend/GetStackTrace/resume walks ($sw)"

out="$d/queue-verify"
# Three times the others' length: the moved share below is a ratio, and about
# 80 comparisons (4 s) left it at the mercy of a few unlucky wake-ups.
stress/run --scenario park --time "$((secs * 3))s" --out "$out" --agent "mode=queue,api=agct,verify=1,stats=0" > "$out.verdict" 2>&1
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$out.verdict" | tail -15
ok $rc "mode=queue verify=1 on parked threads runs clean (exit $rc)"
line=$(grep 'queue verify:' "$out/log")
echo "# $line"
eq=$(sed -n 's/.*equal \([0-9]*\), moved \([0-9]*\).*/\1/p' <<< "$line")
mv=$(sed -n 's/.*equal \([0-9]*\), moved \([0-9]*\).*/\2/p' <<< "$line")
# Park workers wake every 250 ms; a comparison straddling a wake-up counts as
# "moved", so a few are allowed, mismatches beyond that are not.
[ "${eq:-0}" -gt 0 ] && [ $(( ${mv:-1} * 20 )) -le "${eq:-0}" ]
ok $? "queue handler stacks equal JVMTI GetStackTrace for parked threads ($eq equal, $mv moved)"
grep -q 'example equal stack: .*Park;.parkHere' <<< "$line"; ok $? "the compared stacks run through Park.parkHere"
h=$(json_field "$out/summary.json" queue_handled)
[ "$h" -gt 0 ]; ok $? "queue handlers ran ($h elements)"

out="$d/queue-tiny"
stress/run --scenario spin --time 3s --out "$out" --agent "mode=queue,api=agct,queue_size=1,interval=20us,stats=0" > /dev/null 2>&1
full=$(json_field "$out/summary.json" queue_full)
[ "$full" -gt 0 ]; ok $? "queue_size=1 reports ENQUEUE_FULL_QUEUE ($full times)"
tap_done
