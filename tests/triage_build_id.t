#!/usr/bin/env bash
# crash-triage: a crash record names each module's GNU build-id as it ran. A module
# rebuilt at the same path since (a VM engineer's build directory, an upgraded JDK
# package) has other code at the record's offsets: triage must not name them from it,
# must say so, and must still name them from that build's debug file when it is there.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
. tests/lib.sh
lib=$PWD/build/lib/libasgfagent.so
other=$PWD/build/tests/libprobe.so
for f in "$lib" "$other"; do
  [ -f "$f" ] || { echo "ok - build-id records # SKIP $f missing (make)"; exit 0; }
done
command -v addr2line >/dev/null || { echo "ok - build-id records # SKIP no addr2line"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# One of our own modules, under a name of its own, stands in for libjvm (triage's
# rules skip frames in our modules); another of ours is "the same path, rebuilt".
cp "$lib" "$tmp/libvmstandin.so"; lib=$tmp/libvmstandin.so
then=$(build_id "$lib"); now=$(build_id "$other")
[ -n "$then" ] && [ -n "$now" ] && [ "$then" != "$now" ]
ok $? "the two modules have distinct build-ids ($then, $now)"
off=$(nm --defined-only "$lib" | awk '$2 == "T" && $3 == "agct_code_name" {print $1}')
pc=$(printf '0x%x' $(( 0x$off + 4 )))

record() {   # record DIR MODULE-PATH BUILD-ID [SYSROOT]
  mkdir -p "$1"
  { printf 'ASGF-RECORD 1\npid: 4242\ntid: 4250\nthread: worker-0\nbackend: agct\nentry: run_with_iterator\n'
    printf 'mode: signal\n'
    [ -n "${4:-}" ] && printf 'sysroot: %s\n' "$4"
    printf 'key: 00000000000000aa\noutcome: fault\nvm_last: none\nsignal: 11 SIGSEGV\nsi_code: 1\n'
    printf 'si_addr: 0x0000000000000010\npc: 0x00007f0000012ca4 %s+%s\n' "$2" "$pc"
    printf 'frame: 0 0x00007f0000012ca4 %s+%s\nbuild_id: %s %s\ncase: 41534746010000000000000000000000\nEND\n' "$2" "$pc" "$2" "$3"
  } >"$1/record-4242-4250-0.txt"
}

record "$tmp/same" "$lib" "$then"
signature_is "$tmp/same/record-4242-4250-0.txt" 'SIGSEGV in agct_code_name' "the build that ran is the one at the path: the frame is named"

record "$tmp/rebuilt" "$lib" "$now"
signature_is "$tmp/rebuilt/record-4242-4250-0.txt" "SIGSEGV in libvmstandin.so+$pc" "another build at the path: the frame keeps module+offset"
out=$(crash-triage/triage --explain "$tmp/rebuilt/record-4242-4250-0.txt" 2>&1)
echo "$out" | grep -q "^not named: $lib is now another build (build-id $then; the report ran $now)"
ok $? "--explain says why the frame is not named"

# a second frame in the same module: still one report
sed -i "s|^build_id:|frame: 1 0x00007f0000012d00 $lib+0x200\nbuild_id:|" "$tmp/rebuilt/record-4242-4250-0.txt"
crash-triage/triage --out "$tmp/o" "$tmp/rebuilt" >"$tmp/o.out" 2>"$tmp/o.err"
ok $? "triage over the record exits 0"
grep -q "^triage: $lib is another build than the one 1 report(s) ran (build-id $now then, $then now" "$tmp/o.err"
ok $? "triage says on stderr which module was rebuilt ($(head -c 300 "$tmp/o.err"))"

# A JDK run in a root: the file there was rebuilt, but the debug file of the build that
# ran is still under the root's .build-id tree, and names the frame.
root=$tmp/root; vm=/opt/vm/lib/server/libjvm.so
mkdir -p "$root/opt/vm/lib/server" "$root/usr/lib/debug/.build-id/${now:0:2}"
cp "$other" "$root$vm"
record "$tmp/rooted" "$vm" "$then" "$root"
signature_is "$tmp/rooted/record-4242-4250-0.txt" "SIGSEGV in libjvm.so+$pc" "in a root, another build and no debug file of the one that ran: unnamed"
out=$(crash-triage/triage --explain "$tmp/rooted/record-4242-4250-0.txt" 2>&1)
echo "$out" | grep -q "^not named: $vm is now another build (build-id $now; the report ran $then)"
ok $? "--explain says so for a module in a root too ($(echo "$out" | tail -1))"
mkdir -p "$root/usr/lib/debug/.build-id/${then:0:2}"
cp "$lib" "$root/usr/lib/debug/.build-id/${then:0:2}/${then:2}.debug"
signature_is "$tmp/rooted/record-4242-4250-0.txt" 'SIGSEGV in agct_code_name' "the debug file of the build that ran names it"
# Its bucket's JDK is the one inside that root, which no ci/install-jdk handle here runs:
# repro says so rather than run whatever this host has at that path.
crash-triage/triage -q --out "$tmp/or" "$tmp/rooted" >/dev/null 2>&1
crash-triage/repro "$(dirname "$(ls "$tmp"/or/buckets/*/bucket.json | head -1)")" -n 1 >/dev/null 2>"$tmp/repro-root.err"; rc=$?
[ $rc = 2 ] && grep -q "found on the JDK at /opt/vm inside the root $root, and no ci/install-jdk handle here" "$tmp/repro-root.err"
ok $? "repro of a bucket found in a root no handle runs: exit 2, says so (exit $rc: $(head -c 200 "$tmp/repro-root.err"))"
# A handle installed since (ci/install-jdk --root puts it beside the root) is that bucket's JDK
# now (whose libjvm here is another build than the one that ran: repro says so, by the
# handle's name), and a new triage names it from the start.
mkdir -p "$tmp/jdk42/bin" && ln -s "$root/opt/vm/lib" "$tmp/jdk42/lib" && echo "$root" >"$tmp/jdk42/asgf-root"
printf '#!/bin/sh\necho "stand-in java: no VM" >&2; exit 1\n' >"$tmp/jdk42/bin/java"; chmod +x "$tmp/jdk42/bin/java"
crash-triage/repro "$(dirname "$(ls "$tmp"/or/buckets/*/bucket.json | head -1)")" -n 1 --time 1s >"$tmp/repro-root2.out" 2>&1
grep -q "it was found on the JDK at $tmp/jdk42 with libjvm build-id $then; that libjvm is now $now (another build)" "$tmp/repro-root2.out"
ok $? "... once a handle runs that root's JDK, repro takes it ($(head -c 200 "$tmp/repro-root2.out"))"
crash-triage/triage -q --out "$tmp/or2" "$tmp/rooted" >/dev/null 2>&1
python3 -c 'import glob, json, sys; b = json.load(open(glob.glob(sys.argv[1] + "/buckets/*/bucket.json")[0])); print(b["jdk"]); sys.exit(b["jdk"]["home"] != sys.argv[2])' "$tmp/or2" "$tmp/jdk42" >"$tmp/or2.jdk" 2>&1
ok $? "a fresh triage gives the bucket the handle as its JDK ($(head -c 160 "$tmp/or2.jdk"))"

# The bucket remembers the build it was found on, not the one on disk now, so that repro
# can say the VM was rebuilt.
jdk=$tmp/jdk; mkdir -p "$jdk/bin" "$jdk/lib/server"
printf '#!/bin/sh\n' >"$jdk/bin/java"; chmod +x "$jdk/bin/java"
printf 'JAVA_VERSION="17.0.99"\n' >"$jdk/release"
cp "$other" "$jdk/lib/server/libjvm.so"
record "$tmp/jdkrun" "$jdk/lib/server/libjvm.so" "$then"
crash-triage/triage -q --out "$tmp/oj" "$tmp/jdkrun" >/dev/null 2>&1
python3 - "$tmp/oj" "$then" <<'PY'
import glob, json, sys
b = json.load(open(glob.glob(sys.argv[1] + '/buckets/*/bucket.json')[0]))
got = b.get('jdk') or {}
print('# bucket jdk: %s' % got)
sys.exit(0 if got.get('build_id') == sys.argv[2] and got.get('version') is None else 1)
PY
ok $? "the bucket keeps the recorded build-id, with no version read from the rebuilt JDK"
bucket=$(dirname "$(ls "$tmp"/oj/buckets/*/bucket.json | head -1)")
crash-triage/repro "$bucket" -n 1 >/dev/null 2>"$tmp/repro.err"; rc=$?
[ $rc = 2 ] && grep -q "with libjvm build-id $then; that libjvm is now $now (another build)" "$tmp/repro.err"
ok $? "repro on that bucket stops: the VM was rebuilt (exit $rc: $(head -c 300 "$tmp/repro.err"))"
# Triage alone (no --known) names the shipped list of the VM its reports came from; the
# campaign and pre-merge take it by themselves. With the JDK of these tests: the hint
# comes exactly when ci/known/ holds a list with its libjvm's build-id.
jvm=$JAVA_HOME/lib/server/libjvm.so
if [ -f "$jvm" ]; then
  real=$(build_id "$jvm")
  record "$tmp/jdk-here" "$jvm" "$real"
  crash-triage/triage -q --out "$tmp/oh" "$tmp/jdk-here" >"$tmp/oh.out" 2>&1
  list=$(grep -l "^# libjvm-build-id: $real\$" ci/known/*.known 2>/dev/null | head -1)
  if [ -n "$list" ]; then
    grep -q "^triage: $list lists the known bugs of the VM build these reports came from: --known $list marks them known\$" "$tmp/oh.out"
  else
    ! grep -q 'lists the known bugs' "$tmp/oh.out"
  fi
  ok $? "triage without --known names the shipped list of its reports' VM when there is one (${list:-none for build-id $real})"
  crash-triage/triage -q --out "$tmp/oh2" --known /dev/null "$tmp/jdk-here" >"$tmp/oh2.out" 2>&1
  ! grep -q 'lists the known bugs' "$tmp/oh2.out"; ok $? "with --known it says nothing of lists"
fi
python3 - "$PWD" "$tmp" <<'PY' >"$tmp/lists.out" 2>&1
import os, sys
sys.path.insert(0, sys.argv[1] + '/crash-triage')
from ctlib import report
d = sys.argv[2] + '/known'
os.makedirs(d)
open(d + '/a.known', 'w').write('# vm-version: 1\n# libjvm-build-id: aaaa\n\nfeedfeedfeed  # x\n')
open(d + '/b.known', 'w').write('# vm-version: 2\n# libjvm-build-id: bbbb\n')
print([os.path.basename(p) for p in report.shipped_known_lists({'bbbb', None, 'cccc'}, d)],
      report.shipped_known_lists(set(), d))
PY
grep -qx "\['b.known'\] \[\]" "$tmp/lists.out"
ok $? "shipped_known_lists picks lists by libjvm build-id ($(cat "$tmp/lists.out"))"
tap_done
