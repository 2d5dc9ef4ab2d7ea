#!/usr/bin/env bash
# crash-triage: parsers survive mutated, truncated and junk input (bounded to ~60 s),
# and the CLI keeps going over a tree of junk.
cd "$(dirname "$0")/.." || exit 1
# hermetic: never pick up a real fuzz/replay unless a test passes --replay-cmd
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
seed=${TRIAGE_FUZZ_SEED:-$(date +%s)}
timeout 120 crash-triage/fuzz-parsers --iterations 20000 --seed "$seed" --time-limit 35 \
    --save-dir "$tmp/fail" >"$tmp/fuzz.log" 2>&1
rc=$?
tail -n 5 "$tmp/fuzz.log"
ok $rc "parser fuzzing, seed $seed ($(tail -n 1 "$tmp/fuzz.log"))"
# kept beside the test logs: tests/run removes each test's TMPDIR after it
[ $rc = 0 ] || { cp -r "$tmp/fail" "build/test-logs/triage-fuzz-failures-$seed" 2>/dev/null &&
  echo "# failing inputs kept in build/test-logs/triage-fuzz-failures-$seed"; }

# a tree of junk: every bad file gives a one-line reason, the run exits 0
mkdir -p "$tmp/junk/a" "$tmp/junk/crashes"
: >"$tmp/junk/a/hs_err_pid1.log"
head -c 70000 /dev/urandom >"$tmp/junk/a/hs_err_pid2.log"
printf 'ASGF-RECORD 1\n' >"$tmp/junk/a/record-1-1-0.txt"
python3 -c "import sys; sys.stdout.write('#\n# A fatal error has been detected by the Java Runtime Environment:\n' + 'x' * (10 << 20) + '\n')" >"$tmp/junk/a/hs_err_pid3.log"
head -c 5000 /dev/urandom >"$tmp/junk/a/random.bin"
crash-triage/triage --out "$tmp/out" "$tmp/junk" >"$tmp/out.log" 2>"$tmp/err.log"
ok $? "triage over a junk tree exits 0"
python3 - "$tmp/out" <<'PY'
import json, os, sys
out = sys.argv[1]
idx = json.load(open(os.path.join(out, 'index.json')))['files']
bad = [(p, e) for p, e in idx.items() if e['status'] in ('invalid', 'ignored')]
ok = all(e['reason'] and '\n' not in e['reason'] for _, e in bad)
print(('ok' if ok else 'not ok') + ' - every rejected file has a one-line reason (%d files)' % len(bad))
for p, e in sorted(idx.items()):
    print('# %s: %s %s' % (os.path.basename(p), e['status'], e['reason'] or ''))
PY
