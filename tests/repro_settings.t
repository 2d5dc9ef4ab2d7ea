#!/usr/bin/env bash
# A case is replayed in the harness settings of the fuzzer run that found it
# (its replay.env: workload, API, a preloaded provider), by crash-triage/repro
# as by triage: triage keeps them on the bucket member, so a bucket copied away
# from its run keeps them; a case file given alone finds its replay.env; an
# option given wins; a replay.env newer than a record the harness wrote is a
# later run's and is not taken. The first part runs a stand-in replay tool
# that logs the settings it got (crash-triage/testdata-gen/fake-replay); the
# last runs the real one on a live JVM, where only the finding run's preload
# of the stand-in ASGST provider makes the case fault.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
REAL_BUILD=$BUILD
FAKE=crash-triage/testdata-gen/fake-replay
enc() { python3 -c 'import sys; sys.path.insert(0, "crash-triage")
from ctlib import case
open(sys.argv[2], "wb").write(case.parse_text(sys.argv[1]).encode())' "$1" "$2"; }
has() { grep -qE "(^| )$2( |\$)" "$1"; }   # has LOG NAME=VALUE: the stand-in's run got it
member_settings() {   # member_settings BUCKET_DIR: the settings of the member smallest.case came from
  python3 -c 'import json,sys; b=json.load(open(sys.argv[1]+"/bucket.json")); mid=b["smallest_case"]["member"]
print(" ".join("%s=%s" % kv for kv in sorted(next(m for m in b["members"] if m["id"] == mid).get("settings", {}).items())))' "$1"
}

# -- the stand-in replay tool -----------------------------------------------------------
mkdir -p "$d/build/fuzz"
ln -s "$PWD/$FAKE" "$d/build/fuzz/asgf-replay"
# A libFuzzer run's directory: its replay.env, one crash artifact (bug A of the stand-in).
run=$d/run
mkdir -p "$run/crashes" "$run/records"
(unset LD_PRELOAD AFL_PRELOAD; for v in $(env | sed -n 's/^\(ASGF_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
 . fuzz/replay-env.sh && ASGF_SCENARIO=alloc ASGF_WORKERS=3 write_replay_env "$run/replay.env")
enc $'asgf-case 1\nmut sp region code_cache 0x12345\n' "$run/crashes/crash-0123456789abcdef0123456789abcdef01234567"
art=$run/crashes/crash-0123456789abcdef0123456789abcdef01234567
crash-triage/triage -q --no-symbolize --replay-cmd "$FAKE" --out "$d/t1" "$run" >"$d/t1.log" 2>&1
b1=$(ls -d "$d"/t1/buckets/*/ 2>/dev/null | head -1); b1=${b1%/}
got=$([ -n "$b1" ] && member_settings "$b1")
[ "$got" = "ASGF_SCENARIO=alloc ASGF_WORKERS=3" ]
ok $? "triage keeps the finding run's settings on the bucket member (${got:-no bucket})"

# The bucket copied away, its run gone: the settings come from bucket.json.
cp -r "$b1" "$d/kept"
mv "$run" "$d/run-gone"
BUILD=$d/build FAKE_REPLAY_ENVLOG=$d/env1 crash-triage/repro "$d/kept" -n 1 --json "$d/r1.json" >"$d/r1" 2>&1; rc=$?
[ $rc -eq 0 ] && has "$d/env1" ASGF_SCENARIO=alloc && has "$d/env1" ASGF_WORKERS=3 &&
  grep -q "^repro: the harness settings of the run that found the case ($d/kept/bucket.json (member [0-9a-f]*)): ASGF_SCENARIO=alloc ASGF_WORKERS=3$" "$d/r1"
ok $? "repro of a bucket copied away from its run replays in the run's settings, and says so (exit $rc; $(cut -c1-80 "$d/env1" 2>/dev/null))"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["settings"] != {"ASGF_SCENARIO": "alloc", "ASGF_WORKERS": "3"})' "$d/r1.json"
ok $? "repro --json names the settings it replayed in"
BUILD=$d/build FAKE_REPLAY_ENVLOG=$d/env2 crash-triage/repro "$d/kept" -n 1 --scenario deep --api agct >/dev/null 2>&1
has "$d/env2" ASGF_SCENARIO=deep && has "$d/env2" ASGF_API=agct && has "$d/env2" ASGF_WORKERS=3
ok $? "--scenario and --api given win over the run's, the rest stays ($(cut -c1-80 "$d/env2"))"

# writeup says how the finding run ran (a fuzzer harness and its settings, not a stress
# job's JVM flags), and the protection the quoted repro run had.
crash-triage/writeup "$d/kept" --repro-json "$d/r1.json" >"$d/w1" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -qx -- '- found by a fuzzer harness (an embedded JVM with the harness.s own options), settings: ASGF_SCENARIO=alloc ASGF_WORKERS=3' "$d/w1" &&
  grep -q '^1 of 1 fresh JVMs with crash protection on gave this signature' "$d/w1" && ! grep -q 'defaults of stress/run' "$d/w1"
ok $? "writeup names the fuzzer run's settings and the protection of the repro it quotes (exit $rc; $(grep -m1 'fresh JVMs' "$d/w1"))"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s.pop("protect"); json.dump(s, open(sys.argv[2], "w"))' "$d/r1.json" "$d/r1-old.json"
crash-triage/writeup "$d/kept" --repro-json "$d/r1-old.json" 2>/dev/null | grep -q 'with crash protection not recorded'
ok $? "a repro --json without its protection is not quoted as protection off"

# A crash artifact given alone: the replay.env beside it, or above.
mv "$d/run-gone" "$run"
BUILD=$d/build FAKE_REPLAY_ENVLOG=$d/env3 crash-triage/repro "$art" -n 1 >"$d/r3" 2>&1; rc=$?
[ $rc -eq 0 ] && has "$d/env3" ASGF_SCENARIO=alloc && grep -qF "($run/replay.env)" "$d/r3"
ok $? "repro of a crash artifact alone takes its run's replay.env (exit $rc)"
# A replay.env that is not ASGF_NAME=VALUE: exit 2, naming file and line.
cp "$run/replay.env" "$d/replay.env.good"
printf 'scenario alloc\n' >>"$run/replay.env"
BUILD=$d/build crash-triage/repro "$art" -n 1 >"$d/r4" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -qF "$run/replay.env:$(wc -l <"$run/replay.env"): not ASGF_NAME=VALUE" "$d/r4"
ok $? "a damaged replay.env stops repro with exit 2, naming its file and line (exit $rc: $(tail -1 "$d/r4" | cut -c1-120))"
cp "$d/replay.env.good" "$run/replay.env"

# A record the harness wrote in its run: the run's settings, unless replay.env
# was written after it (a later run into the same --out).
"$FAKE" --record-dir "$run/records" "$art" >/dev/null
touch -d '-1 hour' "$run/replay.env"
crash-triage/triage -q --no-symbolize --no-replay --out "$d/t2" "$run/records" >/dev/null 2>&1
got=$(member_settings "$(ls -d "$d"/t2/buckets/*/ | head -1)")
[ "$got" = "ASGF_SCENARIO=alloc ASGF_WORKERS=3" ]; ok $? "a record the harness wrote takes its run's settings (${got:-none})"
touch "$run/replay.env"; touch -d '-1 hour' "$run"/records/*
crash-triage/triage -q --no-symbolize --no-replay --out "$d/t3" "$run/records" >/dev/null 2>&1
got=$(member_settings "$(ls -d "$d"/t3/buckets/*/ | head -1)")
[ -z "$got" ]; ok $? "a record older than its directory's replay.env takes none: a later run's (${got:-none})"

# write_replay_env leaves the file as it was for the same settings, so that a
# second session into the same --out does not disown the first one's records.
before=$(stat -c '%i %y' "$run/replay.env")
(unset LD_PRELOAD AFL_PRELOAD; for v in $(env | sed -n 's/^\(ASGF_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
 . fuzz/replay-env.sh && ASGF_SCENARIO=alloc ASGF_WORKERS=3 write_replay_env "$run/replay.env")
same=$(stat -c '%i %y' "$run/replay.env")
(unset LD_PRELOAD AFL_PRELOAD; for v in $(env | sed -n 's/^\(ASGF_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
 . fuzz/replay-env.sh && ASGF_SCENARIO=deep write_replay_env "$run/replay.env")
[ "$before" = "$same" ] && grep -qx 'ASGF_SCENARIO=deep' "$run/replay.env" && [ "$(stat -c '%i %y' "$run/replay.env")" != "$before" ]
ok $? "write_replay_env: the same settings keep the file and its time, others replace it"

# -- the real replay tool on a live JVM -------------------------------------------------
fake=$PWD/$REAL_BUILD/tests/libfake_proto.so
if [ ! -x "$REAL_BUILD/fuzz/asgf-replay" ] || [ ! -f "$fake" ]; then
  skip "a case found on a preloaded provider reproduces from its bucket alone" "no $REAL_BUILD/fuzz/asgf-replay or libfake_proto.so"
  tap_done; exit
fi
# An AFL++ run on the stand-in provider (AFL_PRELOAD, which afl-fuzz gives its
# target alone), whose planted bug faults in every RunWithIterator call.
live=$d/live
mkdir -p "$live/default/crashes"
(unset LD_PRELOAD; for v in $(env | sed -n 's/^\(ASGF_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
 . fuzz/replay-env.sh && AFL_PRELOAD=$fake ASGF_API=asgst ASGF_FAKE_FAULT='RunWithIterator@*:1' ASGF_WARMUP_MS=200 \
   write_replay_env "$live/replay.env")
enc $'asgf-case 1\n' "$live/default/crashes/id:000000,sig:06,src:000000,time:1,execs:1,op:havoc,rep:1"
crash-triage/triage -q --out "$d/t4" "$live" >"$d/t4.log" 2>&1
b4=$(ls -d "$d"/t4/buckets/*/ 2>/dev/null | head -1); b4=${b4%/}
mod=$([ -n "$b4" ] && json_field "$b4/bucket.json" module)
[ "$mod" = libfake_proto.so ]; ok $? "triage replays the AFL++ artifact on the preloaded stand-in (fault in ${mod:-no bucket}: $([ -n "$b4" ] && json_field "$b4/bucket.json" title))"
cp -r "$b4" "$d/kept4"; rm -rf "$live"
crash-triage/repro "$d/kept4" -n 2 --json "$d/r5.json" >"$d/r5" 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(json_field "$d/r5.json" same_signature)" = 2 ] && grep -q "ASGF_PRELOAD=$fake" "$d/r5"
ok $? "repro of the bucket, its run gone, preloads the provider again and reproduces it 2/2 (exit $rc; $(grep -m1 'REPRODUCED' "$d/r5"))"
# Without the run's settings (a bucket.json of an older triage, its run gone)
# the same case finds no ASGST to bind and runs on AGCT: what repro did before.
cp -r "$d/kept4" "$d/old4"
python3 -c 'import json,sys; p=sys.argv[1]+"/bucket.json"; b=json.load(open(p))
for m in b["members"]: m.pop("settings", None)
json.dump(b, open(p, "w"))' "$d/old4"
crash-triage/repro "$d/old4" -n 1 >"$d/r6" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'attempt 1/1: no fault' "$d/r6" && ! grep -q 'harness settings' "$d/r6"
ok $? "the same bucket without the run's settings does not reproduce (exit $rc; $(grep -m1 'attempt 1/1' "$d/r6"))"
tap_done
