#!/usr/bin/env bash
# Two hosts: this one and a second "host" that is an sshd of the test's own
# on 127.0.0.1 (random port, generated keys; ci/loopback-host), with its own
# copy of the checkout and its own campaign directory. GNU Parallel runs the
# plan on both (--sshloginfile); the remote jobs' results come back with
# --return and end in one report.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

missing=""
for t in sshd:/usr/sbin/sshd ssh rsync ssh-keygen; do
  name=${t%%:*} path=${t#*:}
  command -v "$name" >/dev/null || [ -x "$path" ] || missing="$missing $name"
done
if [ -n "$missing" ]; then
  echo "ok 1 - two-host campaign # SKIP missing:$missing (apt-get install openssh-server openssh-client rsync)"
  tap_done; exit 0
fi

hostdir=$d/host
trap 'ci/loopback-host stop "$hostdir"; [ "${KEEP:-0}" = 1 ] || rm -rf "$d"' EXIT
hosts=$(ci/loopback-host start "$hostdir" --slots 1 2>"$d/sshd.err"); rc=$?
ok $rc "loopback sshd started on 127.0.0.1 ($(cat "$d/sshd.err")$hosts)"
if [ $rc -ne 0 ]; then tap_done; exit 1; fi
grep -q '127.0.0.1' "$hosts" && grep -q '^1/:$' "$hosts"; ok $? "hosts file names the loopback host and this one"

# The other host's checkout: what a stress job needs, at another path.
rootB=$d/rootB
mkdir -p "$rootB/build"
cp -a ci stress "$rootB/" && cp -a "$BUILD/stress" "$BUILD/lib" "$rootB/build/"
ok $? "second checkout copied to $rootB"

write_preset "$d/hosts.preset" budget=60s job_time=7s min_attempt=3s rounds=1 triage_every=4s progress_every=5s <<'EOF'

[stress planted]
cores = 1
scenario = spin recursion inline spin,recursion
agent = test_plant=0x10
EOF
out=$d/c
ci/campaign --preset "$d/hosts.preset" --out "$out" --no-build --seed 3 --sshloginfile "$hosts" \
  --remote-root "$rootB" --remote-out "$d/remote-out" >"$d/stdout" 2>"$d/stderr"; rc=$?
ok $rc "two-host campaign exits 0 (got $rc; $(grep 'campaign: done' "$d/stderr"))"

# Jobs ran on both hosts (joblog Host column, and each job's own record).
ssh_jobs=$(tail -n +2 "$out/joblog" | cut -f2 | grep -c '127.0.0.1')
local_jobs=$(tail -n +2 "$out/joblog" | cut -f2 | grep -c '^:$')
ok $(( ssh_jobs < 1 || local_jobs < 1 )) "jobs ran on both hosts (ssh $ssh_jobs, local $local_jobs)"
remote_ok=0
for j in "$out"/results/jobs/*/; do
  if grep -q '127.0.0.1' "$j/job.json" 2>/dev/null; then
    # It ran from the other checkout, and its results came back here.
    grep -q "$rootB/stress/run" "$j"/g0a1/cmd && [ -s "$j/attempts.tsv" ] && ls "$j"/g0a1/record-*.txt >/dev/null 2>&1 && remote_ok=1
  fi
done
ok $(( !remote_ok )) "a remote job ran from the other checkout and its records were returned"
left=$(find "$d/remote-out/results" -type f 2>/dev/null | wc -l)
ok $(( left != 0 )) "returned files were cleaned up on the remote host ($left left)"
ls "$out"/results/jobs/*.tgz >/dev/null 2>&1; ok $(( $? == 0 )) "returned packs were unpacked"

# One report with the results of both hosts.
python3 - "$out" <<'EOF' >"$d/report.out" 2>&1
import json, sys
r = json.load(open(sys.argv[1] + '/report.json'))
hosts = r['totals']['hosts']
assert any('127.0.0.1' in h for h in hosts) and ':' in hosts, hosts
assert all(j['outcome'] == 'faults' for j in r['jobs']), [(j['id'], j['outcome']) for j in r['jobs']]
b = r['triage']['buckets']
assert b, 'no buckets'
found = {jid for x in b for jid in x['found_by']}
remote = {j['id'] for j in r['jobs'] if '127.0.0.1' in (j['host'] or '')}
assert found & remote and found - remote, (found, remote)
print('hosts', hosts, 'buckets', [x['signature'] for x in b])
EOF
ok $? "the report holds jobs and buckets from both hosts ($(tail -1 "$d/report.out"))"
tap_done
