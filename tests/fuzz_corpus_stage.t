#!/usr/bin/env bash
# fuzz/run-libfuzzer's staged corpus (fuzz/corpus-stage.sh), on a live JVM:
# what libFuzzer keeps reaches --out/corpus, and what it removes (REDUCE) is
# removed there too; nothing the wrapper starts outlives it holding a file it
# inherited (a campaign job's CPU lock); a run killed with SIGKILL has synced
# on its period, and the next run on the same --out recovers the rest;
# libFuzzer's exit status comes through; a bad ASGF_CORPUS_STAGE is refused
# by name.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export ASGF_WARMUP_MS=100 ASGF_CORPUS_STAGE=1 ASGF_STAGE_ROOT=$d/stage
mkdir -p "$d/stage"
files() { find "$1" -maxdepth 1 -type f | wc -l; }

# fd 9 stands for a CPU lock of ci/job: held across the run, then closed.
# Synced every second, so that REDUCE removes files that were synced.
exec 9>"$d/cpu.lock"
flock -n 9
ASGF_STAGE_SYNC_S=1 fuzz/run-libfuzzer --duration 6 --keep-going --out "$d/a" > "$d/a.log" 2>&1
rc=$?
exec 9>&-
flock -n "$d/cpu.lock" true
ok $? "the inherited lock is free once run-libfuzzer exits: nothing it started outlives it"
[ $rc -eq 0 ] && grep -q "^run-libfuzzer: corpus $d/a/corpus staged in $d/stage/asgf-corpus\." "$d/a.log"
ok $? "libFuzzer works on a staged copy of the corpus (exit $rc)"
[ -z "$(ls -A "$d/stage")" ]
ok $? "the staged directory is gone after the run"
kept=$(files "$d/a/corpus")
corp=$(sed -n 's/^#[0-9]*[[:space:]]*DONE .* corp: \([0-9]*\)\/.*/\1/p' "$d/a.log")
reduced=$(grep -c 'REDUCE' "$d/a.log")
# libFuzzer's corpus also counts the seeds it kept from the seed directories,
# which it never writes; without the removals mirrored, each REDUCE would
# leave one more file than that.
[ "$kept" -gt 0 ] && [ "$kept" -le "${corp:-0}" ] && [ "$reduced" -gt "$((corp - kept))" ]
ok $? "--out/corpus holds what libFuzzer kept and not what it removed ($kept files; libFuzzer's corpus ${corp:-?}, $reduced reductions)"

# Killed: the periodic sync has put files in --out/corpus while it ran; the
# next run adopts the staged directory the killed one left.
setsid env ASGF_STAGE_SYNC_S=1 fuzz/run-libfuzzer --duration 60 --keep-going --out "$d/k" > "$d/k.log" 2>&1 &
pgid=$!
for _ in $(seq 60); do [ "$(files "$d/k/corpus" 2>/dev/null || echo 0)" -gt 0 ] && break; sleep 0.5; done
synced=$(files "$d/k/corpus" 2>/dev/null || echo 0)
sleep 1
kill -KILL -- -$pgid 2>/dev/null
wait $pgid 2>/dev/null
left=$(ls -d "$d"/stage/asgf-corpus.* 2>/dev/null | head -1)
[ "$synced" -gt 0 ]; ok $? "while it runs, the corpus is synced on its period ($synced files in --out/corpus before the kill)"
staged_n=$( [ -n "$left" ] && files "$left/corpus" || echo 0)
[ -n "$left" ] && [ "$staged_n" -gt 0 ]; ok $? "a run killed with SIGKILL leaves its staged corpus ($staged_n files)"
[ -n "$left" ] && (cd "$left/corpus" && ls) > "$d/left.txt"
fuzz/run-libfuzzer --runs 0 --keep-going --out "$d/k" > "$d/k2.log" 2>&1
rc=$?
lost=$(comm -23 <(sort "$d/left.txt" 2>/dev/null) <(cd "$d/k/corpus" && ls | sort) | wc -l)
[ $rc -eq 0 ] && grep -qF "recovered the corpus of an earlier run killed before its last sync ($left)" "$d/k2.log" &&
  [ -z "$(ls -A "$d/stage")" ] && [ "$lost" -eq 0 ]
ok $? "the next run on the same --out recovers it ($lost of $staged_n files missing) and removes it (exit $rc)"

# The wrapper stays while libFuzzer runs: libFuzzer's exit status must come
# through, from an exit at once and from a signal passed on.
ASGF_STRUCT_MUTATE=lots fuzz/run-libfuzzer --runs 10 --out "$d/fail" > "$d/fail.log" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q 'staged in' "$d/fail.log"
ok $? "a harness that stops at once: its status comes through the staged wrapper (exit $rc, want 3)"
fuzz/run-libfuzzer --duration 60 --keep-going --out "$d/term" > "$d/term.log" 2>&1 &
pid=$!
for _ in $(seq 60); do grep -q '^#[0-9]' "$d/term.log" 2>/dev/null && break; sleep 0.5; done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 72 ] && grep -q 'run interrupted' "$d/term.log" && [ "$(files "$d/term/corpus")" -gt 0 ] && [ -z "$(ls -A "$d/stage")" ]
ok $? "SIGTERM to the wrapper reaches libFuzzer, whose status (72) comes back, and the corpus is synced (exit $rc)"

ASGF_CORPUS_STAGE=yes fuzz/run-libfuzzer --runs 10 --out "$d/bad" > "$d/bad.log" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "ASGF_CORPUS_STAGE wants 0, 1 or auto, got 'yes'" "$d/bad.log"
ok $? "a bad ASGF_CORPUS_STAGE is an error naming it (exit $rc)"
ASGF_CORPUS_STAGE=0 fuzz/run-libfuzzer --runs 200 --keep-going --out "$d/off" > "$d/off.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q 'staged in' "$d/off.log" && ! grep -q 'unknown environment variable' "$d/off.log" &&
  [ "$(files "$d/off/corpus")" -gt 0 ]
ok $? "ASGF_CORPUS_STAGE=0: libFuzzer writes --out/corpus itself, and the harness knows the name (exit $rc)"
tap_done
