#!/usr/bin/env bash
# Every LTS HotSpot that ci/install-jdk put here: the agent walks it under
# mutation with faults caught, a fault inside the guard's own handler ends
# in an hs_err with libjsig, triage names its libjvm functions from its
# -dbg symbols, and the smoke campaign runs on it. A JDK that is not
# installed is a skip naming the command that installs it.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
for v in 11 21 25-debian; do
  case $v in
    11) h=/usr/lib/jvm/java-11-openjdk-$arch ;;
    *) h=/opt/asgf-jdk/jdk$v ;;
  esac
  if [ ! -x "$h/bin/java" ]; then
    skip "JDK $v: stress, a fault in the guard's handler, symbolized triage and the smoke campaign" \
      "JDK $v not installed (ci/install-jdk $v)"
    continue
  fi
  s=$d/s$v
  stress/run --java-home "$h" --scenario spin,inline --time 8s --out "$s" --agent mutate=near >"$s.v" 2>&1
  rc=$?
  walks=$(json_field "$s/summary.json" walks)
  [ $rc -le 1 ] && [ "$walks" -gt 0 ]
  ok $? "JDK $v: the agent walks under mutation, every fault caught (exit $rc: $(tail -1 "$s.v" | cut -c1-100))"
  # chained (libjsig): the JVM's handler sees the fault first and calls ours
  check_fault_in_handler "$h/bin/java" "JDK $v, chained" "$s-nested" "$h/lib/libjsig.so"
  crash-triage/triage -q --out "$s-t" "$s" >/dev/null 2>&1
  titles=$(python3 -c 'import json,sys; print("; ".join(b["title"] for b in json.load(open(sys.argv[1]))["buckets"]))' \
    "$s-t/report.json" 2>/dev/null)
  if [ -z "$titles" ]; then
    skip "JDK $v: triage names libjvm functions" "no fault in this short run"
  else
    case $titles in *::*) r=0 ;; *) r=1 ;; esac
    ok $r "JDK $v: triage names libjvm functions from its symbols ($(echo "$titles" | cut -c1-120))"
  fi
  make -s campaign PRESET=smoke JAVA_HOME="$h" OUT="$d/c$v" >"$d/c$v.log" 2>&1
  rc=$?
  jv=$(json_field "$d/c$v/report.json" java_version)
  # It ran: its jobs executed cases or walks (a campaign whose every job died at start-up still writes a report).
  ex=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["totals"]["execs"]))' "$d/c$v/report.json" 2>/dev/null)
  [ $rc -le 2 ] && [ -f "$d/c$v/report.html" ] && [ "${ex:-0}" -gt 0 ] && case $jv in *"${v%-debian}".*) true ;; *) false ;; esac
  ok $? "JDK $v: make campaign PRESET=smoke runs on it (exit $rc, ${ex:-no} executions, $(echo "$jv" | head -1); $(grep -A2 '^## Throughput' "$d/c$v/report.md" 2>/dev/null | tail -1 | cut -c1-90))"
  # A JDK in a root: afl-fuzz must still see the harness's persistent marker (fuzz/afl.c); started
  # as the root's runner script it forked a new JVM per input: 9 inputs a second.
  if [ -f "$h/asgf-root" ]; then
    # Its buckets name the handle, which runs it, not the root's own path, which is nothing here.
    python3 - "$d/c$v" "$h" <<'EOF' >"$d/c$v.jdks" 2>&1
import glob, json, os, sys
homes = {(json.load(open(f)).get('jdk') or {}).get('home') for f in glob.glob(sys.argv[1] + '/triage/buckets/*/bucket.json')}
print(sorted(map(str, homes)))
sys.exit(3 if not homes else 0 if all(h and os.path.realpath(h) == os.path.realpath(sys.argv[2]) for h in homes) else 1)
EOF
    r=$?
    if [ $r = 3 ]; then
      skip "JDK $v in its root: the smoke campaign's buckets were found on its handle" "no bucket in this smoke campaign"
    else
      ok $r "JDK $v in its root: the smoke campaign's buckets were found on its handle ($(tail -1 "$d/c$v.jdks" | cut -c1-120))"
    fi
    # Its walker coverage names source lines: the root's libjvm and its -dbg file, not the
    # host's file at the same path (another JDK or nothing).
    nsrc=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1])).get("walker") or {}; print(len(w.get("source_lines") or {}), w.get("sysroot"), w.get("reached", 0))' "$d/c$v/report.json" 2>/dev/null)
    if [ "${nsrc##* }" = 0 ] || [ -z "$nsrc" ]; then
      skip "JDK $v in its root: walker coverage names source lines through the root" "no walker coverage recorded (${nsrc:-no report})"
    else
      [ "${nsrc%% *}" -gt 0 ] 2>/dev/null && [ "$(echo "$nsrc" | cut -d' ' -f2)" = "$(cat "$h/asgf-root")" ]
      ok $? "JDK $v in its root: the campaign report's walker coverage names source lines through the root (files, root, blocks: $nsrc)"
    fi
    # A build is never linked against it: its libjvm needs the root's C library.
    b=$(python3 -c 'import sys; sys.path.insert(0, "ci"); from cilib import preflight; print(preflight.build_jdk(sys.argv[1]))' "$h")
    make -s check-java JAVA_HOME="$h" >/dev/null 2>"$d/mk$v.err"; rc=$?
    [ "$b" != "$h" ] && [ -f "$b/include/jni.h" ] && [ $rc = 2 ] && grep -q 'is a JDK in a root' "$d/mk$v.err"
    ok $? "JDK $v in its root: campaigns build with $b; make with it as JAVA_HOME says why not (exit $rc)"
    JAVA_HOME=$h fuzz/run-afl --duration 12s --out "$d/afl$v" >"$d/afl$v.log" 2>&1
    rc=$? n=$(sed -n 's/^execs_done *: //p' "$d/afl$v"/afl/*/fuzzer_stats 2>/dev/null | head -1)
    recs=$(ls "$d/afl$v"/records/record-*.txt 2>/dev/null | wc -l)
    unrooted=$(grep -L "^sysroot: $(cat "$h/asgf-root")\$" "$d/afl$v"/records/record-*.txt 2>/dev/null | wc -l)
    [ $rc = 0 ] && grep -q 'Persistent mode binary detected' "$d/afl$v.log" && [ "${n:-0}" -ge 1000 ]
    ok $? "JDK $v in its root: AFL++ runs the harness persistent, one JVM for many inputs (exit $rc, ${n:-no} executions in 12 s)"
    if [ "$recs" = 0 ]; then
      skip "JDK $v in its root: AFL++'s crash records name the root" "no fault in 12 s"
    else
      [ "$unrooted" = 0 ]; ok $? "JDK $v in its root: AFL++'s crash records name the root ($recs records, $unrooted not)"
    fi
  fi
done
# Virtual threads run on carriers the scheduler names (ForkJoinPool-1-worker-N):
# the agent walks those as well as the workload's own two threads.
h=/opt/asgf-jdk/jdk21
if [ ! -x "$h/bin/java" ]; then
  skip "JDK 21: the carriers of virtual threads are walked" "JDK 21 not installed (ci/install-jdk 21)"
else
  stress/run --java-home "$h" --scenario vthreads --threads 2 --time 6s --out "$d/vt" --agent mutate=near >"$d/vt.v" 2>&1
  rc=$? tw=$(json_field "$d/vt/summary.json" threads_walked)
  [ $rc -le 1 ] && [ "$tw" -ge 3 ]
  ok $? "JDK 21: vthreads walks its 2 workers and the carriers too ($tw threads walked, exit $rc)"
  # A return address forged to the continuation return barrier: 21's safe_for_sender hands the
  # platform thread's missing continuation entry on unchecked (corpus/reproducers).
  r=corpus/reproducers/jdk21-continuation-bottom-sender-f0fc58
  crash-triage/repro "$r.case" --java-home "$h" --via stress --scenario spin --time 5s --protect 0 -n 1 --agent vthread_warmup=0 \
    --expect f0fc587d958e >"$d/cb.out" 2>&1
  rc=$?
  [ $rc = 0 ] && grep -q 'REPRODUCED (same signature)' "$d/cb.out"
  ok $? "JDK 21: region cont_barrier meets continuation_bottom_sender's unchecked entry, hs_err with protection off (exit $rc)"
  # By default the agent enters a continuation first (src/vm_warmup.h): the same case then walks
  # on, and a protected run does not hang on the static the fault would have left half made.
  mkdir -p "$d/cbcase" && cp "$r.case" "$d/cbcase/"
  stress/run --java-home "$h" --scenario spin --time 5s --out "$d/cbw" --agent "mutate=corpus:$d/cbcase" >"$d/cbw.v" 2>&1
  rc=$? walks=$(json_field "$d/cbw/summary.json" walks)
  [ $rc = 0 ] && [ "${walks:-0}" -gt 1000 ]
  ok $? "JDK 21: after the virtual-thread warm-up the case walks without a fault ($walks walks, exit $rc)"
fi
tap_done
