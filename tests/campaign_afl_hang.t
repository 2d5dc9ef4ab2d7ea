#!/usr/bin/env bash
# An AFL++ hang in a campaign is kept: the stand-in provider's walk hangs
# once (ASGF_FAKE_HANG, tests/jvm/fault_knob.h), afl-fuzz's time-out kills
# that child and files the input under hangs/, and the campaign's job
# copies it into its attempt, calls the attempt hung and counts it in the
# report (and a pre-merge's summary), which lists the input with a command
# that replays it, while the instance fuzzes on.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
command -v afl-fuzz >/dev/null || { skip "an AFL++ hang in a campaign" "afl-fuzz not installed"; tap_done; exit; }

# A 5 s hang time-out (afl-fuzz's -t; 10 s by default).
write_preset "$d/hang.preset" rounds=1 budget=50s job_time=45s min_attempt=5s reserve=5s triage_every=20s progress_every=10s <<'EOF2'

[afl]
api = asgst
keep_going = 1
cores = 1
extra = -t,5000
EOF2
# A process's 20000th signal-mode walk hangs (a few seconds into fuzzing,
# never in the pre-flight seed), at most three times over all processes (the
# log counts them). afl-fuzz files a hang only from its fuzzing stages: one
# met while it calibrates or trims a new queue entry is not saved, so the
# next child gets another chance.
out=$d/c
ASGF_FAKE_HANG='RunWithIterator@signal:20000:3' ASGF_FAKE_FAULT_LOG=$d/knob.log \
  AFL_PRELOAD="$PWD/$BUILD/tests/libfake_proto.so" \
  ci/campaign --preset "$d/hang.preset" --out "$out" --no-build --seed 7 >"$d/stdout" 2>"$d/stderr"
rc=$?
planted=$(knob_planted "$d/knob.log" RunWithIterator@signal)
[ $rc -le 1 ] && [ "${planted:-0}" -ge 1 ]
ok $? "the campaign ran and the stand-in hung (exit $rc, ${planted:-no} hangs planted; $(tail -1 "$d/stderr" | cut -c1-120))"

python3 - "$out" <<'EOF2' >"$d/att.out" 2>&1
import csv, glob, os, sys
rows = []
for tsv in glob.glob(os.path.join(sys.argv[1], 'results/jobs/*/attempts.tsv')):
    for r in csv.DictReader(open(tsv), delimiter='\t'):
        hangs = glob.glob(os.path.join(os.path.dirname(tsv), r['dir'], 'hangs', 'id:*'))
        rows.append((r['verdict'], len(hangs), sum(os.path.getsize(h) for h in hangs)))
print(rows)
assert any(v == 'hung' and n >= 1 and size > 0 for v, n, size in rows), rows
EOF2
ok $? "the attempt that met it is 'hung' and holds afl-fuzz's hang input ($(tail -1 "$d/att.out" | cut -c1-160))"

st=$(ls "$d"/c/work/afl-*/afl/main/fuzzer_stats 2>/dev/null | head -1)
ex=$(sed -n 's/^execs_done *: *//p' "$st" 2>/dev/null)
hg=$(sed -n 's/^saved_hangs *: *//p' "$st" 2>/dev/null)
# the execution count at the hang, from the saved file's name (id:...,execs:N,...)
at=$(ls "$d"/c/work/afl-*/afl/main/hangs/ 2>/dev/null | sed -n 's/.*,execs:\([0-9]*\),.*/\1/p' | head -1)
[ "${hg:-0}" -ge 1 ] && [ -n "$at" ] && [ "${ex:-0}" -gt $((at + 1000)) ]
ok $? "afl-fuzz saved the hang and went on fuzzing (saved_hangs ${hg:-none}, hang at execution ${at:-?}, execs_done ${ex:-none})"
v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["verdicts"])' "$out/report.json" 2>&1)
case $v in *"'hung': "[1-9]*) r=0 ;; *) r=1 ;; esac
ok $r "the campaign report counts the hung attempt (verdicts: $(echo "$v" | tail -1 | cut -c1-160))"
# The report says where the hang's input is and how to run it again.
row=$(sed -n '/^## Hangs/,/^## /p' "$out/report.md" | grep '^| r0' | head -1)
case $row in *"| hangs/id:"*"fuzz/replay -n 1 "*"/hangs/id:"*) r=0 ;; *) r=1 ;; esac
ok $r "the report's Hangs section lists the kept input with a replay command ($(echo "$row" | cut -c1-140))"
grep -q '<h2>Hangs</h2><table id="hangs">' "$out/report.html"; ok $? "report.html has the Hangs table too"
# A pre-merge's summary, judged over the same output, lists it the same way.
ci/premerge --report-only --known /dev/null --out "$out" >"$d/pm.out" 2>&1; rc=$?
row=$(sed -n '/^## Hangs/,/^## Plan/p' "$out/summary.md" 2>/dev/null | grep '^| r0' | head -1)
case $row in *"| hangs/id:"*"fuzz/replay -n 1 "*) r=0 ;; *) r=1 ;; esac
[ $rc -le 1 ] && grep -q 'do not change the exit status' "$out/summary.md"
ok $(( r | $? )) "ci/premerge's summary lists the hang's input and replay command too (exit $rc)"
tap_done
