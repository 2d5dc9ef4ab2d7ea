#!/usr/bin/env bash
# crash-triage: an hs_err is paired with the in-flight case of its own pid and crashing
# thread (inflight-<pid>-<tid>.bin, src/inflight.h), never with another thread's or
# process's, and only when the file's header agrees and holds a case.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
crash-triage/testdata-gen/mktree "$tmp/tree" hs_err-17-plant-inline >/dev/null || { echo "not ok - mktree"; exit 1; }
python3 - "$tmp" <<'PY'
import glob, json, os, shutil, struct, subprocess, sys
tmp = sys.argv[1]
sys.path.insert(0, 'crash-triage')
from ctlib import collect
def tap(ok, name):
    print(('ok - ' if ok else 'not ok - ') + name)
d = os.path.join(tmp, 'tree', 'hs_err-17-plant-inline')
hs = glob.glob(os.path.join(d, 'hs_err_pid*.log'))[0]
real = glob.glob(os.path.join(d, 'inflight-*.bin'))
tap(len(real) == 1, 'mktree lays out the fixture\'s inflight-<pid>-<tid>.bin')
name = os.path.basename(real[0])
pid, tid = (int(x) for x in name[len('inflight-'):-4].split('-'))
raw = open(real[0], 'rb').read()
n = struct.unpack_from('<I', raw, 8)[0]
want = raw[16:16 + n]

def inflight(case, htid, length=None):
    body = case + b'\0' * (1024 - len(case))
    return b'ASGFINF1' + struct.pack('<II', len(case) if length is None else length, htid) + body

other = b'ASGF\x01\0\0\0' + bytes(8) + bytes([1, 2, 7, 0]) + (0x1234).to_bytes(8, 'little')
# decoys: another thread of the same process, the same tid in another process
open(os.path.join(d, 'inflight-%d-%d.bin' % (pid, tid + 1)), 'wb').write(inflight(other, tid + 1))
open(os.path.join(d, 'inflight-%d-%d.bin' % (pid + 1, tid)), 'wb').write(inflight(other, tid))
_, reps, _ = collect.parse_path(hs)
tap(reps[0].case == want and reps[0].extra.get('inflight') == name,
    'paired with %s (%d bytes), not with the decoys of another thread or process' % (name, len(want)))

def paired(blob):
    open(real[0], 'wb').write(blob)
    _, reps, _ = collect.parse_path(hs)
    return reps[0].case
tap(paired(inflight(other, tid + 7)) is None, 'a file whose header names another tid is not used')
tap(paired(inflight(b'', tid)) is None, 'an empty in-flight file (no call made yet) gives no case')
tap(paired(inflight(other, tid, length=5000)) is None, 'a length over 1024 bytes gives no case')
tap(paired(b'ASGFINF1\x10') is None, 'a cut header gives no case')
tap(paired(inflight(other, tid)) == other, 'a good file gives exactly its length of bytes')

# through triage: the case lands in the bucket, in-flight files are not reports or junk
out = os.path.join(tmp, 'out')
subprocess.run(['crash-triage/triage', '-q', '--no-symbolize', '--out', out, os.path.join(tmp, 'tree')],
               check=True, stdout=subprocess.DEVNULL)
idx = json.load(open(os.path.join(out, 'index.json')))['files']
tap(not any('inflight-' in p for p in idx), 'in-flight files are neither reports nor listed as ignored')
rep = json.load(open(os.path.join(out, 'report.json')))
b = rep['buckets'][0]
bj = json.load(open(os.path.join(out, 'buckets', b['signature'], 'bucket.json')))
m = bj['members'][0]
tap(m['case'] and open(os.path.join(out, 'buckets', b['signature'], m['case']), 'rb').read() == other
    and open(os.path.join(out, b['smallest_case']), 'rb').read() == other,
    'triage copies the paired case into the bucket and smallest.case')
PY
