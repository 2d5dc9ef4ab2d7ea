#!/usr/bin/env bash
# ci/premerge and the oracle: a new MISMATCH bucket (here from the lying
# stand-in, tests/jvm/standin_liar.c) is reported but passes by default, and
# fails the check with --mismatch-fails.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
liar=$PWD/build/tests/libstandin_liar.so
write_preset "$d/oracle.preset" budget=12s job_time=6s min_attempt=3s rounds=1 triage_every=5s <<'EOF2'

[stress oracle]
scenario = park
interval = 10s
agent = oracle=1
EOF2
: >"$d/known-empty.txt"
export ASGF_LIAR=drop LD_PRELOAD=$liar JAVA_TOOL_OPTIONS="-agentpath:$liar"
ci/premerge --preset "$d/oracle.preset" --known "$d/known-empty.txt" --out "$d/off" --no-build -q -j 1 >"$d/off.out" 2>&1
rc=$?
sed 's/^/# /' "$d/off.out" | grep -i 'premerge:' | head -5
ok $rc "without --mismatch-fails a new mismatch bucket does not fail the check (exit $rc)"
grep -q '^premerge: new mismatch bucket (not failing without --mismatch-fails): [0-9a-f]* MISMATCH-DROPPED in ' "$d/off.out"
ok $? "it is printed as a new mismatch bucket"
ci/premerge --preset "$d/oracle.preset" --known "$d/known-empty.txt" --out "$d/on" --no-build -q -j 1 --mismatch-fails \
  >"$d/on.out" 2>&1
rc=$?
sed 's/^/# /' "$d/on.out" | grep -i 'premerge:' | head -5
ok $(( rc != 1 )) "with --mismatch-fails it fails the check (exit $rc)"
grep -q 'title: MISMATCH-DROPPED in java.util.concurrent.locks.LockSupport.parkNanos' "$d/on.out"
ok $? "the failing bucket is the dropped frame under LockSupport.parkNanos"
tap_done
