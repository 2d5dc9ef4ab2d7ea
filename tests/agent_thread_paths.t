#!/usr/bin/env bash
# mode=thread takes two paths into a held target: the supported one (the
# target's queue: Enqueue from another thread while the target is stopped)
# and the robustness one (iterator calls from a foreign thread, a misuse the
# prototype does not check). Under a walker bug on every 10th call of the
# stand-in provider (ASGF_FAKE_FAULT_EVERY), both paths fault under
# protection, each record says its path, the queue still delivers, and no
# target is left waiting. On stock AGCT the supported path walks the held
# thread through our queue.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
secs=${SCENARIO_SECONDS:-4}
fake=$PWD/$BUILD/tests/libfake_proto.so

out="$d/fake"
ASGF_FAKE_FAULT_EVERY=10 LD_PRELOAD=$fake stress/run --scenario spin --time "${secs}s" --out "$out" \
  --agent "api=asgst,mode=thread,interval=100us,stats=0" > "$out.verdict" 2>&1
rc=$?
[ $rc = 1 ]; ok $? "thread mode on the faulting stand-in: faults caught, the VM lives (rc $rc: $(cat "$out.verdict"))"
s="$out/summary.json"
faults=$(json_field "$s" faults) walks=$(json_field "$s" walks) handled=$(json_field "$s" queue_handled)
echo "# walks $walks, faults $faults, queue handled $handled, interval p50 $(json_field "$s" interval_p50_us) us p99 $(json_field "$s" interval_p99_us) us, delivered $(json_field "$s" delivered_pct)%, target timeouts $(json_field "$s" target_timeouts)"
# one call in ten faults; the protection turns each into a caught fault
[ "$faults" -gt 0 ] && [ $((faults * 20)) -ge "$walks" ] && [ $((faults * 5)) -le "$walks" ]
ok $? "about one call in ten faulted and was caught ($faults of $walks)"
[ "$handled" -gt 0 ]; ok $? "elements enqueued from the walker thread were handled on the target's queue ($handled)"
sup=$(grep -l '^path: supported$' "$out"/record-*.txt 2>/dev/null | head -1)
rob=$(grep -l '^path: robustness$' "$out"/record-*.txt 2>/dev/null | head -1)
[ -n "$sup" ] && grep -q '^entry: enqueue$' "$sup" && grep -q '^mode: thread$' "$sup"
ok $? "a fault in Enqueue on a held target is recorded as the supported path ($sup)"
[ -n "$rob" ] && grep -q '^entry: run_with_iterator' "$rob" && grep -q '^mode: thread$' "$rob"
ok $? "a fault in a foreign-thread RunWithIterator is recorded as the robustness path ($rob)"
crash-triage/triage -q --no-symbolize --out "$d/triage" "$out" > "$d/triage.txt" 2>&1
via=$(python3 -c 'import json,sys; print(" ".join(sorted(set(v for b in json.load(open(sys.argv[1]))["buckets"] for v in b.get("via", {})))))' "$d/triage/report.json" 2>/dev/null)
echo "# triage: reached via $via"
[ -n "$via" ]; ok $? "triage buckets the thread-mode faults"

out="$d/agct"
stress/run --scenario spin --time "${secs}s" --out "$out" --agent "api=agct,mode=thread,interval=100us,stats=0" > "$out.verdict" 2>&1
rc=$?
ok $rc "thread mode on stock AGCT runs clean (exit $rc: $(cat "$out.verdict"))"
handled=$(json_field "$out/summary.json" queue_handled)
echo "# stock AGCT: raw codes of the foreign-thread walks $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["raw_codes"])' "$out/summary.json"), queue handled $handled"
[ "$handled" -gt 0 ]; ok $? "the supported path walks the held threads through their queues ($handled handled)"
tap_done
