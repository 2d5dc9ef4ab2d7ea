#!/usr/bin/env bash
# One fault is one bucket, however the backtrace ends. Synthetic crash records
# point at a small module (tests/jvm/trampoline_module.c) that holds a fault
# site, its callers, an API entry, code a signal could interrupt, and a copy
# of the sigreturn trampoline placed where a symbolizer names it after the
# function before it (as libc's gives __GI___sigaction):
#  - a fault taken in a signal handler, whose backtrace runs through the
#    trampoline into whatever code the signal interrupted: the trampoline,
#    known by its code, ends the signature, so two interrupted places are one
#    bucket;
#  - a backtrace that stopped one frame early goes into the one bucket whose
#    signature starts with its frames, and --explain says why; with two such
#    buckets it stays apart.
cd "$(dirname "$0")/.." && . tests/lib.sh
[ "$(uname -m)" = x86_64 ] || [ "$(uname -m)" = aarch64 ] || { echo "ok 1 # SKIP no trampoline code for $(uname -m)"; echo 1..1; exit 0; }
make_scratch
export TRIAGE_REPLAY=/nonexistent/replay
mod=$PWD/$BUILD/tests/libtrampoline_module.so
addr() { printf '0x%x' $(( 0x$(nm "$mod" | awk -v s="$1" '$3 == s {print $1}') + $2 )); }

# record DIR NAME KEY FRAME...: a crash record whose frames are SYMBOL+DELTA
# (the first is the faulting pc, the others return addresses).
n=0
record() {
  local dir=$1 name=$2 key=$3 i=0 f sym delta off
  shift 3
  mkdir -p "$dir"
  n=$((n + 1))
  {
    printf 'ASGF-RECORD 1\npid: 4242\ntid: %d\nthread: asgst-worker-0\ntime_ns: 1795306496292651059\n' $((4300 + n))
    printf 'backend: asgst\nentry: run_with_iterator\nmode: signal\nkey: %s\noutcome: fault\nvm_last: none\n' "$key"
    printf 'signal: 11 SIGSEGV\nsi_code: 1\nsi_addr: 0x0000000000000018\n'
    for f in "$@"; do
      # OWN: a frame in one of our modules (the agent; no file needed for its name)
      if [ "$f" = OWN ]; then printf 'frame: %d 0x00007f1000001234 /nowhere/libasgfagent.so+0x1234\n' $i; i=$((i + 1)); continue; fi
      # CODE: a frame in no file mapping (the code cache: JIT code, the interpreter, stubs)
      if [ "$f" = CODE ]; then printf 'frame: %d 0x00007f2000005678 ?\n' $i; i=$((i + 1)); continue; fi
      sym=${f%+*} delta=${f#*+}
      off=$(addr "$sym" "$delta")
      [ $i = 0 ] && printf 'pc: 0x00007f0000%06x %s+%s\n' $((off)) "$mod" "$off"
      printf 'frame: %d 0x00007f0000%06x %s+%s\n' $i $((off)) "$mod" "$off"
      i=$((i + 1))
    done
    printf 'case: 4153474601000000000000000000000000010100450000000000000001020200556e6196fd8c48dc\nEND\n'
  } > "$dir/record-4242-$((4300 + n))-0.txt"
}
buckets() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("\n".join("%d %s" % (b["count"], b["title"]) for b in r["buckets"]))' "$1/report.json"; }

# one_bucket NAME TITLE STEP WHAT WHY: triage puts $d/NAME's two records in one bucket titled
# TITLE (check WHAT), and --explain of the first shows the step STEP, a regex (check WHY).
one_bucket() {
  local name=$1 title=$2 step=$3 b
  crash-triage/triage --out "$d/o-$name" "$d/$name" > "$d/t-$name" 2>&1
  b=$(buckets "$d/o-$name")
  [ "$b" = "2 $title" ]; ok $? "$4 ($(echo $b))"
  crash-triage/triage --explain "$(ls "$d/$name"/record-*.txt | head -1)" > "$d/x-$name" 2>&1
  grep -q "$step" "$d/x-$name"; ok $? "$5 ($(sed -n 5p "$d/x-$name" | cut -c1-70))"
}

# A fault in a signal handler, two interrupted places.
record "$d/sig" a 00000000000000a1 tm_fault_site+4 tm_caller_a+4 tm_sigreturn+0 tm_interrupted_a+4 tm_run_from+4
record "$d/sig" b 00000000000000a2 tm_fault_site+4 tm_caller_a+4 tm_sigreturn+0 tm_interrupted_b+4 tm_caller_b+4
one_bucket sig "SIGSEGV in tm_fault_site < tm_caller_a" \
  '^  #2 .* -> end: below it is the code the signal interrupted \[boundary rule 1: the signal trampoline, known by its code' \
  "the trampoline ends the signature: the interrupted code is not in it" \
  "--explain names the trampoline by its code, whatever the symbolizer calls it"
crash-triage/triage --no-symbolize --out "$d/o-sig2" "$d/sig" > /dev/null 2>&1
[ "$(buckets "$d/o-sig2" | wc -l)" = 1 ]; ok $? "without symbols too: the trampoline is found by its code"

# A VM fault reached from Java code: the record's frames run on through the code cache into the
# VM code that called Java, where an hs_err of the same stack stops at its first Java frame. The
# code-cache frame ends the record's title as well, so both come to one bucket.
record "$d/jit" a 00000000000000d1 tm_fault_site+4 tm_caller_a+4 CODE tm_caller_b+4 tm_run_from+4
record "$d/jit" b 00000000000000d2 tm_fault_site+4 tm_caller_a+4 CODE CODE tm_interrupted_a+4
one_bucket jit "SIGSEGV in tm_fault_site < tm_caller_a" '^  #2 .* -> stop \[stop_before rule 2: a frame in no file mapping' \
  "code-cache code below the fault's frames ends a record's title, as Java frames end an hs_err's" \
  "--explain names the stop"

# A backtrace that stopped early, beside the deeper one of the same fault.
record "$d/deep" deep 00000000000000b1 tm_fault_site+4 tm_run_from+4 ASGST_RunWithIterator+4 tm_caller_a+4
record "$d/deep" deep2 00000000000000b1 tm_fault_site+4 tm_run_from+4 ASGST_RunWithIterator+4 tm_caller_b+4
record "$d/deep" short 00000000000000b2 tm_fault_site+4
crash-triage/triage --out "$d/o-deep" "$d/deep" > "$d/t-deep" 2>&1
b=$(buckets "$d/o-deep")
[ "$b" = "3 SIGSEGV in tm_fault_site < tm_run_from" ]
ok $? "a backtrace that ended early joins the deeper bucket of its fault ($(echo $b))"
grep -q 'also SIGSEGV in tm_fault_site (backtraces that ended early)' "$d/o-deep/report.md"
ok $? "the report says which bucket it took in"
crash-triage/triage --explain "$(grep -l "tm_fault_site\|$(addr tm_fault_site 4)" "$d"/deep/record-*.txt | tail -1)" > "$d/x-deep" 2>&1
grep -q '^ends early: the backtrace ran out after 1 frame of the signature' "$d/x-deep"
ok $? "--explain says why ($(grep '^ends early' "$d/x-deep" | cut -c1-60)...)"
# Known lists naming the shallow title still match the bucket that took it in.
echo "SIGSEGV in tm_fault_site" > "$d/known"
crash-triage/triage --out "$d/o-known" --known "$d/known" "$d/deep" > /dev/null 2>&1
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["totals"]["known"] != 1)' "$d/o-known/report.json"
ok $? "a known list naming the shallow title knows the bucket"
# Run again on the same output with one more shallow record: it goes the same way.
record "$d/deep" short2 00000000000000b2 tm_fault_site+4
crash-triage/triage --out "$d/o-deep" "$d/deep" > /dev/null 2>&1
b=$(buckets "$d/o-deep")
[ "$b" = "4 SIGSEGV in tm_fault_site < tm_run_from" ]; ok $? "an incremental run folds the new shallow record too ($(echo $b))"

# Two deeper buckets: which one a shallow record belongs to is not known.
record "$d/two" x 00000000000000c1 tm_other_site+4 tm_caller_a+4 ASGST_RunWithIterator+4
record "$d/two" y 00000000000000c2 tm_other_site+4 tm_caller_b+4 ASGST_RunWithIterator+4
record "$d/two" z 00000000000000c3 tm_other_site+4
crash-triage/triage --out "$d/o-two" "$d/two" > /dev/null 2>&1
[ "$(buckets "$d/o-two" | wc -l)" = 3 ]; ok $? "with two deeper buckets the shallow one stays apart ($(buckets "$d/o-two" | tr '\n' ';'))"
# Folding is worked out from the whole tree, whatever order reports arrive in: the shallow
# record folds while one deeper bucket exists, and stands apart again once a second deeper
# bucket arrives (an incremental run ends where a fresh one ends); removing that one folds
# it back.
record "$d/ord" x 00000000000000f1 tm_other_site+4 tm_caller_a+4 ASGST_RunWithIterator+4
record "$d/ord" z 00000000000000f3 tm_other_site+4
crash-triage/triage --out "$d/o-ord" "$d/ord" > /dev/null 2>&1
b1=$(buckets "$d/o-ord" | wc -l)
record "$d/ord" y 00000000000000f2 tm_other_site+4 tm_caller_b+4 ASGST_RunWithIterator+4
crash-triage/triage --out "$d/o-ord" "$d/ord" > /dev/null 2>&1
crash-triage/triage --out "$d/o-ord-fresh" "$d/ord" > /dev/null 2>&1
b2=$(buckets "$d/o-ord" | sort) b3=$(buckets "$d/o-ord-fresh" | sort)
[ "$b1" = 1 ] && [ "$(echo "$b2" | wc -l)" = 3 ] && [ "$b2" = "$b3" ]
ok $? "a fold undone when a second deeper bucket arrives: incremental = fresh ($b1 then $(echo $b2 | tr '\n' ';'))"
shallow=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(b["signature"] for b in r["buckets"] if b["title"] == "SIGSEGV in tm_other_site"))' "$d/o-ord/report.json")
[ -n "$shallow" ] && [ -s "$d/o-ord/buckets/$shallow/smallest.case" ] && \
  ! grep -q folded_from "$d/o-ord/buckets/$shallow/bucket.json" && \
  ! grep -q "\"$shallow\"" $(ls "$d"/o-ord/buckets/*/bucket.json | grep -v "/$shallow/")
ok $? "the bucket stands again with its case, and no other bucket still lists it"
# the second deeper report rewritten to the first one's path: one deeper bucket again
ob=$(addr tm_caller_b 4) oa=$(addr tm_caller_a 4)
sed -i "s/$(printf %06x $((ob)))/$(printf %06x $((oa)))/; s/+$ob\$/+$oa/" "$(grep -l '^key: 00000000000000f2' "$d"/ord/record-*.txt)"
crash-triage/triage --out "$d/o-ord" "$d/ord" > /dev/null 2>&1
[ "$(buckets "$d/o-ord")" = "3 SIGSEGV in tm_other_site < tm_caller_a" ]
ok $? "with the second deeper bucket gone it folds back ($(buckets "$d/o-ord" | tr '\n' ';'))"
# A jump to address 0 (frames, none of which names the fault) is a bucket like any other,
# never the suppressed one of reports with no frame at all.
mkdir -p "$d/wild"
printf 'ASGF-RECORD 1\npid: 4242\ntid: 4399\nthread: asgst-worker-0\nbackend: agct\nentry: run_with_iterator\nmode: signal\nkey: 00000000000000aa\noutcome: fault\nsignal: 11 SIGSEGV\nsi_code: 1\nsi_addr: 0x0000000000000000\npc: 0x0000000000000000 ?\nframe: 0 0x0000000000000000 ?\nframe: 1 0x0000000000000008 ?\ncase: 4153474601000000000000000000000000010100450000000000000001020200556e6196fd8c48dc\nEND\n' >"$d/wild/record-4242-4399-0.txt"
crash-triage/triage --out "$d/o-wild" --known /dev/null "$d/wild" > /dev/null 2>&1
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); b=r["buckets"]; print(len(b), b[0]["title"], b[0]["status"])' "$d/o-wild/report.json" > "$d/wild.out" 2>&1
[ "$(cat "$d/wild.out")" = "1 SIGSEGV in unknown new" ]; ok $? "a jump to address 0 is a new bucket, not suppressed ($(cat "$d/wild.out"))"
# Undoing folds when the deep bucket's own report is gone: each bucket that stands again is
# built from its own meta, and a folded name whose reports are gone leaves the list.
python3 - "$d/o-meta" <<'PY'
import os, sys
sys.path.insert(0, 'crash-triage')
from ctlib import buckets, signature
st = buckets.Store(sys.argv[1], signature.Rules.load())
meta = lambda t, fr: {'title': t, 'frames': fr, 'signal': 'SIGSEGV', 'alt': None, 'frame': fr[0], 'module': None,
                      'created': None, 'suppressed': None, 'jdk': None}
m = lambda i, frm: {'id': i, 'path': '/nowhere/' + i, 'folded_from': frm, 'ended_early': True, 'case': None}
st.buckets['ff'] = dict(meta('Tff', ['a', 'b', 'c', 'd']), signature='ff', members=[m('1', 'cc'), m('2', 'aa')],
                        folded=[{'signature': 'aa', 'title': 'Taa', 'meta': meta('Taa', ['a', 'b'])},
                                {'signature': 'cc', 'title': 'Tcc', 'meta': meta('Tcc', ['a', 'b', 'c'])}])
st.buckets['tt'] = dict(meta('Ttt', ['x', 'y']), signature='tt', members=[{'id': '3', 'path': '/nowhere/3', 'ended_early': False}],
                        folded=[{'signature': 'ss', 'title': 'Tss', 'meta': meta('Tss', ['x'])}])
st.fold()
cc, ff, tt = st.buckets.get('cc'), st.buckets['ff'], st.buckets['tt']
good = (cc and cc['title'] == 'Tcc' and cc['frames'] == ['a', 'b', 'c'] and sorted(x['id'] for x in cc['members']) == ['1', '2']
        and [f['signature'] for f in cc.get('folded', [])] == ['aa'] and not ff['members'] and 'folded' not in tt)
print(('ok' if good else 'not ok') + ' - undone folds stand again from their own meta; a folded name with no reports goes (%s)'
      % (((cc or {}).get('title'), [f['signature'] for f in (cc or {}).get('folded', [])], tt.get('folded')),))
PY
[ $? = 0 ] || echo "not ok - the fold check above did not run"
# A complete short signature (reached via an entry) is its own bucket.
record "$d/entry" e 00000000000000d1 tm_other_site+4 ASGST_RunWithIterator+4
record "$d/entry" f 00000000000000d2 tm_other_site+4 tm_caller_a+4 ASGST_RunWithIterator+4
crash-triage/triage --out "$d/o-entry" "$d/entry" > /dev/null 2>&1
[ "$(buckets "$d/o-entry" | wc -l)" = 2 ]; ok $? "a fault reached straight from the entry is not folded into a deeper caller's bucket"

# One bug, reached from our iterator callback and from our queue handler: the VM called our
# code back, and that code called the VM again. Below our frame lies the VM code that drove
# the callback, one path or the other: our frame ends the signature. (The fault site's leaf
# frame hides the API entry from a frame-pointer walk, as the stand-in's planted bugs do.)
record "$d/cb" cb1 00000000000000e1 tm_other_site+4 OWN tm_caller_a+4 tm_run_from+4
record "$d/cb" cb2 00000000000000e2 tm_other_site+4 OWN tm_interrupted_b+4 tm_caller_b+4
crash-triage/triage --out "$d/o-cb" "$d/cb" > /dev/null 2>&1
b=$(buckets "$d/o-cb")
[ "$b" = "2 SIGSEGV in tm_other_site" ]; ok $? "our frame below the fault ends its signature: two driving paths, one bucket ($(echo $b))"
crash-triage/triage --explain "$(ls "$d"/cb/record-*.txt | head -1)" > "$d/x-cb" 2>&1
grep -q '^  #1 .* -> stop: our code, which the VM called back \[own rule 2' "$d/x-cb"
ok $? "--explain names the rule ($(grep -- '-> stop' "$d/x-cb" | cut -c1-80))"
# Above the fault's frames our frames are skipped: a fault in our code's callee is the callee's.
record "$d/top" t 00000000000000e3 OWN tm_other_site+4 tm_caller_a+4
crash-triage/triage --out "$d/o-top" "$d/top" > /dev/null 2>&1
[ "$(buckets "$d/o-top")" = "1 SIGSEGV in tm_other_site < tm_caller_a" ]; ok $? "our frame above the fault's frames is skipped ($(buckets "$d/o-top"))"
# A libc helper our own code called (strlen on a name the VM handed our callback): the caller,
# ours, names the bug and takes the blame; the VM frames below it drive the callback.
python3 - <<'PY'
import sys
sys.path.insert(0, 'crash-triage')
from ctlib import blame, signature
from ctlib.model import Frame
R = signature.Rules.load()
f = lambda fn, mod: Frame(module=mod, function=fn, offset=0x10)
frames = [f('__strlen_evex', '/lib/x86_64-linux-gnu/libc.so.6'), f('on_frame', '/x/libasgfagent.so'),
          f('JavaThread::foo', '/j/libjvm.so')]
names, role = R.analyse(frames)[0], blame.faulting(frames, R)[1]
good = names == ['__strlen_evex', 'on_frame'] and role == 'agent'
print(('ok' if good else 'not ok') + ' - a libc helper under our frame: %s, blamed on %s' % (' < '.join(names), role))
PY
tap_done
