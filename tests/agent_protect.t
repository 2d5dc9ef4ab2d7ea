#!/usr/bin/env bash
# Crash protection in the stress agent: a planted fault inside libjvm is
# caught and recorded with its case bytes (protect=1) or kills the VM with
# an hs_err in libjvm and the in-flight case on disk (protect=0); aimed
# random mutation runs without killing the VM; recorded faults carry
# valid cases.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
for how in primary chained; do
  flag=""; [ $how = chained ] && flag=--jsig
  out="$d/plant-$how"
  stress/run $flag --scenario spin --time 3s --out "$out" --agent "api=agct,test_plant=0x10,stats=0" > "$out.v" 2>&1
  [ $? -eq 1 ]; ok $? "$how: planted faults are caught, verdict 'faults' ($(cat "$out.v"))"
  rec=$(ls "$out"/record-*.txt 2>/dev/null | head -1)
  [ -n "$rec" ] && grep -q '^si_addr: 0x00000000000000[01]' "$rec" && grep -q '^pc: .*libjvm.so+0x' "$rec"
  ok $? "$how: the record has the planted address and a pc in libjvm"
  hex=$(sed -n 's/^case: //p' "$rec" 2>/dev/null)
  python3 -c 'import sys; open(sys.argv[2],"wb").write(bytes.fromhex(sys.argv[1]))' "$hex" "$d/rec.case" 2>/dev/null &&
    $BUILD/bin/casetool check "$d/rec.case"; ok $? "$how: the record's case bytes are a valid case"
  n=$(ls "$out"/record-*.txt | wc -l); f=$(json_field "$out/summary.json" faults)
  [ "$n" -lt 5 ] && [ "$f" -gt 100 ]; ok $? "$how: $f faults of one (pc, case) made $n record file(s), not one each"

  out="$d/crash-$how"
  stress/run $flag --scenario spin --time 3s --out "$out" --agent "api=agct,test_plant=0x10,protect=0,stats=0" > "$out.v" 2>&1
  [ $? -eq 2 ]; ok $? "$how, protect=0: verdict 'crashed'"
  hs=$(ls "$out"/hs_err_pid*.log 2>/dev/null | head -1)
  grep -A1 '^# Problematic frame:' "$hs" 2>/dev/null | grep -q 'libjvm.so'; ok $? "$how, protect=0: hs_err problematic frame in libjvm"
  tid=$(sed -n 's/^# .*SIGSEGV.*tid=\([0-9]*\).*/\1/p' "$hs" | head -1)
  inf="$out/inflight-${hs##*hs_err_pid}"; inf="${inf%.log}-$tid.bin"
  [ -f "$inf" ] && head -c 8 "$inf" | grep -q ASGFINF1; ok $? "$how, protect=0: the crashing thread's in-flight case is on disk ($(basename "$inf"))"
done

# A sampled thread is _thread_in_Java: HotSpot's own handler takes any fault
# on the armed poll page for a safepoint poll in compiled code and aborts on a
# guarantee. The guard must keep such a fault (seen with mutate=near on 17).
out="$d/poll"
stress/run --scenario spin --time 3s --out "$out" --jvm-flags "-Xlog:os=info:file=$d/poll-os.log" \
  --agent "api=agct,test_plant=poll,stats=0" > "$out.v" 2>&1
[ $? -eq 1 ]; ok $? "a guarded write to the armed safepoint poll page is caught, verdict 'faults' ($(cat "$out.v"))"
page=$(sed -n 's/.*bad (protected) page:0x0*\([0-9a-f]*\),.*/\1/p' "$d/poll-os.log" 2>/dev/null)
rec=$(ls "$out"/record-*.txt 2>/dev/null | head -1)
[ -n "$page" ] && grep -q "^si_addr: 0x0*${page%???}" "$rec" 2>/dev/null
ok $? "the record's si_addr lies in the page the JVM logged as its armed poll page (0x$page)"

out="$d/random"
stress/run --scenario spin,recursion,inline,deopt --time "${MUTATE_SECONDS:-20}s" --out "$out" \
  --agent "api=agct,mutate=random,protect=1,stats=0" > "$out.v" 2>&1; rc=$?
[ $rc -le 1 ]; ok $? "mutate=random,protect=1: the VM survives ($(cat "$out.v"))"
out="$d/near"
stress/run --scenario spin,recursion,inline,deopt --time "${MUTATE_SECONDS:-20}s" --out "$out" \
  --agent "api=agct,mutate=near,protect=1,stats=0" > "$out.v" 2>&1; rc=$?
[ $rc -le 1 ]; ok $? "mutate=near,protect=1: the VM survives ($(cat "$out.v"))"
a=$(json_field "$out/summary.json" aimed); u=$(json_field "$out/summary.json" unaimed)
[ "$a" -gt 0 ]; ok $? "mutate=near aims at samples in Java code ($a aimed, $u left unmutated)"
for rec in "$d"/random/record-*.txt "$d"/near/record-*.txt; do
  [ -f "$rec" ] || continue
  grep -q '^case: 41534746' "$rec"; ok $? "real fault record $(basename "$rec") carries its case: $(grep -m1 '^pc:' "$rec")"
done
tap_done
