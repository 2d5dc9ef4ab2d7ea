#!/usr/bin/env bash
# Every saved case in the repository (seeds, reproducers, triage fixtures)
# decodes to the same program as when tests/golden/case-programs.txt was
# taken, before the format got stable codes: both the strict path (casetool
# decode) and the fuzzers' total decoder (casetool fuzzdecode). Compares the
# decoded programs, not run outcomes. Cases added since are listed, not
# compared; a saved case that disappeared fails (regenerate the golden file
# with tests/golden/case-programs when that is deliberate).
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
tests/golden/case-programs "$BUILD/bin/casetool" > "$d/now.txt" 2> "$d/err"
ok $? "decoded every saved case ($(grep -c '^===' "$d/now.txt") of them)$( [ -s "$d/err" ] && echo ": $(head -1 "$d/err")")"
python3 - tests/golden/case-programs.txt "$d/now.txt" > "$d/cmp" <<'PY'
import sys
def sections(path):
    out, name = {}, None
    for line in open(path):
        if line.startswith('=== '):
            name = line[4:].rstrip('\n')
            out[name] = ''
        elif name is not None:
            out[name] += line
    return out
gold, now = sections(sys.argv[1]), sections(sys.argv[2])
changed = [n for n in gold if n in now and now[n] != gold[n]]
gone = [n for n in gold if n not in now]
new = [n for n in now if n not in gold]
print('%d %d %d %d' % (len(gold), len(changed), len(gone), len(new)))
for n in changed:
    print('# changed: %s\n#   was: %s\n#   now: %s' % (n, gold[n].replace('\n', ' | '), now[n].replace('\n', ' | ')))
for n in gone:
    print('# gone: %s' % n)
for n in new:
    print('# new since the golden file: %s' % n)
PY
read -r total changed gone new < "$d/cmp"
[ "$changed" = 0 ]; ok $? "all $total saved cases decode to the program they decoded to before ($changed changed)"
[ "$gone" = 0 ]; ok $? "every case of the golden file is still in the repository ($gone gone)"
tail -n +2 "$d/cmp" | head -40
n=$(grep -c '^=== corpus/reproducers/' tests/golden/case-programs.txt); s=$(grep -c '^=== corpus/seeds/' tests/golden/case-programs.txt)
[ "$n" -ge 4 ] && [ "$s" -ge 30 ]; ok $? "the golden file covers the reproducers ($n) and seeds ($s); $new case(s) added since"
tap_done
