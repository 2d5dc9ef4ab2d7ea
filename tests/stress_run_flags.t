#!/usr/bin/env bash
# stress/run's knobs for the census and presets: a JVM flag set reaches the
# VM (and one it refuses is "not run", not a crash), jcmd Thread.print runs
# beside the workload, and jvmti_walk=1 adds the agent's JVMTI walks
# (suspended GetStackTrace, GetThreadListStackTraces) in signal mode.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

out=$(stress/run --scenario spin --time 2s --out "$d/bad" --jvm-flags "-XX:+UseNoSuchGC" 2>"$d/bad.err"); rc=$?
[ $rc -eq 4 ] && printf '%s\n' "$out" | grep -q '^stress: not run ' && grep -q "Unrecognized VM option 'UseNoSuchGC'" "$d/bad.err"
ok $? "a flag the VM refuses: exit 4, 'not run', the VM's reason on stderr (got $rc: $out)"

out=$(nice -n 5 stress/run --scenario walkers,nanotime --time 5s --out "$d/run" --jcmd 1 --seed 4242 \
  --jvm-flags "-XX:+UseParallelGC -XX:TieredStopAtLevel=1 -XX:+PrintFlagsFinal" \
  --agent jvmti_walk=1,stats=0 2>&1); rc=$?
[ $rc -le 1 ]; ok $? "the run ends clean or with caught faults (got $rc: $out)"
grep -Eq '^ *bool UseParallelGC += true' "$d/run/log" && grep -Eq '^ *intx TieredStopAtLevel += 1 ' "$d/run/log"
ok $? "the VM ran with the flag set (PrintFlagsFinal: UseParallelGC true, TieredStopAtLevel 1)"
dumps=$(printf '%s\n' "$out" | sed -n 's/.* jcmd-dumps=\([0-9]*\) .*/\1/p')
[ "${dumps:-0}" -ge 1 ]; ok $? "jcmd Thread.print ran beside it (jcmd-dumps=$dumps)"
sw=$(json_field "$d/run/summary.json" suspend_walks) lw=$(json_field "$d/run/summary.json" list_walks)
w=$(json_field "$d/run/summary.json" walks)
[ "$sw" -gt 0 ] && [ "$lw" -gt 0 ] && [ "$w" -gt 0 ]
ok $? "mode=signal with jvmti_walk=1: signal walks $w, suspended walks $sw, list walks $lw"
grep -Eq '^scenario=walkers threads=2 ops=[1-9]' "$d/run/log" && grep -Eq '^scenario=nanotime threads=2 ops=[1-9]' "$d/run/log"
ok $? "both workloads did work"
printf '%s\n' "$out" | tail -1 | grep -q ' seed=4242 ' && grep -q '^asgst-stress: jdk=.* seed=4242 ' "$d/run/log"
ok $? "the workload ran with --seed and the verdict line names it ($(grep -o '^asgst-stress: jdk=[^ ]* seed=[^ ]*' "$d/run/log"))"
stress/run --seed soon --out "$d/bad-seed" >"$d/bs.out" 2>&1; rc=$?
[ $rc = 4 ] && grep -q "stress: --seed wants a whole number without leading zeros, got 'soon'" "$d/bs.out"; ok $? "a bad --seed is exit 4, named (got $rc)"
stress/run --time 0 --out "$d/zero-time" >"$d/zt.out" 2>&1; rc=$?
[ $rc = 4 ] && grep -q "stress: --time '0' runs nothing: give at least 1s" "$d/zt.out" && [ ! -e "$d/zero-time/log" ]
ok $? "--time 0 is exit 4 naming --time as written, before a JVM starts (got $rc: $(head -1 "$d/zt.out"))"
# --agent is checked as the user wrote it, before stress/run adds out= and threads=: the error
# counts the user's options; out= and threads= of its own are refused by name. Exit 4, no VM.
for a in "interval=50us,bogus=1:option 2 \"bogus=1\": unknown option" "threads=x:threads= is set by stress/run itself" \
         "out=/tmp:out= is set by stress/run itself (use --out)"; do
  stress/run --time 1s --out "$d/bad-agent" --agent "${a%%:*}" >"$d/ba.out" 2>&1; rc=$?
  [ $rc = 4 ] && grep -qF -- "--agent: ${a#*:}" "$d/ba.out" && [ ! -e "$d/bad-agent/log" ]
  ok $? "stress/run --agent ${a%%:*}: exit 4 naming it as written ($rc: $(head -1 "$d/ba.out"))"
done
tap_done
