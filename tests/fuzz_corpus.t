#!/usr/bin/env bash
# The fuzz corpus without a JVM: every hand-written seed encodes to a valid
# case; together they cover every entry, mode, mutation kind and region;
# the dictionary parses; every saved reproducer is a valid case with a note.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
casetool=$BUILD/bin/casetool

bad=0 n=0
for t in corpus/seeds/*.txt; do
  n=$((n + 1))
  "$casetool" encode "$t" -o "$d/$(basename "$t" .txt).bin" 2> "$d/err" && "$casetool" check "$d/$(basename "$t" .txt).bin" \
    || { bad=1; echo "# $t: $(cat "$d/err")"; }
done
[ $bad -eq 0 ] && [ $n -gt 0 ]; ok $? "all $n seeds in corpus/seeds encode to valid cases"

"$casetool" decode "$d"/*.bin > "$d/all.txt"
missing=""
codes() { "$casetool" codes | awk -v t="$1" '$1 == t {print $3}'; }  # names of one table
for e in $(codes entry); do grep -q "^entry $e\$" "$d/all.txt" || missing="$missing entry:$e"; done
for m in $(codes mode); do grep -q "^mode $m\$" "$d/all.txt" || missing="$missing mode:$m"; done
for k in $(codes kind); do grep -q "^mut [a-z0-9]* $k " "$d/all.txt" || missing="$missing kind:$k"; done
regions=$(codes region)
for r in $regions; do grep -q "^mut [a-z0-9]* region $r " "$d/all.txt" || missing="$missing region:$r"; done
for o in $(codes option); do grep -q "^options .*$o" "$d/all.txt" || missing="$missing option:$o"; done
for f in $(codes flag); do grep -q "^flags .*$f" "$d/all.txt" || missing="$missing flag:$f"; done
[ -z "$missing" ]; ok $? "the seeds cover every entry, mode, kind, region ($(echo $regions | wc -w)), option and flag${missing:+ (missing:$missing)}"

python3 - corpus/dict/asgf.dict > "$d/dict.out" 2>&1 <<'PY'
import re, sys
entries = 0
for no, line in enumerate(open(sys.argv[1]), 1):
    line = line.rstrip('\n')
    if not line.strip() or line.lstrip().startswith('#'):
        continue
    m = re.fullmatch(r'[A-Za-z0-9_]+="((?:\\x[0-9a-fA-F]{2}|\\\\|\\"|[^"\\])*)"', line)
    if not m:
        sys.exit('line %d: not name="value": %s' % (no, line))
    entries += 1
if 'header="\\x41\\x53\\x47\\x46\\x02\\x00\\x00\\x00"' not in open(sys.argv[1]).read():
    sys.exit('no header entry')
print(entries)
PY
ok $? "corpus/dict/asgf.dict: every entry is name=\"value\", header present ($(tail -1 "$d/dict.out") entries)"
corpus/gen/mkdict.py | cmp -s - corpus/dict/asgf.dict; ok $? "corpus/dict/asgf.dict is what corpus/gen/mkdict.py makes from src/case_codes.h"

bad="" n=0
for c in corpus/reproducers/*.bin corpus/reproducers/*.case; do
  [ -f "$c" ] || continue
  n=$((n + 1))
  "$casetool" check "$c" 2>/dev/null || bad="$bad $c(invalid)"
  grep -qF "$(basename "$c")" corpus/reproducers/*.md 2>/dev/null || bad="$bad $c(no note)"
done
[ -z "$bad" ] && [ $n -gt 0 ]; ok $? "corpus/reproducers: $n valid cases, each named in a .md note${bad:+ (bad:$bad)}"
tap_done
