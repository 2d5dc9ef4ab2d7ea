#!/usr/bin/env bash
# crash-triage: rules.json is validated (one check per kind of error), the API entry
# is "reached via" context rather than part of the signature, --explain, SafeFetch
# probe faults, and the per-key record counters (faults-KEY.txt) in the counts.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
export TRIAGE_REPLAY=/nonexistent/replay
T=crash-triage/triage

# A real record (testdata) without its test header.
body() { python3 - "$1" "$2" <<'EOF'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import testdata
_, b = testdata.split(open(sys.argv[1], 'rb').read())
open(sys.argv[2], 'wb').write(b)
EOF
}
body crash-triage/testdata/record-safe-for-sender-1 "$d/record-1-2-0.txt"
body crash-triage/testdata/hs_err-17-plant-jni "$d/hs_err_pid1.log"

# --- bad rules: exit 2, naming the file, the rule's number and the key ---------
bad_rules() {   # bad_rules NAME PYTHON-EDIT: rules.json edited by the snippet
  python3 - "$d/$1.json" "$2" <<'EOF'
import json, sys
r = json.load(open('crash-triage/rules.json'))
exec(sys.argv[2])
json.dump(r, open(sys.argv[1], 'w'))
EOF
  $T --rules "$d/$1.json" --no-symbolize --check "$d/hs_err_pid1.log" >"$d/$1.out" 2>"$d/$1.err"
}
bad_rules misspelt 'r["skip"][3] = {"fucntion": "^x$", "why": "typo"}'; rc=$?
[ $rc = 2 ] && grep -q "misspelt.json: skip rule 4: unknown key 'fucntion'" "$d/misspelt.err"
ok $? "a misspelt key in a skip rule: exit 2 naming file, rule 4 and the key (rc $rc: $(cat "$d/misspelt.err"))"
bad_rules nowhy 'del r["entry"][1]["why"]'; rc=$?
[ $rc = 2 ] && grep -q "nowhy.json: entry rule 2: missing key 'why'" "$d/nowhy.err"
ok $? "a rule without 'why': exit 2 naming file, rule 2 and the key (rc $rc: $(cat "$d/nowhy.err"))"
# a copy of the first skip rule that matches on a function name
first='[i for i, e in enumerate(r["skip"]) if set(e) == {"function", "why"}][0]'
bad_rules dup 'r["skip"].append(dict(r["skip"]['"$first"'], why="again"))'; rc=$?
read -r n k < <(python3 -c 'import json; r = json.load(open("crash-triage/rules.json")); print(len(r["skip"]) + 1, '"$first"' + 1)')
[ $rc = 2 ] && grep -q "dup.json: skip rule $n: duplicate of rule $k (same function)" "$d/dup.err"
ok $? "a duplicate rule: exit 2 naming file, both rule numbers and the key (rc $rc: $(cat "$d/dup.err"))"
bad_rules top 'r["top_frame"] = 2'; rc=$?
[ $rc = 2 ] && grep -q "top.json: unknown top-level key 'top_frame'" "$d/top.err"
ok $? "a misspelt top-level key: exit 2 naming it (rc $rc)"
bad_rules regex 'r["generic"][0]["function"] = "(unclosed"'; rc=$?
[ $rc = 2 ] && grep -q "generic rule 1: bad regex" "$d/regex.err"
ok $? "a bad regex: exit 2 naming the rule (rc $rc)"
bad_rules more 'r["generic"][0]["more"] = 0'; rc=$?
[ $rc = 2 ] && grep -q "generic rule 1: key 'more'" "$d/more.err"
ok $? "a generic rule without a positive 'more': exit 2 (rc $rc)"
$T --rules "$d/misspelt.json" --no-symbolize --out "$d/o" "$d" >/dev/null 2>&1; rc=$?
ok $(( rc != 2 )) "a triage run with bad rules exits 2 too (rc $rc)"
ok "$([ ! -e "$d/o/index.json" ]; echo $?)" "... and leaves nothing behind"

# --- the entry point is context -------------------------------------------------
out=$($T --check "$d/record-1-2-0.txt")
ok "$([ "$out" = 'SIGSEGV in frame::safe_for_sender < JavaThread::pd_get_top_frame' ]; echo $?)" \
  "the title stops above AsyncGetCallTrace ($out)"
$T --explain "$d/record-1-2-0.txt" >"$d/explain" 2>&1; rc=$?
grep -q '^  #0 .*frame::safe_for_sender.* -> keep$' "$d/explain" &&
  grep -q '^  #2 .*AsyncGetCallTrace .*-> entry: context ("reached via") \[entry rule 1: ' "$d/explain" &&
  grep -q '^reached via: AsyncGetCallTrace$' "$d/explain" &&
  grep -q '^signature: [0-9a-f]\{12\}$' "$d/explain"
ok $? "--explain lists each frame with the rule that kept or dropped it, the entry and the signature (rc $rc)"
$T --no-symbolize --explain "$d/hs_err_pid1.log" | grep -q '^  #1 .*AsyncGetCallTrace.*entry: context'
ok $? "--explain on an hs_err file"

# A fault in the entry function itself: the entry is the signature.
mkdir -p "$d/ie"
sed '/^V  \[libjvm.so+0x[0-9a-f]*\]  forte_fill_call_trace_given_top/d' "$d/hs_err_pid1.log" >"$d/ie/hs_err_pid3.log"
out=$($T --no-symbolize --check "$d/ie/hs_err_pid3.log")
ok "$([ "$out" = 'SIGSEGV in AsyncGetCallTrace' ]; echo $?)" "a fault in the entry itself is titled with it ($out)"

# SafeFetch: the VM's own probing, never a bucket (an hs_err whose top frame is the stub).
mkdir -p "$d/sf"
sed '0,/^V  \[libjvm.so+0x[0-9a-f]*\]  forte_fill_call_trace_given_top.*$/s//v  ~StubRoutines::SafeFetch32 0x00007f0000001000/' \
  "$d/hs_err_pid1.log" >"$d/sf/hs_err_pid2.log"
grep -q SafeFetch32 "$d/sf/hs_err_pid2.log"; ok $? "fixture: a fault in the SafeFetch stub"
out=$($T --no-symbolize --check "$d/sf/hs_err_pid2.log")
printf '%s' "$out" | grep -q '^probe fault, not a bucket: '; ok $? "--check says a SafeFetch fault is a probe ($out)"
$T -q --no-symbolize --out "$d/sfo" "$d/sf" >/dev/null 2>&1
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["buckets"])' "$d/sfo/report.json")
ok "$([ "$n" = 0 ]; echo $?)" "a triage run makes no bucket of it ($n buckets)"

# --- counts: records kept per key plus the per-key counter -----------------------
mkdir -p "$d/keyed"
for i in 0 1 2; do
  sed "s/^pid: .*/pid: 7\nkey: 00000000000000aa/" "$d/record-1-2-0.txt" >"$d/keyed/record-7-8-$i.txt"
done
yes '' | head -n 1000 >"$d/keyed/faults-00000000000000aa.txt"
$T --no-symbolize --out "$d/ko" "$d/keyed" >"$d/k.out" 2>&1
grep -q '^ 1000  [0-9a-f]*  SIGSEGV in libjvm.so+0x6c891c < .* (reached via run_with_iterator 1000)$' "$d/k.out"
ok $? "3 records kept of a key that faulted 1000 times: the bucket counts 1000 ($(head -1 "$d/k.out"))"
yes '' | head -n 1500 >"$d/keyed/faults-00000000000000aa.txt"
$T --no-symbolize --out "$d/ko" "$d/keyed" >"$d/k2.out" 2>&1
grep -q '^ 1500  ' "$d/k2.out"; ok $? "the counter grew: an incremental run counts 1500 ($(head -1 "$d/k2.out"))"
$T --no-symbolize --out "$d/kfresh" "$d/keyed" >"$d/k3.out" 2>&1
cmp -s <(head -1 "$d/k2.out") <(head -1 "$d/k3.out"); ok $? "... as a fresh run does"
# The faults counted under a probe fault's key are set aside with its records, and
# said so: not "no record here" (a campaign once reported 1082 faults that way).
python3 - "$d/probe-rules.json" <<'PY'
import json, sys
r = json.load(open('crash-triage/rules.json'))
r['probe_faults'].append({'module': '^libfakeprobe\\.so$', 'why': 'a test probe'})
json.dump(r, open(sys.argv[1], 'w'))
PY
mkdir -p "$d/pk"
sed -e "s/^pid: .*/pid: 9\nkey: 00000000000000bb/" -e "s|^frame: 0 .*|frame: 0 0x00007f0000001010 /x/libfakeprobe.so+0x10|" \
  "$d/record-1-2-0.txt" >"$d/pk/record-9-10-0.txt"
yes '' | head -n 500 >"$d/pk/faults-00000000000000bb.txt"
$T --no-symbolize --rules "$d/probe-rules.json" --out "$d/pko" "$d/pk" >"$d/pk.out" 2>&1
grep -q '^triage: 500 faults were only counted, under keys whose records are probe faults: set aside with them$' "$d/pk.out" &&
  ! grep -q 'no record here' "$d/pk.out" && grep -q 'Faults only counted, in no bucket: 500 under keys whose records are probe faults' "$d/pko/report.md"
ok $? "faults counted under a probe fault's key are said to be set aside with it, in report.md too ($(grep 'only counted' "$d/pk.out"))"
# --- names: one function, one name; two functions, two names ----------------
# (an argument printed with parentheses inside template arguments, or a
# namespace, once cut names short and merged functions; generated classes
# carry per-run addresses in every spelling)
python3 - >"$d/names.out" 2>&1 <<'EOF'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import signature
R = signature.Rules.load()
cases = [
    ('StackChunkFrameStream<(ChunkFrames)0>::next(RegisterMap*, bool)', 'StackChunkFrameStream::next'),
    ('StackChunkFrameStream<(ChunkFrames)1>::frame_size() const', 'StackChunkFrameStream::frame_size'),
    ('ns::(anonymous namespace)::bar(int)', 'ns::anon_ns::bar'),
    ('bool (anonymous namespace)::foo(int)', 'foo'),
    ('std::function<void (int)>::operator()(int) const', 'std::function::operator_call'),
    ('Method::bcp_from(int) const [clone .isra.0]', 'Method::bcp_from'),
    ('void Atomic::store<int>(int*, int)', 'Atomic::store'),
    ('java.lang.Foo$$Lambda$14.0x0000000800c03000.run()V', 'java.lang.Foo$$Lambda.run'),
    ('Foo$$Lambda$14+0x0000000800c03000.run', 'Foo$$Lambda.run'),
    ('java.lang.invoke.LambdaForm$MH.0x0000000800c03000.invoke(Ljava/lang/Object;)V', 'java.lang.invoke.LambdaForm$MH.invoke'),
    ('jdk.proxy1.$Proxy12.foo()V', 'jdk.proxy1.$Proxy.foo'),
    ('java.lang.Thread.<init>(Ljava/lang/Runnable;)V', 'java.lang.Thread.<init>'),
    ('Foo.<clinit>()V', 'Foo.<clinit>'),
]
bad = [(n, R.norm_function(n), want) for n, want in cases if R.norm_function(n) != want]
print(bad or 'all %d names as expected' % len(cases))
sys.exit(1 if bad else 0)
EOF
ok $? "function names normalize to one name per function ($(tail -1 "$d/names.out" | cut -c1-300))"
# --- a file cut short: its last, cut line names nothing ------------------------
python3 - >"$d/cut.out" 2>&1 <<'EOF'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import testdata, parse_hserr
_, b = testdata.split(open('crash-triage/testdata/hs_err-17-getpc-1', 'rb').read())
text = b.decode()
cut = text[:text.index('AsyncGetCallTrace+0x185') + 8]   # "AsyncGet", cut
rep = parse_hserr.parse(cut.encode(), 'x')
names = [f.function or '' for f in rep.frames]
whole = parse_hserr.parse(text.rstrip('\n').encode(), 'x')  # a whole report, its last newline lost
bad = any(n.startswith('AsyncGet') for n in names) or 'truncated' not in rep.flags or 'truncated' in whole.flags
print('cut: %s %s; whole without its last newline: %s' % (names, rep.flags, whole.flags))
sys.exit(1 if bad else 0)
EOF
ok $? "an hs_err cut inside a frame line: the cut name is no frame ($(tail -1 "$d/cut.out" | cut -c1-200))"
# --- no native stack: the VM's problematic frame titles, not the workload's Java frames
python3 - >"$d/nonative.out" 2>&1 <<'EOF'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import testdata, parse_hserr, parse_fragment, signature
R = signature.Rules.load()
_, b = testdata.split(open('crash-triage/testdata/hs_err-17-agct-frames-1', 'rb').read())
text = b.decode()
i = text.index('Native frames:')
cut = text[:i] + '[error occurred during error reporting (printing native stack), id 0xb]' + text[text.index('\n\n', i):]
titles = [R.title(parse(cut.encode(), 'x'))[0] for parse in (parse_hserr.parse, parse_fragment.parse)]
print(titles)
sys.exit(0 if all(t == 'SIGSEGV in forte_fill_call_trace_given_top' for t in titles) else 1)
EOF
ok $? "an hs_err whose native stack did not print: titled by the VM's problematic frame ($(tail -1 "$d/nonative.out" | cut -c1-200))"
tap_done
