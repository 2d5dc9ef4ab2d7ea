#!/usr/bin/env bash
# crash-triage: the fixtures fall into exactly the expected buckets.
cd "$(dirname "$0")/.." || exit 1
# hermetic: never pick up a real fuzz/replay unless a test passes --replay-cmd
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
crash-triage/testdata-gen/mktree "$tmp/tree" || { echo "not ok - mktree"; exit 1; }
if crash-triage/triage -q --out "$tmp/out" "$tmp/tree" >"$tmp/log" 2>&1; then echo "ok - triage ran"; else echo "not ok - triage ran"; cat "$tmp/log"; exit 1; fi
if ! addr2line -f -e /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so 0x6c4394 2>/dev/null | grep -q forte_fill; then
    echo "ok - grouping # SKIP no OpenJDK 17 libjvm debug symbols (records cannot be symbolized)"; exit 0
fi
if ! addr2line -f -i -e /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so 0xeb8716 2>/dev/null | grep -q get_original_pc; then
    echo "ok - grouping # SKIP no OpenJDK 17 libjvm DWARF (openjdk-17-dbg): no inline chains"; exit 0
fi
python3 - "$tmp/out" <<'PY'
import json, os, sys
out = sys.argv[1]
rep = json.load(open(os.path.join(out, 'report.json')))
# The expected grouping, written out: title -> fixture directories.
EXPECTED = {
    # the test hook (agent test_plant / crashgen's bad frames pointer): one bug, hs_err and
    # records, OpenJDK 17 and Temurin 25, many scenarios, pids, threads and fault addresses
    'SIGSEGV in forte_fill_call_trace_given_top': [
        'hs_err-17-agct-frames-1', 'hs_err-17-agct-frames-2', 'hs_err-17-agct-signal-1',
        'hs_err-25-agct-frames-1', 'hs_err-25-agct-signal-1', 'record-forte-fill-1',
        'hs_err-17-plant-exceptions', 'hs_err-17-plant-gc', 'hs_err-17-plant-inline',
        'hs_err-17-plant-jni', 'hs_err-17-plant-recursion', 'hs_err-17-plant-spin-addr',
        'hs_err-25-plant-exceptions', 'hs_err-25-plant-recursion',
        'record-17-plant-jni', 'record-17-plant-recursion', 'record-17-plant-spin',
        'record-25-plant-deopt', 'record-25-plant-inline'],
    'SIGSEGV in Unsafe_PutLong': [
        'hs_err-17-unsafe-put-1', 'hs_err-17-unsafe-put-2', 'hs_err-17-unsafe-put-3',
        'hs_err-17-unsafe-put-truncated', 'hs_err-25-unsafe-put-1', 'hs_err-25-unsafe-put-2'],
    'SIGSEGV in Unsafe_GetLong': ['hs_err-17-unsafe-get-1', 'hs_err-17-unsafe-get-2'],
    'SIGSEGV in cg_deref < cg_deref < cg_deref': [
        'hs_err-17-jni-null-1', 'hs_err-17-jni-null-2', 'hs_err-25-jni-null-1'],
    'SIGBUS in cg_read_mapped': ['hs_err-17-jni-bus-1'],
    'FATAL in Exceptions::debug_check_abort < Exceptions::debug_check_abort_helper < InterpreterRuntime::exception_handler_for_exception':
        ['hs_err-17-fatal-exception-1'],
    'FATAL in Exceptions::debug_check_abort < Exceptions::debug_check_abort < InterpreterRuntime::exception_handler_for_exception':
        ['hs_err-25-fatal-exception-1'],
    'OOM in MemAllocator::Allocation::check_out_of_memory < MemAllocator::Allocation::~Allocation < MemAllocator::allocate':
        ['hs_err-17-oom-1'],
    'OOM in MemAllocator::allocate < TypeArrayKlass::allocate_common < InterpreterRuntime::newarray':
        ['hs_err-25-oom-1'],
    # no frames at all: a synthetic cut and a real report cut when the VM hung writing it
    'SIGSEGV with no stack': ['hs_err-17-cut-in-header', 'hs_err-17-plant-hung-truncated'],
    # the real OpenJDK 17 AGCT bug: hs_err files (inline chain added by addr2line) and
    # records (hand-written and real, from the reproducers and found afresh by mutate=near)
    'SIGSEGV in nmethod::get_original_pc < CompiledMethod::get_deopt_original_pc < frame::init':
        ['record-agct-deopt-1', 'record-agct-deopt-2', 'hs_err-17-getpc-1', 'hs_err-17-getpc-2',
         'hs_err-17-getpc-3', 'record-17-getpc-1', 'record-17-getpc-2', 'record-17-getpc-near-1',
         'record-17-getpc-near-2'],
    # a real Temurin 25 AGCT fault found by mutate=near (records only)
    'SIGSEGV in JavaThread::pd_get_top_frame_for_signal_handler':
        ['record-25-topframe-1', 'record-25-topframe-2', 'record-25-topframe-3'],
    'SIGSEGV in frame::safe_for_sender < JavaThread::pd_get_top_frame':
        ['record-safe-for-sender-1', 'record-safe-for-sender-2'],
    'SIGSEGV in walk_frames < sample < main': ['asan-segv-1', 'asan-segv-2'],
    'heap-use-after-free in use_after_free < main': ['asan-uaf-1'],
}
got = {}
for b in rep['buckets']:
    bj = json.load(open(os.path.join(out, 'buckets', b['signature'], 'bucket.json')))
    got[b['title']] = sorted(os.path.basename(os.path.dirname(m['path'])) for m in bj['members'])
n = 0
def tap(ok, name):
    print(('ok - ' if ok else 'not ok - ') + name)
tap(set(got) == set(EXPECTED), 'bucket titles are exactly the expected %d' % len(EXPECTED))
for t in sorted(set(got) | set(EXPECTED)):
    ok = got.get(t) == sorted(EXPECTED.get(t, []))
    tap(ok, 'bucket %r: %d members as expected' % (t, len(EXPECTED.get(t, []))) + ('' if ok else ' (got %s)' % got.get(t)))
tap(rep['totals']['reports'] == 54, 'total reports 54 (got %d)' % rep['totals']['reports'])
tap(rep['totals']['needs_replay'] == 2, 'two fuzzer artifacts need a replay')
tap(rep['totals']['suppressed'] == 3, 'the OOM buckets and the frameless one are suppressed (got %d)' % rep['totals']['suppressed'])
forte = [b for b in rep['buckets'] if b['title'].startswith('SIGSEGV in forte_fill')][0]
tap(forte['sources'] == {'asan': 0, 'fuzzer': 0, 'hs_err': 13, 'record': 6}, 'sources histogram of the mixed bucket (%s)' % forte['sources'])
bj = json.load(open(os.path.join(out, 'buckets', forte['signature'], 'bucket.json')))
cases = [m for m in bj['members'] if m['case']]
tap(len(cases) == 19, 'every member of the AGCT bucket has a case (13 in-flight pairs by pid/tid + 6 records; got %d)' % len(cases))
sm = open(os.path.join(out, 'buckets', forte['signature'], 'smallest.case'), 'rb').read()
tap(len(sm) == min(m['case_bytes'] for m in cases), 'smallest.case is the smallest case')
hs = [m for m in bj['members'] if m['kind'] == 'hs_err']
tap(all(open(os.path.join(out, 'buckets', forte['signature'], m['case']), 'rb').read()[:4] == b'ASGF' for m in hs),
    'inflight case files paired and copied')
tap(all(os.path.exists(os.path.join(out, 'buckets', b['signature'], 'bucket.json')) and b['representative_copy']
        and os.path.exists(os.path.join(out, b['representative_copy'])) for b in rep['buckets']),
    'every bucket has bucket.json and a representative copy')
real = [m for m in bj['members'] if '-plant-' in m['path']]
tap(len(real) == 13 and len({m['pid'] for m in real}) == 13 and len({m['tid'] for m in real}) == 13
    and len({m['si_addr'] for m in real}) >= 2 and len({m['thread'] for m in real}) >= 8,
    'real test-hook members: 13 pids and tids, %d fault addresses, %d thread names'
    % (len({m['si_addr'] for m in real}), len({m['thread'] for m in real})))
gp = [b for b in rep['buckets'] if b['title'].startswith('SIGSEGV in nmethod::get_original_pc')][0]
tap(gp['sources'] == {'asan': 0, 'fuzzer': 0, 'hs_err': 3, 'record': 6},
    'the real AGCT bug: its hs_err files and records share one bucket (%s)' % gp['sources'])
gj = json.load(open(os.path.join(out, 'buckets', gp['signature'], 'bucket.json')))
tap(all(m['case'] for m in gj['members'] if m['kind'] == 'hs_err'),
    'every real hs_err of that bug got its in-flight case (inflight-<pid>-<tid>.bin)')
sm = open(os.path.join(out, 'buckets', gp['signature'], 'smallest.case'), 'rb').read()
tap(sm[:4] == b'ASGF' and len(sm) == 40, 'its smallest case is a 40-byte case (%d)' % len(sm))
put = [b for b in rep['buckets'] if b['title'] == 'SIGSEGV in Unsafe_PutLong'][0]
tap('truncated' not in put['representative'], 'representative prefers a complete report')
PY
