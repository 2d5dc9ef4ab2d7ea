#!/usr/bin/env bash
# crash-triage: command line: usage errors, --check, --signature of a cut report, --top, --known
# and --fail-on-new.
cd "$(dirname "$0")/.." || exit 1
# hermetic: never pick up a real fuzz/replay unless a test passes --replay-cmd
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
T=crash-triage/triage
. tests/lib.sh
$T --bogus-option --out "$tmp/o" . >"$tmp/o1" 2>"$tmp/e1"; rc=$?
[ $rc = 2 ] && grep -q -- '--bogus-option' "$tmp/e1"; ok $? "unknown option: exit 2 naming it (rc $rc)"
$T --ou "$tmp/o" . >/dev/null 2>"$tmp/e2"; rc=$?
[ $rc = 2 ] && grep -q -- '--ou' "$tmp/e2"; ok $? "abbreviated option is refused (rc $rc)"
$T >/dev/null 2>"$tmp/e3"; ok $([ $? = 2 ] && echo 0 || echo 1) "no arguments: exit 2"
$T --out "$tmp/o" --top 0 . >/dev/null 2>&1; ok $([ $? = 2 ] && echo 0 || echo 1) "--top 0: exit 2"
$T --out "$tmp/o" --fail-on-new . >/dev/null 2>&1; ok $([ $? = 2 ] && echo 0 || echo 1) "--fail-on-new without --known: exit 2"

crash-triage/testdata-gen/mktree "$tmp/tree"
f=$(echo "$tmp"/tree/hs_err-17-agct-signal-1/hs_err_pid*.log)
out=$($T --check "$f"); rc=$?
[ $rc = 0 ] && [ "$out" = "SIGSEGV in forte_fill_call_trace_given_top" ]; ok $? "--check prints the title"
out=$($T --check "$f" --top 1)
[ "$out" = "SIGSEGV in forte_fill_call_trace_given_top" ]; ok $? "--top 1 shortens the title"
out=$($T --check "$tmp"/tree/hs_err-17-unsafe-put-truncated/hs_err_pid*.log)
[ "$out" = "SIGSEGV in Unsafe_PutLong  [truncated]" ]; ok $? "--check flags a truncated file ($out)"
# --signature, whose line goes into a known list: a cut report says so on its '#' line and on stderr.
$T --signature "$tmp"/tree/hs_err-17-unsafe-put-truncated/hs_err_pid*.log >"$tmp/sig.out" 2>"$tmp/sig.err"; rc=$?
[ $rc = 0 ] && grep -q '^# .*INCOMPLETE (truncated' "$tmp/sig.out" && grep -q 'is incomplete (truncated' "$tmp/sig.err" &&
  [ "$(grep -vc '^#' "$tmp/sig.out")" = 1 ]
ok $? "--signature of a truncated file marks it incomplete ($(head -1 "$tmp/sig.out" | cut -c1-140))"
# A run over a tree names each report cut short, with where it ends (a corrupt case file is named too).
mkdir -p "$tmp/cut"
head -c 700 "$f" >"$tmp/cut/hs_err_pid10.log"
$T --out "$tmp/cut-out" "$tmp/cut" >"$tmp/cut.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "^triage: $tmp/cut/hs_err_pid10.log: truncated hs_err: it ends at byte 700 (line [0-9]*), before its 'END.'" "$tmp/cut.out"
ok $? "a triage run names a truncated hs_err and where it ends (rc $rc: $(grep -m1 'pid10' "$tmp/cut.out" | cut -c1-120))"
# A bucket of cut reports only says so in the report tables, not just in bucket.json.
mkdir -p "$tmp/cut" && cp "$tmp"/tree/hs_err-17-unsafe-put-truncated/hs_err_pid*.log "$tmp/cut/"
$T -q --no-symbolize --out "$tmp/cut-o" "$tmp/cut" >/dev/null 2>&1
grep -q 'Unsafe_PutLong.*only from truncated reports' "$tmp/cut-o/report.md" &&
  grep -q 'only from truncated reports' "$tmp/cut-o/report.html"
ok $? "a bucket of truncated reports only is marked so in report.md and report.html ($(grep -o 'only from [a-z ]*reports' "$tmp/cut-o/report.md" | head -1))"
$T --signature "$f" >"$tmp/sig2.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^[0-9a-f]\{12\}  # SIGSEGV in ' "$tmp/sig2.out" && ! grep -q INCOMPLETE "$tmp/sig2.out"
ok $? "--signature of a whole file does not (rc $rc)"
out=$($T --check "$tmp/tree/neg-record-bad-version/neg-record-bad-version"); rc=$?
[ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && printf '%s' "$out" | grep -q '^not a report: '; ok $? "--check on a non-report prints one reason line, exit 1 (rc $rc)"
out=$($T --check /etc/hostname); rc=$?; [ $rc = 1 ] && printf '%s' "$out" | grep -q '^not a report: '; ok $? "--check on plain text: exit 1 (rc $rc)"
out=$($T --explain /etc/hostname); rc=$?; [ $rc = 1 ] && printf '%s' "$out" | grep -q '^not a report: '; ok $? "--explain on plain text: exit 1 (rc $rc)"

$T -q --out "$tmp/out" "$tmp/tree" >/dev/null 2>&1
sigs=$(python3 -c 'import json,sys; print("\n".join(b["signature"] for b in json.load(open(sys.argv[1]))["buckets"]))' "$tmp/out/report.json")
{ echo "# known buckets"; printf '%s\n' "$sigs" | head -n 5; echo "SIGSEGV in Unsafe_GetLong   # by title"; } >"$tmp/known-some"
{ echo "# all of them"; printf '%s\n' "$sigs"; } >"$tmp/known-all"
$T --out "$tmp/out" --known "$tmp/known-some" "$tmp/tree" >"$tmp/k1" 2>&1; rc=$?
[ $rc = 0 ] && grep -q ' NEW ' "$tmp/k1" && grep -q ' known ' "$tmp/k1"; ok $? "--known marks buckets known and new, exit 0 (rc $rc)"
grep -q ' known SIGSEGV in Unsafe_GetLong$' "$tmp/k1"; ok $? "a known title matches its bucket"
$T -q --out "$tmp/out" --known "$tmp/known-some" --fail-on-new "$tmp/tree" >/dev/null 2>&1
ok $([ $? = 1 ] && echo 0 || echo 1) "--fail-on-new with a new bucket: exit 1"
$T -q --out "$tmp/out" --known "$tmp/known-all" --fail-on-new "$tmp/tree" >/dev/null 2>&1
ok $? "--fail-on-new with every bucket known: exit 0"
# The same list typed by hand: signatures in upper case, comments after a tab.
{ echo "# all of them"; printf '%s\n' "$sigs" | tr 'a-f' 'A-F' | sed 's/$/\t# by hand/'; } >"$tmp/known-typed"
$T -q --out "$tmp/out" --known "$tmp/known-typed" --fail-on-new "$tmp/tree" >"$tmp/k-typed" 2>&1
ok $? "--known: upper-case signatures and tab-separated comments match as typed ($(tail -1 "$tmp/k-typed" | cut -c1-120))"
$T -q --out "$tmp/out" --known "$tmp/nope" "$tmp/tree" >/dev/null 2>&1
ok $([ $? = 2 ] && echo 0 || echo 1) "missing --known file: exit 2"

# the example known-buckets file: the real AGCT fixtures are all known, so --fail-on-new passes
mkdir -p "$tmp/agct"
crash-triage/testdata-gen/mktree "$tmp/agct" hs_err-17-getpc-1 record-17-getpc-near-1 record-25-topframe-1 \
    hs_err-17-plant-inline record-25-plant-inline >/dev/null
$T -q --out "$tmp/out-ex" --known crash-triage/known-buckets.example --fail-on-new "$tmp/agct" >"$tmp/k2" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '(0 new, 3 known' "$tmp/k2"; ok $? "known-buckets.example: the three AGCT buckets are known, --fail-on-new exits 0 (rc $rc)"
$T -q --out "$tmp/out" --known crash-triage/known-buckets.example --fail-on-new "$tmp/tree" >/dev/null 2>&1
ok $([ $? = 1 ] && echo 0 || echo 1) "known-buckets.example over all fixtures: other buckets are new, exit 1"
: >"$tmp/known-none"
$T -q --out "$tmp/out" --known "$tmp/known-none" "$tmp/tree" >/dev/null 2>&1
python3 - "$tmp/out/report.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))['totals']
ok = t['known'] == 0 and t['suppressed'] == 3 and t['new'] == t['buckets'] - 3
print(('ok' if ok else 'not ok') + ' - suppressed buckets are neither new nor known (%s)' % t)
PY
$T -q --out "$tmp/out-missing" --known "$tmp/nope" "$tmp/tree" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/out-missing/report.json" ] && [ ! -e "$tmp/out-missing/index.json" ]
ok $? "a missing --known file is reported before any work is done (rc $rc)"
$T -q --out "$tmp/o-j" --jobs 0 "$tmp/tree" >/dev/null 2>"$tmp/ej"; rc=$?
[ $rc = 2 ] && grep -q -- '--jobs wants a number' "$tmp/ej"; ok $? "--jobs 0: exit 2 naming it (rc $rc)"
# enough files for the parallel parser: 2 processes give the same buckets as 1
mkdir -p "$tmp/tree2" && cp -r "$tmp/tree" "$tmp/tree2/a" && cp -r "$tmp/tree" "$tmp/tree2/b"
$T -q --jobs 1 --out "$tmp/o-j1" "$tmp/tree2" >/dev/null 2>&1
$T -q --jobs 2 --out "$tmp/o-j2" "$tmp/tree2" >/dev/null 2>&1
python3 - "$tmp/o-j1" "$tmp/o-j2" <<'PY'
import json, os, sys
def view(d):
    r = json.load(open(os.path.join(d, 'report.json')))
    return r['totals'], sorted((b['signature'], b['count'], b['title']) for b in r['buckets'])
a, b = view(sys.argv[1]), view(sys.argv[2])
ok = a == b and a[0]['reports'] > 64
print(('ok' if ok else 'not ok') + ' - --jobs 2 buckets %d reports exactly as --jobs 1' % a[0]['reports'])
PY
