#!/usr/bin/env bash
# Every saved case in the repository (seeds, reproducers, triage fixtures)
# decodes to the same program as when tests/golden/case-programs.txt was
# taken, before the format got stable codes: both the strict path (casetool
# decode) and the fuzzers' total decoder (casetool fuzzdecode). Compares the
# decoded programs, not run outcomes.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
tests/golden/case-programs "$BUILD/bin/casetool" > "$d/now.txt" 2> "$d/err"
ok $? "decoded every saved case ($(grep -c '^===' "$d/now.txt") of them)$( [ -s "$d/err" ] && echo ": $(head -1 "$d/err")")"
diff -u tests/golden/case-programs.txt "$d/now.txt" > "$d/diff"
ok $? "each decodes to the program it decoded to before ($(grep -c '^[-+][^-+]' "$d/diff") lines differ)"
[ -s "$d/diff" ] && head -40 "$d/diff" | sed 's/^/# /'
n=$(grep -c '^=== corpus/reproducers/' "$d/now.txt"); s=$(grep -c '^=== corpus/seeds/' "$d/now.txt")
[ "$n" -ge 4 ] && [ "$s" -ge 30 ]; ok $? "the list covers the reproducers ($n) and seeds ($s)"
tap_done
