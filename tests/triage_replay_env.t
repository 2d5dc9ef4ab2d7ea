#!/usr/bin/env bash
# crash-triage replays a fuzzer artifact with the harness settings of the run that
# found it (replay.env beside it or up to three directories above, as fuzz/run-*
# and ci/job write it); a replay.env it cannot read is refused naming its line; a
# replay that failed to run (the JVM did not start, a time-out) is tried again by
# the next runs, a bounded number of times; --no-replay leaves artifacts to a later run.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export TRIAGE_REPLAY=/nonexistent/replay
unset ASGF_TESTMODE
T=crash-triage/triage
# fake replay: acts on ASGF_TESTMODE as the run's settings give it; logs each call
cat >"$d/fake" <<SH
#!/bin/sh
echo "\$(basename "\$3") mode=\${ASGF_TESTMODE:-unset} out=\${ASGF_OUT:-unset}" >>"$d/calls"
case "\${ASGF_TESTMODE:-}" in
  crash) ;;
  nojvm) exit 3 ;;
  *) exit 0 ;;
esac
{ echo "ASGF-RECORD 1"; echo "pid: 4242"; echo "tid: 4243"; echo "thread: replay"
  echo "backend: agct"; echo "entry: test"; echo "mode: direct"
  echo "signal: 11 SIGSEGV"; echo "si_code: 1"; echo "si_addr: 0x18"
  echo "pc: 0x00007f0000001000 /nonexistent/libfake.so+0x1000"
  echo "frame: 0 0x00007f0000001000 /nonexistent/libfake.so+0x1000"
  echo "case: \$(od -An -tx1 "\$3" | tr -d ' \n')"; echo END; } >"\$2/record-4242-4243-0.txt"
SH
chmod +x "$d/fake"
# artifact DIR NAME N: a valid case (one register record), N makes its bytes differ
artifact() { mkdir -p "$1"; printf 'ASGF\001\000\000\001\000\000\000\000\000\000\000\000\001\002\000\000%b\000\000\000\000\000\000\000' "\\$(printf %03o "$3")" >"$1/$2"; }
calls() { local n; n=$(grep -c "^$1 " "$d/calls" 2>/dev/null); echo "${n:-0}"; }
status() { python3 -c 'import json,sys,os; e=json.load(open(sys.argv[1]+"/index.json"))["files"][os.path.abspath(sys.argv[2])]; print(e["status"], e.get("replay_failures", 0))' "$d/out" "$1"; }
A=crash-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa

artifact "$d/tree/a" $A 1
printf '# written by fuzz/replay-env.sh\nASGF_OUT=/nonexistent/out\nASGF_TESTMODE=crash\n' >"$d/tree/a/replay.env"
artifact "$d/tree/b/out/afl/main/crashes" "id:000000,sig:06,src:000000" 2
printf 'ASGF_TESTMODE=crash\n' >"$d/tree/b/out/replay.env"
# an AFL++ session resumed with other settings: afl-fuzz kept the earlier crashes as
# crashes.DATE/, and run-afl left them the earlier replay.env
artifact "$d/tree/r/out/afl/main/crashes.2026-11-29-02:43:17" "id:000001,sig:06,src:000003" 6
printf 'ASGF_TESTMODE=crash\n' >"$d/tree/r/out/afl/main/crashes.2026-11-29-02:43:17/replay.env"
printf 'ASGF_TESTMODE=nojvm\n' >"$d/tree/r/out/replay.env"
artifact "$d/tree/c" crash-cccccccccccccccccccccccccccccccccccccccc 3
printf 'ASGF_TESTMODE=crash\nTESTMODE=crash\n' >"$d/tree/c/replay.env"
artifact "$d/tree/e" crash-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee 5
printf 'ASGF_TESTMODE=nojvm\n' >"$d/tree/e/replay.env"

$T --out "$d/out" --replay-cmd "$d/fake" "$d/tree" >"$d/log1" 2>&1
grep -q "^$A mode=crash out=unset" "$d/calls" && [ "$(status "$d/tree/a/$A")" = "report 0" ]
ok $? "an artifact replays with its replay.env's settings, not ASGF_OUT ($(grep "^$A" "$d/calls" | head -1))"
grep -q "^id:000000,sig:06,src:000000 mode=crash" "$d/calls"
ok $? "an AFL++ artifact finds the replay.env three directories up"
grep -q "^id:000001,sig:06,src:000003 mode=crash" "$d/calls"
ok $? "an earlier AFL++ session's crash (crashes.DATE/) replays with the settings left beside it ($(grep '^id:000001' "$d/calls" | head -1))"
grep -q "tree/c/replay.env:2: not ASGF_NAME=VALUE: 'TESTMODE=crash'" "$d/log1" && [ "$(calls crash-cccc*)" = 0 ] &&
  [ "$(status "$d/tree/c/crash-cccccccccccccccccccccccccccccccccccccccc")" = "invalid 1" ]
ok $? "a bad replay.env line is named with its position and nothing is replayed ($(grep -o 'replay.env:[^;]*' "$d/log1" | head -1))"
[ "$(calls crash-eeee*)" = 1 ] && [ "$(status "$d/tree/e/crash-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")" = "invalid 1" ] &&
  grep -q 'the replay failed (replay exit 3)' "$d/log1"
ok $? "a replay whose JVM did not start is stored as failed once"

# The replay.env fixed: the next run takes the artifact up again.
printf 'ASGF_TESTMODE=crash\n' >"$d/tree/c/replay.env"
$T --out "$d/out" --replay-cmd "$d/fake" "$d/tree" >"$d/log2" 2>&1
[ "$(status "$d/tree/c/crash-cccccccccccccccccccccccccccccccccccccccc")" = "report 0" ]
ok $? "with its replay.env mended, the next run replays it"
$T -q --out "$d/out" --replay-cmd "$d/fake" "$d/tree" >/dev/null 2>&1
$T -q --out "$d/out" --replay-cmd "$d/fake" "$d/tree" >/dev/null 2>&1
[ "$(calls crash-eeee*)" = 3 ] && [ "$(status "$d/tree/e/crash-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")" = "invalid 3" ]
ok $? "a replay that keeps failing is tried by three runs, then left ($(calls crash-eeee*) calls over four runs)"
[ "$(calls $A)" = 1 ]; ok $? "an artifact that replayed is not replayed again"

# An artifact whose replay ran and did not fault is no damaged file: counted and listed apart.
artifact "$d/tree-n/n" crash-dddddddddddddddddddddddddddddddddddddddd 9
printf 'ASGF_TESTMODE=clean\n' >"$d/tree-n/n/replay.env"
$T --out "$d/out-n" --replay-cmd "$d/fake" "$d/tree-n" >"$d/logn" 2>&1
grep -q ' 0 invalid; 1 fuzzer artifact did not fault again on replay; ' "$d/logn" &&
  grep -q '^## Fuzzer artifacts that did not fault again on replay$' "$d/out-n/report.md" &&
  grep -q 'crash-dddd.*did not crash on replay' "$d/out-n/report.md" && ! grep -q 'Detected but not parsable' "$d/out-n/report.md" &&
  grep -q 'unparsable; 1 fuzzer artifact did not fault again on replay' "$d/out-n/report.html"
ok $? "an artifact that did not fault on replay is not counted invalid ($(grep -o '[0-9]* invalid[^;]*;[^;]*' "$d/logn"))"
# An index entry says so only by its reason (an index of a build that kept a flag beside it,
# stripped of the flag, reads alike).
before=$(calls crash-dddd*)
python3 - "$d/out-n/index.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc['files'].values():
    e.pop('no_fault', None)
json.dump(doc, open(sys.argv[1], 'w'))
PY
$T --out "$d/out-n" --replay-cmd "$d/fake" "$d/tree-n" >"$d/logn2" 2>&1
grep -q ' 0 invalid; 1 fuzzer artifact did not fault again on replay; ' "$d/logn2" && [ "$(calls crash-dddd*)" = "$before" ]
ok $? "an older index's entry is read as one too, with no second replay ($(grep -o '[0-9]* invalid[^;]*;[^;]*' "$d/logn2"))"

# --no-replay: listed as needing a replay, replayed by the next run without it.
artifact "$d/tree/f" crash-ffffffffffffffffffffffffffffffffffffffff 6
printf 'ASGF_TESTMODE=crash\n' >"$d/tree/f/replay.env"
$T -q --out "$d/out" --no-replay "$d/tree" >"$d/log5" 2>&1
[ "$(calls crash-ffff*)" = 0 ] && [ "$(status "$d/tree/f/crash-ffffffffffffffffffffffffffffffffffffffff")" = "needs-replay 0" ]
ok $? "--no-replay replays nothing and lists the artifact as needing a replay"
$T -q --out "$d/out" --replay-cmd "$d/fake" "$d/tree" >/dev/null 2>&1
[ "$(calls crash-ffff*)" = 1 ] && [ "$(status "$d/tree/f/crash-ffffffffffffffffffffffffffffffffffffffff")" = "report 0" ]
ok $? "the next run without it replays the artifact"
$T --out "$d/out" --no-replay --replay-cmd "$d/fake" "$d/tree" >"$d/log6" 2>&1
[ $? = 2 ] && grep -q 'opposite' "$d/log6"; ok $? "--no-replay with --replay-cmd is a usage error"

# fuzz/replay-env.sh writes what triage reads: every ASGF_* but ASGF_OUT and the wrappers' own.
mkdir -p "$d/w"
( . fuzz/replay-env.sh; ASGF_OUT=/x ASGF_TESTMODE=crash ASGF_JVM_OPTS='-Xint -XX:+UseSerialGC' ASGF_CORPUS_STAGE=0 \
    ASGF_STAGE_SYNC_S=5 write_replay_env "$d/w/replay.env" )
python3 -c '
import sys; sys.path.insert(0, "crash-triage")
from ctlib import parse_fuzzer
env, f = parse_fuzzer.replay_env(sys.argv[1] + "/w/crash-x")
sys.exit(not (env.get("ASGF_TESTMODE") == "crash" and env.get("ASGF_JVM_OPTS") == "-Xint -XX:+UseSerialGC"
              and not {"ASGF_OUT", "ASGF_CORPUS_STAGE", "ASGF_STAGE_SYNC_S"} & set(env)))' "$d"
ok $? "write_replay_env writes every ASGF_* setting but ASGF_OUT and the wrappers' own, as lines triage reads"
# so a run that stages its corpus otherwise has the same settings: its artifacts' replay.env is not pinned
( . fuzz/replay-env.sh; ASGF_TESTMODE=crash ASGF_JVM_OPTS='-Xint -XX:+UseSerialGC' ASGF_CORPUS_STAGE=1 replay_env_differs "$d/w/replay.env" )
ok $(( ! $? )) "a corpus staged otherwise is not other settings"
tap_done
