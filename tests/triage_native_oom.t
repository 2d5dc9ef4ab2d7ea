#!/usr/bin/env bash
# An hs_err of a native allocation that failed is OOM, kept but suppressed (the machine ran
# out), unless the request was more than a process can address: then no machine could grant
# it, its size is a garbage length (a walker reading a forged one), and the report is
# HUGE_ALLOC, a bucket that can be new. Whole files: the header of HotSpot's native-OOM
# report over a real report's stack (testdata/hs_err-17-oom-1).
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export TRIAGE_REPLAY=/nonexistent/replay
# native_oom BYTES FILE: the real OOM report with the native-OOM header asking for BYTES
native_oom() {
  mkdir -p "$(dirname "$2")"
  python3 - "$1" crash-triage/testdata/hs_err-17-oom-1 "$2" <<'PY'
import sys
n, src, dst = sys.argv[1:]
text = open(src).read().split('\n\n', 1)[1]        # the report, without the testdata header
head = ('#\n# There is insufficient memory for the Java Runtime Environment to continue.\n'
        '# Native memory allocation (malloc) failed to allocate %s bytes for Chunk::new\n'
        '# Possible reasons:\n#   The system is out of physical RAM or swap space\n'
        '#  Out of Memory Error (arena.cpp:191), pid=5529, tid=5543\n#\n' % n)
old = text.index('# JRE version:')
open(dst, 'w').write(head + text[old:])
PY
}
native_oom 18446744073709551608 "$d/in/huge/hs_err_pid5529.log"
native_oom 1048576 "$d/in/plausible/hs_err_pid5530.log"

check() { crash-triage/triage --check "$1" 2>&1 | cut -d' ' -f1; }
[ "$(check "$d/in/huge/hs_err_pid5529.log")" = HUGE_ALLOC ]
ok $? "a request of 2^64-8 bytes is HUGE_ALLOC ($(crash-triage/triage --check "$d/in/huge/hs_err_pid5529.log" 2>&1 | cut -c1-60))"
[ "$(check "$d/in/plausible/hs_err_pid5530.log")" = OOM ]
ok $? "a request of 1 MiB stays OOM ($(check "$d/in/plausible/hs_err_pid5530.log"))"
# the most any x86_64 or aarch64 process can address (5-level paging) is still a request a
# machine could run out on; one byte more is not
native_oom 144115188075855871 "$d/edge/a/hs_err_pid1.log"; native_oom 144115188075855872 "$d/edge/b/hs_err_pid2.log"
[ "$(check "$d/edge/a/hs_err_pid1.log") $(check "$d/edge/b/hs_err_pid2.log")" = "OOM HUGE_ALLOC" ]
ok $? "the line lies at 2^57 bytes ($(check "$d/edge/a/hs_err_pid1.log") $(check "$d/edge/b/hs_err_pid2.log"))"

crash-triage/triage --out "$d/out" --known /dev/null "$d/in" > "$d/log" 2>&1
python3 - "$d/out/report.json" > "$d/status" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(' '.join(sorted('%s=%s' % (b['title'].split()[0], b['status']) for b in r['buckets'])))
PY
[ "$(cat "$d/status")" = "HUGE_ALLOC=new OOM=suppressed" ]
ok $? "the HUGE_ALLOC bucket is new, the OOM one suppressed ($(cat "$d/status"))"
tap_done
