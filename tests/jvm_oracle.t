#!/usr/bin/env bash
# oracle=1 on a live JVM: the VM's AsyncGetCallTrace walks of threads held in
# native methods agree with JVMTI GetStackTrace up to the excuse rules; a
# stand-in that lies in 1 of 1,000 walks (drop, dup, swap one frame) is caught
# in the right bucket every time, and no rule hides a lie.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
secs=${SCENARIO_SECONDS:-3}
liar=$PWD/build/tests/libstandin_liar.so
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, d))' "$1" "$2" 2>/dev/null || echo -1; }

# 1. The real walker on the park and jni scenarios (held threads).
out="$d/real"
stress/run --scenario park,jni --time "${secs}s" --out "$out" --agent "oracle=1,interval=10s,stats=0" > "$out.verdict" 2>&1
ok $? "oracle=1 on park,jni runs clean ($(cat "$out.verdict"))"
grep 'asgf: oracle' "$out/log" | sed 's/^/# /'
c=$(field "$out/oracle.json" compared)
[ "$c" -ge 1000 ]; ok $? "thousands of walks compared ($c)"
m=$(field "$out/oracle.json" 'sum(mismatches.values())')
[ "$m" -eq 0 ]; ok $? "no mismatches between AsyncGetCallTrace and JVMTI ($m)"
e=$(field "$out/oracle.json" 'excused["native-lineno"]')
[ "$e" -gt 0 ]; ok $? "the native-lineno rule excused the native top frames ($e comparisons)"
[ "$(field "$out/oracle.json" 'equal + equal_by_rule')" -eq "$c" ]; ok $? "every compared walk is equal or equal by a rule"

# 1b. Running threads (inline, exceptions, classload): oracle_graph=1 checks
# every caller/callee pair of their walks against the caller's bytecode.
out="$d/graph"
stress/run --scenario inline,exceptions,classload --time "${secs}s" --out "$out" \
  --agent "oracle=1,oracle_graph=1,interval=10s,stats=0" > "$out.verdict" 2>&1
# Exit 1 is a mismatch record (below), not a fault: the walker is not mutated here.
rc=$?
[ $rc -le 1 ] && ! ls "$out"/hs_err* > /dev/null 2>&1
ok $? "oracle_graph=1 on inline,exceptions,classload runs, the VM alive (exit $rc: $(cat "$out.verdict"))"
grep -E 'asgf: oracle: sampled|rule (class|implicit)' "$out/log" | cut -c1-110 | sed 's/^/# /'
edges=$(field "$out/oracle.json" edges_checked)
[ "$edges" -gt 100 ]; ok $? "walks of running threads had their call edges checked against bytecode ($edges edges)"
m=$(field "$out/oracle.json" 'sum(mismatches.values())')
# Stock AsyncGetCallTrace itself gets a few walks wrong (a compiled method
# caught at its entry, before its frame exists; an inlined frame put in
# the middle of a recursion): a few per run at most, one in 21,732 edges in
# the run that showed it; those are the oracle's findings. A correct walk must never be one, so the bound is one
# mismatch per 1,000 edges checked; any found are shown.
[ "$m" -ge 0 ] && [ $((m * 1000)) -le "$edges" ]
ok $? "caller/callee pairs are calls in the caller's bytecode, or calls the VM makes, but for at most 1 in 1,000 ($m mismatches in $edges edges)"
[ "$m" -eq 0 ] || grep -l '^mismatch:' "$out"/record-*.txt 2>/dev/null | head -1 | xargs -r grep -E '^(mismatch|why|walked):' | head -12 | sed 's/^/# /'

# liar_graph HOW OUT: running threads under oracle_graph=1, the stand-in
# lying (HOW) in 1 of 10 walks; sets $lies.
liar_graph() {
  ASGF_LIAR=$1 ASGF_LIAR_EVERY=10 LD_PRELOAD=$liar stress/run --scenario spin,inline --time "${secs}s" --out "$2" \
    --agent "oracle=1,oracle_graph=1,interval=10s,stats=0" --jvm-flags "-agentpath:$liar" > "$2.verdict" 2>&1
  grep -E 'asgf: oracle: sampled|^liar:' "$2/log" | sed 's/^/# /'
  lies=$(sed -n 's/^liar: \([0-9]*\) lies.*/\1/p' "$2/log")
}

# 2a. The call-graph check catches a dropped frame in walks of running threads.
out="$d/liar-graph"
liar_graph drop "$out"
got=$(field "$out/oracle.json" "mismatches['no-call-edge']")
# A frame dropped between two frames of one method (recursion) leaves a valid
# call graph: most lies, not all, break an edge. The VM's own walks of running
# threads now and then carry a wrong edge themselves (docs/oracle-findings.md,
# finding 3; a clean-clone run here had 60 for 59 lies): up to 2 such are allowed.
[ "${lies:-0}" -ge 2 ] && [ "$got" -le $((lies + 2)) ] && [ $(( got * 2 )) -ge "$lies" ]
ok $? "oracle_graph: dropped frames break call edges ($got no-call-edge mismatches for $lies lies)"

# 2b. A walk cut short (its oldest frame removed) keeps every call edge: the
# oldest-frame check catches it, and no end rule excuses it.
out="$d/liar-cut"
liar_graph cut "$out"
got=$(field "$out/oracle.json" "mismatches['wrong-oldest']")
other=$(field "$out/oracle.json" "sum(mismatches.values()) - mismatches['wrong-oldest']")
checked=$(field "$out/oracle.json" oldest_checked)
rec=$(grep -l '^mismatch: wrong-oldest$' "$out"/record-*.txt 2>/dev/null | head -1)
# A lie may land on one of the sampler's own walks (interval=10s: a few), and
# 17.0.21's own AGCT now and then ends a walk early by itself (README, the
# oldest-frame check): so about as many, not exactly as many, as the cuts. A
# cut keeps every edge, so a mismatch of another kind is the VM's own wrong
# edge (finding 3, as in 2a): up to 2 are allowed.
walks=$(json_field "$out/summary.json" walks)
[ "${lies:-0}" -ge 2 ] && [ "$got" -ge 1 ] && [ $((got + walks)) -ge "$lies" ] && [ $((got * 2)) -le $((lies * 3)) ] &&
  [ "$other" -le 2 ] && grep -q '^repro: stress/run --scenario [a-z]* .*oracle_graph=1' "$rec"
ok $? "oracle_graph: walks cut short are wrong-oldest mismatches ($got for $lies cuts, $walks sampler walks, $checked oldest frames checked, $other of other kinds)"

# 2. The lying stand-in, once per kind of lie.
for lie in drop:dropped dup:extra swap:swapped; do
  how=${lie%%:*} kind=${lie#*:} out="$d/liar-$how"
  ASGF_LIAR=$how LD_PRELOAD=$liar stress/run --scenario park --time "${secs}s" --out "$out" \
    --agent "oracle=1,interval=10s,stats=0" --jvm-flags "-agentpath:$liar" > "$out.verdict" 2>&1
  lies=$(sed -n 's/^liar: \([0-9]*\) lies.*/\1/p' "$out/log")
  grep -E 'asgf: oracle:|^liar:' "$out/log" | sed 's/^/# /'
  got=$(field "$out/oracle.json" "mismatches['$kind']")
  other=$(field "$out/oracle.json" "sum(mismatches.values()) - mismatches['$kind']")
  walks=$(json_field "$out/summary.json" walks)
  [ "${lies:-0}" -ge 1 ]; ok $? "$how: the stand-in lied (${lies:-none})"
  # A lie can land on one of the sampler's few walks (interval=10s) instead of an
  # oracle walk; every other lie must be reported.
  [ "$got" -le "${lies:-0}" ] && [ $(( ${lies:-0} - got )) -le "$walks" ] && [ "$got" -ge 1 ]
  ok $? "$how: every lie on an oracle walk is a '$kind' mismatch ($got of $lies lies, $walks sampler walks)"
  [ "$other" -eq 0 ]; ok $? "$how: no mismatch of another kind ($other)"
  rec=$(ls "$out"/record-*.txt 2>/dev/null | head -1)
  grep -q "^mismatch: $kind\$" "$rec" && grep -q '^repro: stress/run --scenario park ' "$rec" && [ "$(grep -c '^walked: ' "$rec")" -gt 0 ]
  ok $? "$how: the record names the kind, both stacks and a reproducer ($rec)"
  crash-triage/triage -q --out "$d/triage-$how" "$out" > "$d/triage-$how.txt" 2>&1
  top=$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["buckets"]; print(len(b), b[0]["count"], b[0]["title"])' \
        "$d/triage-$how/report.json" 2>/dev/null)
  echo "# triage: $top"
  want="MISMATCH-${kind^^} in java.util.concurrent.locks.LockSupport.parkNanos"
  [ "$top" = "1 $got $want" ]; ok $? "$how: triage puts all $got in one bucket '$want'"
done

# 2b. The consistency check of the sampler's own walks (every walk, mutated or
# not): the real walker's unmutated walks all fit their methods; a stand-in
# whose walks name a bci past a method's end, or a method that does not
# exist, in 1 of 10 walks is caught every time, in one bucket per shape.
out="$d/check-real"
stress/run --scenario spin,inline,deopt --time "${secs}s" --out "$out" --agent "oracle=1,interval=1ms,stats=0" > "$out.verdict" 2>&1; rc=$?
# The held comparison may catch the VM's documented early end of a walk at
# DeoptKernel.hot (docs/oracle-findings.md, about 1 run in 4 here): that
# record is allowed, any other record or any fault is not.
other=$(grep -L -e '^mismatch: dropped' "$out"/record-*.txt 2>/dev/null | wc -l)
early=$(grep -l '^method: Lasgstfuzz/stress/DeoptKernel;\.hot(' "$out"/record-*.txt 2>/dev/null | wc -l)
n=$(ls "$out"/record-*.txt 2>/dev/null | wc -l)
[ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ "$(json_field "$out/summary.json" faults)" -eq 0 ] && [ "$other" -eq 0 ] && [ "$early" -eq "$n" ]; }
ok $? "oracle=1 with the sampler at 1 ms runs without a fault, its only records the early end at DeoptKernel.hot ($n records, $early of them that one; $(cat "$out.verdict"))"
grep 'consistency' "$out/log" | sed 's/^/# /'
w=$(field "$out/oracle.json" 'consistency["walks"]')
bad=$(field "$out/oracle.json" 'consistency["bad-method"] + consistency["bad-bci"] + consistency["bad-type"]')
[ "$w" -ge 1000 ] && [ "$bad" -eq 0 ]; ok $? "unmutated walks of the real VM are all consistent ($w walks, $bad inconsistent)"
for lie in bci:bad-bci:wrong-bci:"caller frame, bci past the method's end" method:bad-method:wrong-method:"no such method, says JVMTI"; do
  IFS=: read -r how kind held shape <<< "$lie"
  out="$d/check-$how"
  ASGF_LIAR=$how ASGF_LIAR_EVERY=10 LD_PRELOAD=$liar stress/run --scenario spin --time "${secs}s" --out "$out" \
    --agent "oracle=1,interval=1ms,stats=0" --jvm-flags "-agentpath:$liar" > "$out.verdict" 2>&1
  grep -E 'consistency|^liar:' "$out/log" | sed 's/^/# /'
  lies=$(sed -n 's/^liar: \([0-9]*\) lies.*/\1/p' "$out/log")
  got=$(field "$out/oracle.json" "consistency['$kind']")
  # a lie on a walk of a held thread is the held-walk check's (spin holds almost none)
  heldgot=$(field "$out/oracle.json" "mismatches['$held']")
  lost=$(field "$out/oracle.json" 'consistency["not_queued"]')
  other=$(field "$out/oracle.json" "consistency['bad-method'] + consistency['bad-bci'] + consistency['bad-type'] - consistency['$kind'] + sum(mismatches.values()) - mismatches['$held']")
  [ "${lies:-0}" -ge 10 ] && [ "$got" -ge 1 ] && [ $((got + heldgot + lost)) -eq "$lies" ] && [ "$other" -eq 0 ]
  ok $? "$how: every lie is a '$kind' (or, on a held walk, '$held') mismatch ($got + $heldgot for $lies lies, $lost not queued, $other of other kinds)"
  rec=$(grep -l "^mismatch: $kind\$" "$out"/record-*.txt 2>/dev/null | head -1)
  grep -q "^shape: $shape\$" "$rec" && grep -q '^case: [0-9a-f]' "$rec" && grep -q '^repro: stress/run --scenario spin .*mutate=corpus:' "$rec"
  ok $? "$how: the record names the shape and carries the case that walked ($rec)"
  crash-triage/triage -q --out "$d/triage-check-$how" "$out" > "$d/triage-check-$how.txt" 2>&1
  top=$(python3 -c 'import json,sys; b=[x for x in json.load(open(sys.argv[1]))["buckets"] if x["title"].startswith("MISMATCH-B")]; print(len(b), b[0]["count"], b[0]["title"])' \
        "$d/triage-check-$how/report.json" 2>/dev/null)
  echo "# triage: $top"
  [ "$top" = "1 $got MISMATCH-${kind^^} in $shape" ]; ok $? "$how: triage puts all $got in one bucket 'MISMATCH-${kind^^} in $shape'"
done

# 3. A rules file with a bad line is refused by file and line.
printf '# ok\nnative-lineno lineno -3 -1 why: native\nno-why lineno 1 2\n' > "$d/bad-rules.txt"
out="$d/bad-rules"
stress/run --scenario park --time 2s --out "$out" --agent "oracle=1,oracle_rules=$d/bad-rules.txt" > "$out.verdict" 2>&1
grep -q "oracle: $d/bad-rules.txt line 3: rule without 'why: TEXT'" "$out/log"
ok $? "a rule without a why is refused with file and line ($(grep -m1 'oracle:' "$out/log"))"
tap_done
