#!/usr/bin/env bash
# make bench: prints the framework's figures on this machine. Nothing here
# asserts a speed; the README quotes what this printed.
# BENCH_QUICK=1 shortens every run (for a look, not for quoting).
cd "$(dirname "$0")/../.." && . tests/lib.sh
q=${BENCH_QUICK:-0}
dur() { if [ "$q" = 1 ]; then echo "$2"; else echo "$1"; fi; }
make_scratch
echo "== machine: $(nproc) cores, $("$JAVA" -version 2>&1 | head -1)"
echo "== agent: mode=thread at 100us under faults (stand-in tests/jvm/fake_proto.c; spin, 2 threads, $(dur 20 5) s)"
for every in 0 10; do
  ASGF_FAKE_FAULT_EVERY=$every LD_PRELOAD=$PWD/$BUILD/tests/libfake_proto.so stress/run --scenario spin --threads 2 \
    --time "$(dur 20 5)s" --out "$d/tf$every" --agent "api=asgst,mode=thread,interval=100us,stats=0" > /dev/null
  python3 -c "
import json,sys
j=json.load(open(sys.argv[1])); c=j['api_calls']; what='no injected fault' if sys.argv[2]=='0' else 'a walker bug on every %sth call' % sys.argv[2]
print(f'{what}: interval p50 {j[\"interval_p50_us\"]} us, p99 {j[\"interval_p99_us\"]} us, delivered {j[\"delivered_pct\"]}%, '
      f'faults caught {j[\"faults\"]} of {j[\"walks\"]} calls, target timeouts {j[\"target_timeouts\"]}; supported path Enqueue '
      f'{c.get(\"Enqueue\", 0)} (queue handled {j[\"queue_handled\"]}), robustness path RunWithIterator {c.get(\"RunWithIterator\", 0)}')
" "$d/tf$every/summary.json" "$every"
done

echo "== agent: time to first caught fault on $("$JAVA" -version 2>&1 | head -1 | cut -d'"' -f2) (scenarios spin,inline,recursion,deopt; cap $(dur 60 30)s per run)"
cap=$(dur 60 30); runs=$(dur 3 1)
for strat in random near corpus:corpus/reproducers; do
  times=()
  for ((i = 1; i <= runs; i++)); do
    stress/run --scenario spin,inline,recursion,deopt --time "${cap}s" --out "$d/ff-$strat-$i" \
      --agent "api=agct,mutate=$strat,seed=$i,stats=0" > /dev/null
    times+=("$(json_field "$d/ff-$strat-$i/summary.json" first_fault_s)")
  done
  python3 -c "
import statistics,sys
cap=float(sys.argv[1]); t=[float(x) if float(x)>=0 else float('inf') for x in sys.argv[3:]]
m=statistics.median(t)
print(f'mutate={sys.argv[2]}: first fault after', ', '.join('none in %gs'%cap if x==float('inf') else '%.1fs'%x for x in t), '-> median', 'none in %gs'%cap if m==float('inf') else '%.1fs'%m)
" "$cap" "$strat" "${times[@]}"
done

echo "== agent: every scenario for $(dur 20 4) s under interval=100us,mode=signal,mutate=none,api=agct"
SCENARIO_SECONDS=$(dur 20 4) tests/agent_scenarios.t | grep -E '^#|^not ok'

echo "== oracle: AsyncGetCallTrace walks of held threads compared with JVMTI (park, 2 threads, oracle=1, $(dur 20 4) s)"
for jh in "$JAVA_HOME" /usr/lib/jvm/temurin-25-jdk-amd64; do
  [ -x "$jh/bin/java" ] || continue
  o="$d/oracle-$(basename "$jh")"
  stress/run --java-home "$jh" --scenario park --time "$(dur 20 4)s" --out "$o" --agent "oracle=1,interval=10s,stats=0" > /dev/null
  python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
m = sum(j['mismatches'].values())
print(f'{sys.argv[2]}: {j[\"compared\"] / max(j[\"seconds\"], 1e-9):.0f} compared walks/s ({j[\"compared\"]} in {j[\"seconds\"]:.1f} s), '
      f'mismatches {m}, excused by rule {j[\"excused\"]}')
" "$o/oracle.json" "$("$jh/bin/java" -version 2>&1 | head -1)" || echo "oracle on $jh: no figure (see $o/log)"
done

