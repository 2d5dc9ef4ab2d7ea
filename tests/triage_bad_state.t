#!/usr/bin/env bash
# crash-triage: damaged state and bad options are named, exit 2, never a traceback:
# an index.json whose file entry is not an object, a rules file with a field of the
# wrong type or without its rule lists, a bucket.json whose member settings are not
# an object of strings, and an unknown option given to repro or writeup without a
# target.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
T=crash-triage/triage RP=crash-triage/repro
no_tb() { ! grep -q Traceback "$1"; }
# show FILE: its last line, for the description
show() { tail -1 "$1" 2>/dev/null | cut -c1-160; }

# -- index.json: a file entry that is not an object --------------------------------------
mkdir -p "$tmp/empty"
$T -q --out "$tmp/o" "$tmp/empty" >/dev/null 2>&1
echo '{"version": 1, "files": {"x": 5}}' >"$tmp/o/index.json"
$T -q --out "$tmp/o" "$tmp/empty" >/dev/null 2>"$tmp/e1"; rc=$?
[ $rc = 2 ] && no_tb "$tmp/e1" && grep -q "$tmp/o/index.json is damaged" "$tmp/e1" && grep -q "'x'" "$tmp/e1"
ok $? "index.json with a file entry that is no object: exit 2 naming the file and the entry (rc $rc: $(show "$tmp/e1"))"
echo '{"version": 1, "files": {"y": {"status": "counts", "total": 3}}}' >"$tmp/o/index.json"
$T -q --out "$tmp/o" "$tmp/empty" >/dev/null 2>"$tmp/e2"; rc=$?
[ $rc = 2 ] && no_tb "$tmp/e2" && grep -q "files\['y'\] has no valid 'key'" "$tmp/e2"
ok $? "index.json with a counts entry without its key: exit 2 naming the entry and field (rc $rc: $(show "$tmp/e2"))"
echo '{"version": 1, "files": {"z": {"status": "ignored", "key": []}}}' >"$tmp/o/index.json"
$T -q --out "$tmp/o" "$tmp/empty" >/dev/null 2>"$tmp/e3"; rc=$?
[ $rc = 2 ] && no_tb "$tmp/e3" && grep -q "files\['z'\] has no valid 'key'" "$tmp/e3"
ok $? "index.json with a key that is no string on an ignored entry: exit 2 (rc $rc: $(show "$tmp/e3"))"

# -- rules: a field of the wrong type, no rules at all -----------------------------------
crash-triage/testdata-gen/mktree "$tmp/tree" hs_err-17-agct-signal-1 >/dev/null
hs=$(echo "$tmp"/tree/hs_err-17-agct-signal-1/hs_err_pid*.log)
rules() {   # rules NAME PYTHON-EDIT: rules.json edited by the snippet, then --check with it
  python3 - "$tmp/$1.json" "$2" <<'EOF'
import json, sys
r = json.load(open('crash-triage/rules.json'))
exec(sys.argv[2])
json.dump(r, open(sys.argv[1], 'w'))
EOF
  $T --rules "$tmp/$1.json" --no-symbolize --check "$hs" >/dev/null 2>"$tmp/$1.err"
}
refused() {   # refused NAME PYTHON-EDIT PATTERN DESCRIPTION: exit 2, no traceback, PATTERN said
  rules "$1" "$2"; local rc=$?
  [ $rc = 2 ] && no_tb "$tmp/$1.err" && grep -q -- "$3" "$tmp/$1.err"
  ok $? "$4 (rc $rc: $(show "$tmp/$1.err"))"
}
refused top 'r["top_frames"] = "three"' "top.json: 'top_frames' must be" 'top_frames "three": exit 2 naming the file and the field'
refused sub 'r["normalize"][0]["sub"] = 5' "sub.json: normalize rule 1: key 'sub' must be" \
  "a rule's 'sub' that is a number: exit 2 naming the file, the rule and the key"
refused class 'del r["signal_classes"][0]["class"]' "class.json: signal_classes rule 1: missing key 'class'" \
  "a signal class without its 'class': exit 2 naming it"
refused none 'r.clear()' "none.json: .*missing .*'skip'" 'a rules file with no rules ({}): exit 2 naming what is missing'
rules noskip 'del r["skip"]'; rc=$?
[ $rc = 2 ] && grep -q "noskip.json: .*missing .*'skip'" "$tmp/noskip.err" && ! grep -q "'entry'" "$tmp/noskip.err"
ok $? "a rules file without its skip list: exit 2 naming that list alone (rc $rc: $(show "$tmp/noskip.err"))"
refused fmt 'r["title_format"] = "{signal} at {place}"' "fmt.json: 'title_format' .*only {signal} and {frames}" \
  'a title format with another placeholder: exit 2 when the rules are read'
refused fmt2 'r["title_format"] = "{signal.name} in {frames}"' "fmt2.json: 'title_format'" '... or an attribute of one: exit 2'

# -- bucket.json: member settings that are not an object of strings ----------------------
mkdir -p "$tmp/build/fuzz" "$tmp/rt"
ln -s "$PWD/crash-triage/testdata-gen/fake-replay" "$tmp/build/fuzz/asgf-replay"
python3 -c 'import sys; sys.path.insert(0, "crash-triage")
from ctlib import case
open(sys.argv[1], "wb").write(case.parse_text("asgf-case 1\nmut rax delta 5\n").encode())' "$tmp/b.case"
crash-triage/testdata-gen/fake-replay --record-dir "$tmp/rt" "$tmp/b.case" >/dev/null
$T -q --no-symbolize --out "$tmp/t" "$tmp/rt" >/dev/null 2>&1
b=$(ls -d "$tmp"/t/buckets/*/ 2>/dev/null | head -1); b=${b%/}
settings() {   # settings NAME JSON: the bucket copied, every member's settings set to JSON
  cp -r "$b" "$tmp/$1"
  python3 - "$tmp/$1/bucket.json" "$2" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
for m in b['members']:
    m['settings'] = json.loads(sys.argv[2])
json.dump(b, open(sys.argv[1], 'w'))
EOF
  BUILD=$tmp/build $RP "$tmp/$1" -n 1 >"$tmp/$1.out" 2>&1
}
settings garbage '"garbage"'; rc=$?
[ $rc = 2 ] && no_tb "$tmp/garbage.out" && grep -q 'members\[0\]\.settings' "$tmp/garbage.out" &&
  ! grep -q 'attempt' "$tmp/garbage.out"
ok $? "repro of a bucket whose member settings are a string: exit 2 up front naming members[0].settings (rc $rc: $(show "$tmp/garbage.out"))"
settings intval '{"ASGF_KEEP_GOING": 5}'; rc=$?
[ $rc = 2 ] && no_tb "$tmp/intval.out" && grep -q "members\[0\]\.settings\['ASGF_KEEP_GOING'\]" "$tmp/intval.out" &&
  ! grep -q 'attempt' "$tmp/intval.out"
ok $? "... and whose setting is a number: exit 2 up front naming it (rc $rc: $(show "$tmp/intval.out"))"

# -- an unknown option without a target is named --------------------------------------------
$RP --bogus >/dev/null 2>"$tmp/rp"; rc=$?
[ $rc = 2 ] && grep -q -- '--bogus' "$tmp/rp"
ok $? "repro --bogus: exit 2 naming --bogus (rc $rc: $(show "$tmp/rp"))"
crash-triage/writeup --bogus >/dev/null 2>"$tmp/wu"; rc=$?
[ $rc = 2 ] && grep -q -- '--bogus' "$tmp/wu"
ok $? "writeup --bogus: exit 2 naming --bogus (rc $rc: $(show "$tmp/wu"))"

# -- a binary file given as a known list ------------------------------------------------------
head -c 200 /bin/sh >"$tmp/bin.known"
mkdir -p "$tmp/emptytree"
crash-triage/triage -q --known "$tmp/bin.known" --out "$tmp/bk" "$tmp/emptytree" >/dev/null 2>"$tmp/bk.err"; rc=$?
[ $rc = 2 ] && grep -q "bin.known line 1: not text" "$tmp/bk.err" && no_tb "$tmp/bk.err"
ok $? "a binary --known file: exit 2 naming its first line (rc $rc: $(show "$tmp/bk.err"))"

tap_done
