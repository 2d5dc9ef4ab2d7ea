#!/usr/bin/env bash
# The case text tool: round trip text <-> bytes, errors name the byte offset.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
tool=$BUILD/bin/casetool
cat > "$d/a.txt" <<'CASE'
asgf-case 1
entry run_with_iterator
mode signal
options none
worker 1
depth 0
flags rewind
mut sp delta -0x40
mut pc region code_cache 0x1234
CASE
$tool encode "$d/a.txt" -o "$d/a.case"; ok $? "encode a text case"
$tool decode "$d/a.case" > "$d/b.txt"; ok $? "decode it back"
diff <(grep -v '^#' "$d/a.txt") "$d/b.txt" >/dev/null; ok $? "text -> bytes -> text is the identity"
$tool encode "$d/b.txt" -o "$d/b.case" && cmp -s "$d/a.case" "$d/b.case"; ok $? "bytes -> text -> bytes is the identity"
for f in corpus/seeds/*.txt; do
  [ -e "$f" ] || continue
  $tool encode "$f" -o "$d/seed.case" 2>"$d/err" && $tool check "$d/seed.case"
  ok $? "seed $f encodes to a valid case"
done

expect_error() {  # FILE-CONTENT-CMD WANTED-MESSAGE DESCRIPTION
  eval "$1" > "$d/bad"
  $tool decode "$d/bad" > /dev/null 2> "$d/err"; rc=$?
  [ $rc -eq 1 ] && grep -q "$2" "$d/err"; ok $? "$3 (stderr: $(cat "$d/err"))"
}
expect_error "printf ''" "bad: offset 0: empty case" "empty file rejected"
expect_error "head -c 5 $d/a.case" "bad: offset 5: truncated header" "truncated header rejected"
expect_error "printf 'ASGF\\003\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0'" "bad: offset 4: unsupported version" "wrong version rejected"
expect_error "printf 'NOPE\\001\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0'" "bad: offset 0: bad magic" "bad magic rejected"
expect_error "head -c 35 $d/a.case" "bad: offset 28: truncated record" "truncated record rejected"
expect_error "head -c 35 $d/a.case | sed 's/^ASGF\\x02/ASGF\\x01/'" "bad: offset 28: truncated mutation record" "truncated version 1 record rejected"
expect_error "{ head -c 9 $d/a.case; printf '\\007'; tail -c +11 $d/a.case; }" "bad: offset 9: unknown mode" "version 2: out-of-range mode rejected at its byte"
expect_error "{ head -c 16 $d/a.case; printf '\\021'; tail -c +18 $d/a.case; }" "bad: offset 16: unknown register" "version 2: out-of-range register rejected at its byte"
expect_error "head -c 100 /dev/urandom" "bad: offset" "random junk rejected"

[ "$(od -An -tu1 -j4 -N1 "$d/a.case" | tr -d ' ')" = 2 ]; ok $? "encode writes format version 2"
# A text case whose records do not fit in 1024 bytes is refused at the
# record that overflows, not written with records left out.
{ echo 'asgf-case 1'; for i in 1 2 3 4 5 6 7 8; do echo 'stk sp +0 abs 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16'; done; } > "$d/big.txt"
$tool encode "$d/big.txt" -o "$d/big.case" 2>"$d/err"; rc=$?
[ $rc = 1 ] && grep -q 'big.txt:9:1: this record makes the case 1136 bytes; a case holds at most 1024' "$d/err" && [ ! -e "$d/big.case" ]
ok $? "a text case past 1024 bytes is refused at its line (exit $rc: $(cat "$d/err"))"
{ head -c 16 "$d/a.case"; printf '\021'; tail -c +18 "$d/a.case"; } > "$d/badreg.case"
$tool fuzzdecode "$d/badreg.case" > "$d/fd.txt"; rc=$?
[ $rc -eq 0 ] && grep -q '^# dropped 1 ' "$d/fd.txt" && [ "$(grep -c '^mut ' "$d/fd.txt")" = 1 ] && grep -q '^mut pc region code_cache 0x1234$' "$d/fd.txt"
ok $? "fuzzdecode drops the record with an out-of-range register, counts it, keeps the other"
$tool codes | grep -q '^region 10 nmethod_tail$'; ok $? "casetool codes prints the stable code tables"
printf 'asgf-case 1\nmut sp region moon 1\n' > "$d/bad.txt"
$tool encode "$d/bad.txt" -o "$d/x" 2> "$d/err"; rc=$?
[ $rc -eq 1 ] && grep -q "bad.txt:2:15: unknown region 'moon'" "$d/err"; ok $? "text error names file:line:column"
$tool frobnicate x 2> "$d/err"; [ $? -eq 2 ] && grep -q "unknown command 'frobnicate'" "$d/err"; ok $? "unknown command is a usage error"
tap_done
