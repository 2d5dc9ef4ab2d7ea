#!/usr/bin/env bash
# crash-triage: records written after a caught fault inside a call that changes VM state
# carry `tainted: OP KEY`. A bucket all of whose reports are tainted is marked as maybe
# that fault's aftermath; one with any untainted report is not; a malformed line flags
# the record corrupted and is not taken.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
. tests/lib.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
record() {   # record FRAME-OFFSET [TAINT-LINE]
  n=$((n + 1))
  { printf 'ASGF-RECORD 1\npid: 4242\ntid: %d\nentry: run_with_iterator\nmode: signal\n' "$n"
    printf 'signal: 11 SIGSEGV\nsi_code: 1\nsi_addr: 0x10\npc: 0x1 /opt/vm/libvm.so+%s\n' "$1"
    printf 'frame: 0 0x1 /opt/vm/libvm.so+%s\nframe: 1 0x2 /opt/vm/libvm.so+0x500\n' "$1"
    [ -n "${2:-}" ] && printf '%s\n' "$2"
    printf 'case: 41534746010000000000000000000000\nEND\n'
  } >"$tmp/run/record-4242-$n-0.txt"
}
mkdir -p "$tmp/run"
t='tainted: mark_move 1cccf25cdcb8a391'
record 0x100 "$t"; record 0x100 "$t"            # only ever after the taint
record 0x200 "$t"; record 0x200                 # also seen untainted
record 0x300 'tainted: mark_move nothex'        # malformed

crash-triage/triage --no-symbolize --out "$tmp/o" "$tmp/run" >"$tmp/out" 2>&1
ok $? "triage over the records exits 0"
grep -q "libvm.so+0x100.*only seen after a caught fault inside mark_move (key 1cccf25cdcb8a391)" "$tmp/out"
ok $? "the all-tainted bucket says so on stdout"
grep -q "libvm.so+0x100.*only seen after a caught fault inside mark_move" "$tmp/o/report.md"
ok $? "... and in report.md"
! grep "libvm.so+0x200" "$tmp/o/report.md" | grep -q "only seen after"
ok $? "a bucket with one untainted report is not marked"
python3 - "$tmp/o/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
by = {b['title'].split(' in ', 1)[1].split(' <')[0]: b for b in r['buckets']}
ok = by['libvm.so+0x100'].get('tainted') == 'mark_move 1cccf25cdcb8a391' and not by['libvm.so+0x200'].get('tainted') \
    and not by['libvm.so+0x300'].get('tainted')
print('# %s' % {k: b.get('tainted') for k, b in by.items()})
sys.exit(0 if ok else 1)
PY
ok $? "report.json carries the taint for that bucket only"
crash-triage/triage --no-symbolize --explain "$tmp/run/record-4242-1-0.txt" | grep -q "^tainted: after a caught fault inside mark_move (key 1cccf25cdcb8a391)"
ok $? "--explain names the taint"
crash-triage/triage --no-symbolize --check "$tmp/run/record-4242-5-0.txt" | grep -q "corrupted"
ok $? "a malformed tainted line flags the record corrupted"

# The tainting fault's own record has no tainted line, and its tainted-PID.txt (same pid,
# written in the same clock tick) must not give it one.
mkdir -p "$tmp/own"; cp "$tmp/run/record-4242-3-0.txt" "$tmp/own/"; sed -i '/^tainted:/d' "$tmp/own/record-4242-3-0.txt"
printf 'mark_move 1cccf25cdcb8a391\n' >"$tmp/own/tainted-4242.txt"; touch -d '1 minute ago' "$tmp/own/tainted-4242.txt"
! crash-triage/triage --no-symbolize --explain "$tmp/own/record-4242-3-0.txt" | grep -q "^tainted:"
ok $? "a record takes no taint from tainted-PID.txt"

# An hs_err of a tainted process: the guard's tainted-PID.txt beside it says so; one written
# after the report is a later process's with the same pid.
hs() {   # hs DIR PID
  mkdir -p "$1"
  cat >"$1/hs_err_pid$2.log" <<HS
#
# A fatal error has been detected by the Java Runtime Environment:
#
#  SIGSEGV (0xb) at pc=0x00007f0000012ca4, pid=$2, tid=4250
#
# JRE version: OpenJDK Runtime Environment (17.0.21.1+2) (build 17.0.21.1+2-1-deb12u1-Debian)
# Problematic frame:
# V  [libjvm.so+0x6c4394]  Mutex::lock()+0x24
HS
}
hs "$tmp/h1" 5151; printf 'deregister 00000000000000ab\n' >"$tmp/h1/tainted-5151.txt"
touch -d '1 minute ago' "$tmp/h1/tainted-5151.txt"
hs "$tmp/h2" 5151; printf 'deregister 00000000000000ab\n' >"$tmp/h2/tainted-5151.txt"
touch -d '1 minute ago' "$tmp/h2/hs_err_pid5151.log"
hs "$tmp/h3" 5152; printf 'deregister 00000000000000ab\n' >"$tmp/h3/tainted-5151.txt"
for h in h1 h2 h3; do
  crash-triage/triage --no-symbolize --explain "$tmp/$h/hs_err_pid"*.log >"$tmp/$h.out" 2>&1
done
grep -q "^tainted: after a caught fault inside deregister (key 00000000000000ab)" "$tmp/h1.out"
ok $? "an hs_err takes its process's taint from tainted-PID.txt"
! grep -q "^tainted:" "$tmp/h2.out" && ! grep -q "^tainted:" "$tmp/h3.out"
ok $? "not from one written after it, nor from another pid's"
crash-triage/triage --no-symbolize --out "$tmp/oh" "$tmp/h1" >"$tmp/oh.out" 2>&1
grep -q "1 files looked at" "$tmp/oh.out" && grep -q "only seen after a caught fault inside deregister" "$tmp/oh.out"
ok $? "triage over the directory takes tainted-PID.txt as no report of its own, and marks the bucket"
tap_done
