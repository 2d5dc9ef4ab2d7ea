#!/usr/bin/env bash
# Interrupted, full or re-run elsewhere: every workflow tool says what happened
# and keeps what it had.
#  - a full disk under ci/campaign (the LD_PRELOAD shim, tests/c/enospc_shim.c):
#    one line naming the file, exit 3, no pid file, no temporary, and
#    --resume finishes it once there is room;
#  - SIGTERM to ci/premerge in its run phase and in its final triage: exit 3,
#    junit.xml, summary.md and report.html written, nothing it started left
#    after 5 s; --report-only rebuilds the three;
#  - SIGINT to ci/campaign in its final triage: exit 130;
#  - SIGTERM to stress/run: exit 130, its JVM gone;
#  - two campaigns started at once on one --out: the second is told the first
#    holds it;
#  - repro of a bucket runs on the JDK the bucket was found on, and stops when
#    that JDK was rebuilt.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
shim=$PWD/$BUILD/tests/libenospc.so

write_preset "$d/p.preset" budget=30s job_time=6s min_attempt=3s reserve=8s triage_every=3s progress_every=5s rounds=1 <<'EOF'
[stress a]
scenario = spin
cores = 1
[stress b]
scenario = spin
cores = 1
EOF
export ASGFCI_CPU_LOCKS=$d/locks
# left_behind PATTERN: processes whose command line holds PATTERN
left_behind() { pgrep -f -- "$1" | grep -v "^$$\$" | wc -l; }
# gone_within PATTERN SECONDS: 0 once no such process is left
gone_within() { local i; for ((i = 0; i < $2 * 10; i++)); do [ "$(left_behind "$1")" = 0 ] && return 0; sleep 0.1; done; return 1; }

# --- a full disk under the campaign runner ---
o=$d/full
mkdir -p "$o"
ASGF_ENOSPC_DIR=$o ASGF_ENOSPC_AFTER=6000 LD_PRELOAD=$shim \
  ci/campaign --preset "$d/p.preset" --out "$o" --java-home "$JAVA_HOME" --no-build > "$d/full.log" 2>&1
rc=$?
[ $rc = 3 ] && grep -q '^campaign: no space left on device writing '"$o" "$d/full.log" && ! grep -q Traceback "$d/full.log"
ok $? "a full disk: one line naming the file, exit 3 (exit $rc: $(grep -m1 'no space' "$d/full.log" | cut -c1-110))"
[ ! -e "$o/runner.pid" ] && [ ! -e "$o/parallel.pid" ] && ! ls "$o"/*.tmp.* > /dev/null 2>&1
ok $? "no pid file and no temporary left ($(ls "$o" | tr '\n' ' '))"
gone_within "$o" 5; ok $? "nothing the campaign started outlives it by 5 s"
ci/campaign --resume --out "$o" > "$d/full2.log" 2>&1
rc=$?
[ $rc = 0 ] && [ -s "$o/report.html" ] && python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["status"] != "done")' "$o/state.json"
ok $? "--resume after room was made finishes it (exit $rc: $(grep 'campaign: done' "$d/full2.log"))"

# A final triage of two clean jobs can be over before a poll of their log
# sees it start (CI, once: exit 0 instead of 130). Through this python3,
# the final triage (crash-triage/triage without --no-replay) starts 3 s
# late, so a signal sent when it is announced lands inside it.
mkdir -p "$d/slowbin"
cat > "$d/slowbin/python3" <<EOF2
#!/bin/sh
case "\$1" in */crash-triage/triage) case " \$* " in *" --no-replay "*) ;; *) sleep 3 ;; esac ;; esac
exec $(command -v python3) "\$@"
EOF2
chmod +x "$d/slowbin/python3"
slow_path=$d/slowbin:$PATH

# --- SIGTERM to ci/premerge: run phase, final triage ---
premerge_term() {  # NAME WHEN [PRESET]: WHEN is 'run' (3 s in) or 'triage' (when the final triage starts)
  local o=$d/pm-$1
  PATH=$slow_path ci/premerge --preset "${3:-$d/p.preset}" --out "$o" --no-build --known /dev/null > "$d/pm-$1.log" 2>&1 &
  local pid=$!
  local want='campaign: triage of'
  [ "$2" = run ] && want=' running | '   # the first progress line: jobs are running
  for ((i = 0; i < 600; i++)); do grep -q -- "$want" "$d/pm-$1.log" 2>/dev/null && break; sleep 0.1; done
  kill -TERM $pid
  wait $pid; rc=$?
  [ $rc = 3 ] && [ -s "$o/junit.xml" ] && [ -s "$o/summary.md" ] && [ -s "$o/report.html" ]
  ok $? "SIGTERM to ci/premerge in its $2 phase: exit 3, JUnit, summary and report written (exit $rc)"
  if [ "$2" = run ]; then   # the first signal stops the jobs; the final triage still runs (no other: triage_every = off)
    grep -q "^campaign: triage of $o/results" "$d/pm-$1.log" && [ -s "$o/triage/report.json" ]
    ok $? "... and its final triage ran after the jobs stopped ($(ls "$o/triage" 2>&1 | head -3 | tr '\n' ' '))"
  fi
  gone_within "$o" 5; ok $? "... nothing it started outlives it by 5 s ($(left_behind "$o") left)"
}
sed 's/^triage_every = .*/triage_every = off/' "$d/p.preset" > "$d/p-off.preset"
premerge_term term-run run "$d/p-off.preset"
premerge_term term-triage triage
rm -f "$d/pm-term-triage/junit.xml" "$d/pm-term-triage/summary.md"
ci/premerge --report-only --out "$d/pm-term-triage" > "$d/rebuild.log" 2>&1
rc=$?
[ -s "$d/pm-term-triage/junit.xml" ] && [ -s "$d/pm-term-triage/summary.md" ] && [ $rc != 2 ]
ok $? "ci/premerge --report-only rebuilds JUnit, summary and report (exit $rc: $(grep -m1 '^premerge: ' "$d/rebuild.log" | cut -c1-90))"

# --- SIGINT to ci/campaign in its final triage ---
o=$d/int
PATH=$slow_path ci/campaign --preset "$d/p.preset" --out "$o" --java-home "$JAVA_HOME" --no-build > "$d/int.log" 2>&1 &
pid=$!
for ((i = 0; i < 600; i++)); do grep -q 'campaign: triage of' "$d/int.log" 2>/dev/null && break; sleep 0.1; done
kill -INT $pid
wait $pid; rc=$?
[ $rc = 130 ] && [ -s "$o/report.html" ]
ok $? "SIGINT to ci/campaign in its final triage: exit 130, report written (exit $rc)"

# --- SIGTERM to stress/run ---
stress/run --scenario spin --time 60s --out "$d/st" --agent stats=0 > "$d/st.log" 2>&1 &
pid=$!
for ((i = 0; i < 200; i++)); do [ -s "$d/st/log" ] && grep -q 'asgst-stress: jdk=' "$d/st/log" && break; sleep 0.1; done
sleep 1
kill -TERM $pid
wait $pid; rc=$?
[ $rc = 130 ] && grep -q '^stress: interrupted ' "$d/st.log"
ok $? "SIGTERM to stress/run: exit 130 and a verdict line (exit $rc: $(tail -1 "$d/st.log" | cut -c1-60))"
gone_within "$d/st" 5; ok $? "... its JVM is gone within 5 s"

# --- two campaigns at once on one --out ---
o=$d/twice
ci/campaign --preset "$d/p.preset" --out "$o" --java-home "$JAVA_HOME" --no-build > "$d/t1.log" 2>&1 &
p1=$!
ci/campaign --preset "$d/p.preset" --out "$o" --java-home "$JAVA_HOME" --no-build > "$d/t2.log" 2>&1 &
p2=$!
wait $p2; rc2=$?
kill -INT $p1 2>/dev/null; wait $p1
rc1=$?
# Either may win the race; the other is told, with exit 2.
told() { grep -q "another campaign is starting or running in $o\|already holds a campaign" "$1"; }
{ told "$d/t2.log" && [ $rc2 = 2 ]; } || { told "$d/t1.log" && [ $rc1 = 2 ]; }
ok $? "of two campaigns on the same --out at the same instant, one is told so (exits $rc1, $rc2: $(tail -qn1 "$d/t1.log" "$d/t2.log" | grep -m1 'another\|already' | cut -c1-90))"

# --- repro on the JDK a bucket was found on ---
crash-triage/triage -q --no-symbolize --out "$d/tri" "$d/st" > /dev/null 2>&1 || true
other=""
for j in /usr/lib/jvm/*/; do
  j=${j%/}
  [ -x "$j/bin/java" ] && [ -f "$j/lib/server/libjvm.so" ] && [ "$(readlink -f "$j")" != "$(readlink -f "$JAVA_HOME")" ] && { other=$j; break; }
done
if [ -z "$other" ]; then
  skip "repro runs a bucket on the JDK it was found on" "one JDK on this machine"
else
  stress/run --scenario spin --time 3s --java-home "$other" --out "$d/other" --agent "test_plant=0x10,api=agct,stats=0" > /dev/null 2>&1
  crash-triage/triage -q --out "$d/tri-other" "$d/other" > /dev/null 2>&1
  b=$(ls -d "$d"/tri-other/buckets/*/ | head -1)
  crash-triage/repro "$b" -n 1 --via stress --time 3s > "$d/repro.log" 2>&1
  grep -q "^repro: JDK \($(readlink -f "$other")\|$other\) .*: the one the bucket was found on (libjvm build-id [0-9a-f?]" "$d/repro.log" &&
    [ "$(grep -c '^repro: JDK ' "$d/repro.log")" = 1 ] && [ "$(grep -c 'found on' "$d/repro.log")" = 1 ]
  ok $? "repro runs a bucket on the JDK it was found on, not the default one, and says so once ($(grep -m1 'found on' "$d/repro.log" | cut -c1-140))"
  python3 - "$b/bucket.json" <<'EOF'
import json, sys
p = sys.argv[1]
b = json.load(open(p))
b['jdk']['build_id'] = '0' * 40
json.dump(b, open(p, 'w'))
EOF
  crash-triage/repro "$b" -n 1 > "$d/repro2.log" 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q 'another build): give --java-home' "$d/repro2.log"
  ok $? "a bucket whose JDK was rebuilt: repro stops and says so (exit $rc: $(tail -1 "$d/repro2.log" | cut -c1-100))"
fi
tap_done
