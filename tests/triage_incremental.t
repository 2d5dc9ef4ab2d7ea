#!/usr/bin/env bash
# crash-triage: re-runs only look at new or changed files and never count twice;
# fuzzer artifacts are replayed once a replay command exists.
cd "$(dirname "$0")/.." || exit 1
# hermetic: never pick up a real fuzz/replay unless a test passes --replay-cmd
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
T=crash-triage/triage
. tests/lib.sh
total() { python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["reports"], t["buckets"], t["needs_replay"])' "$tmp/out/report.json"; }
crash-triage/testdata-gen/mktree "$tmp/tree"
# mktree's artifacts are not valid cases (triage rejects those without a replay); make
# them valid, as a fuzzer saves them, so the replay step below has something to replay
python3 - "$tmp/tree" <<'PY'
import glob, os, sys
case = b'ASGF\x01\x00\x00\x01' + bytes(range(20))      # header, globals, one record
for p in glob.glob(os.path.join(sys.argv[1], 'libfuzzer', 'crash-*')) + \
        glob.glob(os.path.join(sys.argv[1], 'afl', '*', 'crashes', 'id:*')):
    open(p, 'wb').write(case if 'crash-' in p else case[:16])
PY
$T -q --out "$tmp/out" "$tmp/tree" >"$tmp/log1" 2>&1; ok $? "first run"
first=$(total)
$T -q --out "$tmp/out" "$tmp/tree" >"$tmp/log2" 2>&1
grep -q '^triage: 0 files looked at' "$tmp/log2"; ok $? "second run looks at no file"
[ "$(total)" = "$first" ]; ok $? "second run keeps the totals ($first)"
# a touched file is re-read but replaces its old membership
touch "$tmp"/tree/hs_err-17-unsafe-put-1/hs_err_pid*.log
$T -q --out "$tmp/out" "$tmp/tree" >"$tmp/log3" 2>&1
grep -q '^triage: 1 files looked at' "$tmp/log3"; ok $? "touched file is looked at again"
[ "$(total)" = "$first" ]; ok $? "touched file is not counted twice"
# a new report in the tree adds one to its bucket
mkdir -p "$tmp/tree/late" && cp "$tmp"/tree/hs_err-17-unsafe-get-1/hs_err_pid*.log "$tmp/tree/late/hs_err_pid9999.log"
$T -q --out "$tmp/out" "$tmp/tree" >"$tmp/log4" 2>&1
python3 - "$tmp/out" <<'PY'
import json, os, sys
rep = json.load(open(os.path.join(sys.argv[1], 'report.json')))
b = [x for x in rep['buckets'] if x['title'] == 'SIGSEGV in Unsafe_GetLong'][0]
print(('ok' if b['count'] == 3 else 'not ok') + ' - new file adds one member (Unsafe_GetLong count %d)' % b['count'])
PY
# a record that was cut short and then completed is still one member, now complete
r=$(echo "$tmp"/tree/record-safe-for-sender-2/record-*.txt)
printf '\ncase: 00ff\nEND\n' >>"$r"; touch -d '+1 second' "$r"
$T -q --out "$tmp/out" "$tmp/tree" >"$tmp/log5" 2>&1
python3 - "$tmp/out" <<'PY'
import json, os, sys
out = sys.argv[1]
rep = json.load(open(os.path.join(out, 'report.json')))
b = [x for x in rep['buckets'] if x['title'].startswith('SIGSEGV in frame::safe_for_sender')][0]
bj = json.load(open(os.path.join(out, 'buckets', b['signature'], 'bucket.json')))
m = [x for x in bj['members'] if x['pid'] == 70110]
print(('ok' if len(m) == 1 and 'truncated' not in m[0]['flags'] else 'not ok')
      + ' - completed record replaces its truncated self (%d member(s), flags %s)' % (len(m), m[0]['flags'] if m else None))
print(('ok' if b['count'] == 2 else 'not ok') + ' - bucket count unchanged (%d)' % b['count'])
PY
# a replay command turns the fuzzer artifacts into reports (a test double stands in for fuzz/replay)
cat >"$tmp/fake-replay" <<'SH'
#!/bin/sh
# usage: fake-replay --record-dir DIR FILE ; writes one crash record like the core would
[ "$1" = --record-dir ] || exit 2
J=/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so
{ echo "ASGF-RECORD 1"; echo "pid: 4242"; echo "tid: 4243"; echo "thread: replay"
  echo "time_ns: 1763800000000000000"; echo "backend: agct"; echo "entry: test"; echo "mode: direct"
  echo "signal: 11 SIGSEGV"; echo "si_code: 1"; echo "si_addr: 0x18"
  echo "pc: 0x00007f00006c4394 $J+0x6c4394"; echo "frame: 0 0x00007f00006c4394 $J+0x6c4394"
  echo "frame: 1 0x00007f00006c4a5f $J+0x6c4a5f"; echo "case: $(od -An -tx1 "$3" | tr -d ' \n')"; echo END; } >"$2/record-4242-4243-0.txt"
SH
chmod +x "$tmp/fake-replay"
before=$(total)
$T -q --out "$tmp/out" --replay-cmd "$tmp/fake-replay" "$tmp/tree" >"$tmp/log6" 2>&1; ok $? "run with a replay command"
python3 - "$tmp/out" <<'PY'
import json, os, sys
rep = json.load(open(os.path.join(sys.argv[1], 'report.json')))
print(('ok' if rep['totals']['needs_replay'] == 0 else 'not ok') + ' - no artifact needs a replay any more')
b = [x for x in rep['buckets'] if x['title'].startswith('SIGSEGV in forte_fill')][0]
print(('ok' if b['sources']['fuzzer'] == 2 else 'not ok') + ' - replayed artifacts land in the AGCT bucket as fuzzer reports (%s)' % b['sources'])
bj = json.load(open(os.path.join(sys.argv[1], 'buckets', b['signature'], 'bucket.json')))
fz = [m for m in bj['members'] if m['kind'] == 'fuzzer']
ok = len(fz) == 2 and all(m['report_file'] and os.path.exists(m['report_file']) and m['case_bytes'] for m in fz)
print(('ok' if ok else 'not ok') + ' - replay records are kept under OUT/replays and the artifact is the case')
PY
$T -q --out "$tmp/out" --replay-cmd "$tmp/fake-replay" "$tmp/tree" >"$tmp/log7" 2>&1
grep -q '^triage: 0 files looked at' "$tmp/log7"; ok $? "replayed artifacts are not replayed again"
# an artifact that is not a valid case is refused with the reason, without a replay
mkdir -p "$tmp/bad" && printf 'ASGF\001\000\000\001abc' >"$tmp/bad/crash-0123456789abcdef0123456789abcdef01234567"
printf '#!/bin/sh\ntouch "%s/replayed"\n' "$tmp" >"$tmp/marker-replay"; chmod +x "$tmp/marker-replay"
$T --check "$tmp/bad/crash-0123456789abcdef0123456789abcdef01234567" --replay-cmd "$tmp/marker-replay" >"$tmp/log8" 2>&1
grep -q 'not a valid case (offset 11: truncated global section (need 8 bytes after the header))' "$tmp/log8" && [ ! -e "$tmp/replayed" ]
ok $? "an artifact that is not a valid case is refused by offset, never replayed ($(head -c 120 "$tmp/log8"))"
