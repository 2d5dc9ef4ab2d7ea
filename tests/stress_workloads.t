#!/usr/bin/env bash
# Smoke test of the Java stress workloads (stress/): every scenario runs briefly and does work,
# deopt drives WhiteBox when it is enabled, worker threads carry the names samplers select by,
# and usage errors exit 2 naming the culprit. Prints TAP lines; exit status 0 only if all pass.
#
# Needs `make stress` first (artifacts under ${BUILD:-build}); uses $JAVA_HOME, or else the JDK
# of `java` on PATH. No timing asserts: each run only has to finish and count ops.
set -u
cd "$(dirname "$0")/.." || exit 1

if [ -z "${JAVA_HOME:-}" ]; then
  javabin=$(command -v java) || { echo "not ok - find a JDK (set JAVA_HOME)"; exit 1; }
  JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$javabin")")")
fi
JAVA="$JAVA_HOME/bin/java"
BUILD=${BUILD:-build}
CLASSES="$BUILD/stress/classes"
WBJAR="$BUILD/stress/wb.jar"
NATIVE="$BUILD/lib/libstressnative.so"
MAIN=asgstfuzz.stress.Main
SCENARIOS="recursion deopt inline exceptions jni classload gc threads blocking vthreads spin park nanotime walkers redefine"
RDAGENT="$BUILD/stress/redefine-agent.jar"

failed=0
pass() { echo "ok - $1"; }
fail() { echo "not ok - $1"; failed=1; }
# Show a run's output as TAP comments so a failure explains itself in the log.
show() { sed 's/^/#   /' "$@" | head -n 40; }

missing=""
for f in "$BUILD/stress/classes.stamp" "$WBJAR" "$NATIVE" "$RDAGENT"; do
  [ -e "$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
  echo "not ok - stress artifacts present (missing:$missing; run 'make stress' first)"
  exit 1
fi
pass "stress artifacts present"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

feature=$("$JAVA" -XshowSettings:properties -version 2>&1 |
  sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1)
feature=${feature:-0}
echo "# JAVA_HOME=$JAVA_HOME (feature release $feature)"

# A small heap keeps the gc scenario's footprint low and its collections frequent; native
# access is enabled explicitly where the JDK warns about System.load (22+). The native library
# is left for Main to find next to the classes, so that lookup is tested too.
JOPTS=(-Xmx256m)
[ "$feature" -ge 22 ] && JOPTS+=(--enable-native-access=ALL-UNNAMED)

stress() {  # stress OUTPREFIX JVM-ARGS... ; writes OUTPREFIX.out/.err, returns the exit status
  local out=$1
  shift
  timeout -k 5 40 "$JAVA" "${JOPTS[@]}" "$@" >"$out.out" 2>"$out.err"
}

ops_of() {  # ops_of SCENARIO THREADS FILE -> M of "scenario=S threads=T ops=M", or empty
  sed -n "s/^scenario=$1 threads=$2 ops=\([0-9][0-9]*\)\$/\1/p" "$3" | head -n 1
}

# --list names every scenario.
if stress "$tmp/list" -cp "$CLASSES" $MAIN --list; then
  bad=""
  for s in $SCENARIOS; do grep -q "^$s " "$tmp/list.out" || bad="$bad $s"; done
  if [ -z "$bad" ]; then pass "--list names all 15 scenarios"; else fail "--list misses:$bad"; show "$tmp/list.out"; fi
else
  fail "--list exits 0"; show "$tmp/list.out" "$tmp/list.err"
fi

# Every scenario: 2 threads for 2 s, exit 0, ops > 0 (vthreads may skip below JDK 21).
# Four JVMs at a time keep the whole test well under a minute even on a busy 2-core machine;
# the runs only have to do some work, so sharing the cores does not matter.
n=0
for s in $SCENARIOS; do
  agent=()
  [ "$s" = redefine ] && agent=("-javaagent:$RDAGENT")   # stress/run adds it the same way
  { stress "$tmp/$s" "${agent[@]}" -cp "$CLASSES" $MAIN --scenario "$s" --threads 2 --duration 2s --quiet
    echo $? >"$tmp/$s.rc"; } &
  n=$((n + 1))
  [ $((n % 4)) -eq 0 ] && wait
done
wait
for s in $SCENARIOS; do
  rc=$(cat "$tmp/$s.rc")
  ops=$(ops_of "$s" 2 "$tmp/$s.out")
  if [ "$rc" -ne 0 ]; then
    fail "scenario $s exits 0 (got $rc)"; show "$tmp/$s.out" "$tmp/$s.err"
  elif [ -z "$ops" ]; then
    fail "scenario $s prints its summary line"; show "$tmp/$s.out" "$tmp/$s.err"
  elif [ "$s" = vthreads ] && [ "$feature" -lt 21 ]; then
    if [ "$ops" -eq 0 ] && grep -q '^scenario vthreads skipped: needs JDK 21+$' "$tmp/$s.out"; then
      pass "scenario vthreads skipped on JDK $feature with ops=0"
    else
      fail "scenario vthreads on JDK $feature prints the skip line and ops=0"; show "$tmp/$s.out"
    fi
  elif [ "$ops" -gt 0 ]; then
    pass "scenario $s runs (ops=$ops)"
  else
    fail "scenario $s does work (ops=$ops)"; show "$tmp/$s.out" "$tmp/$s.err"
  fi
done

# redefine really redefined the class under its workers, and says what it needs without the agent.
n=$(sed -n 's/^redefine: redefinitions=\([0-9][0-9]*\)$/\1/p' "$tmp/redefine.out" | head -n 1)
if [ -n "$n" ] && [ "$n" -ge 1 ]; then pass "redefine redefined RedefineTarget $n times"
else fail "redefine reports redefinitions >= 1"; show "$tmp/redefine.out" "$tmp/redefine.err"; fi
stress "$tmp/rdnone" -cp "$CLASSES" $MAIN --scenario redefine --threads 1 --duration 1s --quiet
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'no java.lang.instrument agent: start the VM with -javaagent:' "$tmp/rdnone.out" "$tmp/rdnone.err"; then
  pass "redefine without the agent jar exits 1 naming the -javaagent it needs"
else
  fail "redefine without the agent jar exits 1 naming the -javaagent it needs (exit $rc)"; show "$tmp/rdnone.out" "$tmp/rdnone.err"
fi

# deopt with our WhiteBox binding on the boot class path.
stress "$tmp/wb" -XX:+UnlockDiagnosticVMOptions -XX:+WhiteBoxAPI -Xbootclasspath/a:"$WBJAR" \
  -cp "$CLASSES" $MAIN --scenario deopt --threads 2 --duration 2s --quiet
rc=$?
calls=$(sed -n 's/^deopt: .* wb_calls=\([0-9][0-9]*\) .*/\1/p' "$tmp/wb.out" | head -n 1)
if [ "$rc" -eq 0 ] && grep -q '^deopt: WhiteBox active (' "$tmp/wb.out"; then
  pass "deopt reports WhiteBox active ($(sed -n 's/^deopt: WhiteBox active (\([^)]*\)).*/\1/p' "$tmp/wb.out"))"
else
  fail "deopt reports WhiteBox active (exit $rc)"; show "$tmp/wb.out" "$tmp/wb.err"
fi
if [ -n "$calls" ] && [ "$calls" -ge 1 ]; then
  pass "deopt performed WhiteBox deoptimizations (wb_calls=$calls)"
else
  fail "deopt performed at least one WhiteBox deoptimization"; show "$tmp/wb.out"
fi
if grep -q "NoSuchMethodError' on register" "$tmp/wb.out"; then
  fail "WhiteBox registration warnings hidden from stdout"
else
  pass "WhiteBox registration warnings hidden from stdout"
fi

# Thread names and known frames: what samplers and top-frame tests rely on.
if [ -x "$JAVA_HOME/bin/jcmd" ]; then
  timeout -k 5 40 "$JAVA" "${JOPTS[@]}" -cp "$CLASSES" $MAIN --scenario spin,park --threads 2 \
    --duration 4s --quiet >"$tmp/sp.out" 2>"$tmp/sp.err" &
  pid=$!
  dump=""
  for _ in 1 2 3 4 5 6; do
    sleep 0.5
    jvm=$(ps -o pid= --ppid "$pid" | tr -d ' ' | head -n 1)   # $! is timeout's pid
    [ -n "$jvm" ] || continue
    dump=$("$JAVA_HOME/bin/jcmd" "$jvm" Thread.print 2>/dev/null) && [ -n "$dump" ] &&
      grep -q 'Park.parkHere' <<<"$dump" && break
  done
  wait "$pid"
  rc=$?
  names=$(grep -oE '^"asgst-worker-[a-z]+-[0-9]+"' <<<"$dump" | sort | tr '\n' ' ')
  want='"asgst-worker-park-0" "asgst-worker-park-1" "asgst-worker-spin-0" "asgst-worker-spin-1" '
  if [ "$names" = "$want" ]; then pass "worker threads named asgst-worker-<scenario>-<n>"
  else fail "worker threads named asgst-worker-<scenario>-<n> (saw: $names)"; fi
  top=$(grep -A2 '^"asgst-worker-spin-0"' <<<"$dump" | sed -n 's/^[[:space:]]*at \([^(]*\)(.*/\1/p' | head -n 1)
  if [ "$top" = asgstfuzz.stress.Spin.spinHot ]; then pass "spin worker's top frame is Spin.spinHot"
  else fail "spin worker's top frame is Spin.spinHot (saw: ${top:-nothing})"; fi
  if grep -A8 '^"asgst-worker-park-0"' <<<"$dump" | grep -q 'at asgstfuzz.stress.Park.parkHere('; then
    pass "park worker sits in Park.parkHere"
  else
    fail "park worker sits in Park.parkHere"
  fi
  if [ "$rc" -eq 0 ] && [ -n "$(ops_of spin 2 "$tmp/sp.out")" ] && [ -n "$(ops_of park 2 "$tmp/sp.out")" ]; then
    pass "two scenarios in one run print one summary line each"
  else
    fail "two scenarios in one run (exit $rc)"; show "$tmp/sp.out" "$tmp/sp.err"
  fi
else
  echo "ok - worker thread names # SKIP no jcmd in $JAVA_HOME"
fi

# Usage errors: exit 2 and a message naming the offending option or value.
usage_case() {  # usage_case LABEL NEEDLE ARGS...
  local label=$1 needle=$2
  shift 2
  timeout -k 5 40 "$JAVA" -cp "$CLASSES" $MAIN "$@" >"$tmp/u.out" 2>"$tmp/u.err"
  local rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$needle" "$tmp/u.err"; then
    pass "$label exits 2 naming '$needle'"
  else
    fail "$label exits 2 naming '$needle' (exit $rc)"; show "$tmp/u.err"
  fi
}
usage_case "unknown option" --bogus-option --scenario spin --bogus-option
usage_case "unknown scenario" no-such-scenario --scenario spin,no-such-scenario
usage_case "malformed --threads" many --scenario spin --threads many
usage_case "malformed --duration" 5parsecs --scenario spin --duration 5parsecs

exit "$failed"
