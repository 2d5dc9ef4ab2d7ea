# Shared helpers for tests/*.t shell scripts: TAP output and the JDK.
# Source it from the repository root.
set -u
: "${JAVA_HOME:=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
tap_n=0
tap_failed=0
ok() {   # ok CONDITION-STATUS DESCRIPTION
  tap_n=$((tap_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); fi
}
# signature_is FILE PATTERN DESCRIPTION: triage --signature's line for FILE ends in
# "# PATTERN" (a grep pattern); the description shows the line it printed.
signature_is() {
  local out
  out=$(crash-triage/triage --signature "$1" 2>&1)
  echo "$out" | grep -q "# $2\$"
  ok $? "$3 ($(echo "$out" | tail -1))"
}
# skip DESCRIPTION WHY: a check that cannot run here, counted as skipped, not passed.
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
tap_done() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
# Sets $d to a scratch directory removed at exit (KEEP=1 keeps it).
make_scratch() {
  d=$(mktemp -d /tmp/asgf-test.XXXXXX)
  [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$d"' EXIT
}

PROBE="-agentpath:$BUILD/tests/libprobe.so"
PROBE_CP="-cp $BUILD/tests/jvm"
# run_tap NAME CMD...: runs a command that prints TAP lines; if it exits
# non-zero without a "not ok", that is reported as a failure of NAME.
run_tap() {
  local name=$1 out rc
  shift
  out=$("$@" 2>&1); rc=$?
  printf '%s\n' "$out" | grep -v '^1\.\.'
  if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
    tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1))
    echo "not ok $tap_n - $name exited with status $rc"
  fi
  tap_n=$((tap_n + $(printf '%s\n' "$out" | grep -cE '^(not )?ok')))
}

# check_fault_in_handler JAVA LABEL DIR [PRELOAD]: a guarded call from a
# signal handler on a thread in Java code faults, and writing its record
# faults again inside the guard's handler (tests/jvm/probe_agent.c). The
# guard must say so and pass it on: the JVM dies with an hs_err naming the
# record writer, not silently by the kernel's default action. Two checks.
check_fault_in_handler() {
  local java=$1 label=$2 dir=$3 pre=${4:-} rc hs
  mkdir -p "$dir"
  LD_PRELOAD="$pre" timeout 120 "$java" -XX:ErrorFile="$dir/hs_err_pid%p.log" \
    $PROBE=api=agct,out=$dir $PROBE_CP Probe fault-in-handler > "$dir/out" 2>&1
  rc=$?
  [ $rc -ne 0 ] && grep -q "a fault inside the guard's fault handler: passed on" "$dir/out" &&
    ! grep -q "JVM survived" "$dir/out"
  ok $? "$label: a fault inside the guard's handler is said on stderr and ends the JVM (exit $rc)"
  hs=$(ls "$dir"/hs_err_pid*.log 2>/dev/null | head -1)
  [ -n "$hs" ] && grep -q '^C  \[libprobe.so+0x[0-9a-f]*\]  record_fault' "$hs"
  ok $? "$label: the JVM wrote an hs_err whose stack has the record writer's fault ($(basename "${hs:-no hs_err}"))"
}

AGENT="$BUILD/lib/libasgfagent.so"
# run_stress OUT AGENT_OPTS SCENARIOS SECONDS [THREADS]: runs the stress
# workload under the agent; stdout+stderr go to OUT/log, the exit status is
# returned. The agent writes OUT/summary.json on a clean exit.
run_stress() {
  local out=$1 opts=$2 scen=$3 secs=$4 threads=${5:-2}
  mkdir -p "$out"
  # the redefine scenario needs its java.lang.instrument agent, as stress/run gives it
  local extra=()
  [ "$scen" = redefine ] && extra=("-javaagent:$BUILD/stress/redefine-agent.jar")
  timeout $((secs + 60)) "$JAVA" "${extra[@]}" -XX:ErrorFile="$out/hs_err_pid%p.log" \
    "-agentpath:$AGENT=out=$out,threads=asgst-worker-*,stats=0,$opts" \
    -Dasgst.stress.native="$BUILD/lib/libstressnative.so" -cp "$BUILD/stress/classes" \
    asgstfuzz.stress.Main --scenario "$scen" --threads "$threads" --duration "${secs}s" --quiet > "$out/log" 2>&1
}
# build_id FILE: an ELF file's GNU build-id in hex, empty if it has none.
build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'; }
# knob_planted LOG ENTRY@CONTEXT: how many faults and hangs the stand-in's
# knob planted there, from its shared log (tests/jvm/fault_knob.h); empty if none.
knob_planted() {
  python3 tests/jvm/knob_log.py "$1" 2>/dev/null | sed -n "s/^$2 calls [0-9]* planted //p"
}
# json_field FILE KEY: a number from summary.json.
json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>/dev/null || echo -1; }

# write_preset FILE KEY=VALUE... <<'EOF' (job groups) EOF: a short campaign's
# preset, its [campaign] timing written from the words, its groups from stdin.
write_preset() {
  local f=$1 kv
  shift
  { echo '[campaign]'; for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}"; done; cat; } > "$f"
}
