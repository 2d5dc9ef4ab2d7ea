#!/usr/bin/env bash
# crash-triage: an hs_err that HotSpot cut short at its problematic frame, unnamed.
# When two sampled threads fault at once, the reporting thread's symbol lookup can wait
# for a lock the other one holds; HotSpot gives up on that step after 30 s and the file
# ends at `[libjvm.so+0x...]`, before its `Dynamic libraries:` list (met in CI: the
# e2e test's protect=0 run then made a bucket of its own). The run directory's
# `libraries` file (the agent, the fuzz harness and stress/run write it) must give
# triage the module to name the frame from.
cd "$(dirname "$0")/.." || exit 1
export TRIAGE_REPLAY=/nonexistent/replay
. tests/lib.sh
lib=$PWD/build/lib/libasgfagent.so
[ -f "$lib" ] || { echo "ok - stalled hs_err # SKIP $lib missing (make)"; exit 0; }
command -v addr2line >/dev/null || { echo "ok - stalled hs_err # SKIP no addr2line"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# A function of a module we build stands in for libjvm, 4 bytes in; under a name of its
# own, since triage's rules skip frames in our own modules.
cp "$lib" "$tmp/libvmstandin.so"; lib=$tmp/libvmstandin.so
off=$(nm --defined-only "$lib" | awk '$2 == "T" && $3 == "agct_code_name" {print $1}')
[ -n "$off" ]; ok $? "agct_code_name is in the stand-in's symbol table (${off:-none})"
pc=$(printf '0x%x' $(( 0x$off + 4 )))
mkdir -p "$tmp/run"
cat >"$tmp/run/hs_err_pid4242.log" <<EOF
#
# A fatal error has been detected by the Java Runtime Environment:
#
#  SIGSEGV (0xb) at pc=0x00007f0000012ca4, pid=4242, tid=4250
#
# JRE version: OpenJDK Runtime Environment (17.0.21.1+2) (build 17.0.21.1+2-1-deb12u1-Debian)
# Java VM: OpenJDK 64-Bit Server VM (17.0.21.1+2-1-deb12u1-Debian, mixed mode, sharing, tiered, compressed oops, compressed class ptrs, g1 gc, linux-amd64)
# Problematic frame:
# V  [libvmstandin.so+$pc]
EOF
cp -r "$tmp/run" "$tmp/bare"
# written when the VM came up: before the report
printf '/usr/lib/x86_64-linux-gnu/libc.so.6\n%s\n' "$lib" >"$tmp/run/libraries"
touch -d '1 minute ago' "$tmp/run/libraries"

signature_is "$tmp/bare/hs_err_pid4242.log" "SIGSEGV in libvmstandin.so+$pc" "without the run's libraries file the frame stays unnamed"
signature_is "$tmp/run/hs_err_pid4242.log" 'SIGSEGV in agct_code_name' "with it, addr2line names the frame"

# a list written after the report is a later run's in a reused directory: not used
cp -r "$tmp/run" "$tmp/reused"; touch -d '1 minute ago' "$tmp/reused/hs_err_pid4242.log"; touch "$tmp/reused/libraries"
signature_is "$tmp/reused/hs_err_pid4242.log" "SIGSEGV in libvmstandin.so+$pc" "a libraries file newer than the hs_err is not used"

# triage over the directory takes it as a report
crash-triage/triage -q --out "$tmp/o" "$tmp/run" >/dev/null 2>&1
ok $? "triage over the run directory exits 0"
st=$(python3 - "$tmp/o/index.json" <<'PY'
import json, sys
files = json.load(open(sys.argv[1]))['files']
print(' '.join('%s=%s' % (p.rsplit('/', 1)[-1], e['status']) for p, e in sorted(files.items())))
PY
)
echo "$st" | grep -q 'hs_err_pid4242.log=' && ! echo "$st" | grep -q 'hs_err_pid4242.log=\(invalid\|ignored\)'
ok $? "the cut-short hs_err is a report, not a parse failure ($st)"

# a libraries file that lists other modules, or junk, changes nothing and breaks nothing
printf 'not a path\n\0\377/lib/other.so\n' >"$tmp/bare/libraries"; touch -d '1 minute ago' "$tmp/bare/libraries"
out=$(crash-triage/triage --signature "$tmp/bare/hs_err_pid4242.log" 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q "# SIGSEGV in libvmstandin.so+$pc\$"
ok $? "a libraries file without the module is ignored (rc $rc: $(echo "$out" | tail -1))"

# Each module's build-id as it ran follows its path: the libjvm at that path since
# rebuilt (a VM engineer's build directory) has other code at the frame's offset.
then=$(build_id "$lib") other=$(build_id "$PWD/build/tests/libprobe.so")
cp -r "$tmp/bare" "$tmp/same"; cp -r "$tmp/bare" "$tmp/rebuilt"
for r in same rebuilt; do
  id=$then; [ $r = rebuilt ] && id=$other
  printf '%s\t%s\n' "$lib" "$id" >"$tmp/$r/libraries"; touch -d '1 minute ago' "$tmp/$r/libraries"
done
signature_is "$tmp/same/hs_err_pid4242.log" 'SIGSEGV in agct_code_name' "the build-id the run listed is the module's now: the frame is named"
signature_is "$tmp/rebuilt/hs_err_pid4242.log" "SIGSEGV in libvmstandin.so+$pc" "another build-id: the module was rebuilt since, the frame stays unnamed"
out=$(crash-triage/triage --explain "$tmp/rebuilt/hs_err_pid4242.log" 2>&1)
echo "$out" | grep -q "^not named: $lib is now another build (build-id $then; the report ran $other)"
ok $? "--explain says the module was rebuilt ($(echo "$out" | grep -m1 '^not named' || echo "$out" | tail -1))"

# the file's writers: the agent once the VM is up, the fuzz harness in its record directory
# (a JDK run in a root names its libjvm as the root sees it: match the path's tail)
"$JAVA" "-agentpath:$BUILD/lib/libasgfagent.so=out=$tmp/agent,quiet=1" -version >"$tmp/agent.log" 2>&1
grep -qP '^/.*/lib/server/libjvm\.so(\t[0-9a-f]+)?$' "$tmp/agent/libraries" 2>/dev/null &&
  grep -qP '^/.*/libasgfagent\.so(\t[0-9a-f]+)?$' "$tmp/agent/libraries" && ! ls "$tmp/agent" | grep -q '~$'
ok $? "the agent writes OUT/libraries, naming libjvm and itself, no temp file left ($(wc -l <"$tmp/agent/libraries" 2>/dev/null || echo no) lines)"
vmid=$(build_id "$JAVA_HOME/lib/server/libjvm.so")
grep -qP "^$(readlink -f "$JAVA_HOME")/lib/server/libjvm\.so\t$vmid\$" "$tmp/agent/libraries"
ok $? "the list gives libjvm's build-id as it was loaded ($vmid: $(grep -m1 'libjvm' "$tmp/agent/libraries" | cut -f2))"
# the next JVM of a run in the same directory, same list: the file keeps its time
touch -d '1 minute ago' "$tmp/agent/libraries"; before=$(stat -c %Y "$tmp/agent/libraries")
"$JAVA" "-agentpath:$BUILD/lib/libasgfagent.so=out=$tmp/agent,quiet=1" -version >"$tmp/agent2.log" 2>&1; rc=$?
after=$(stat -c %Y "$tmp/agent/libraries")
[ $rc = 0 ] && [ "$before" = "$after" ] && grep -qP '^/.*/lib/server/libjvm\.so(\t[0-9a-f]+)?$' "$tmp/agent/libraries"
ok $? "a second JVM with the same libraries leaves the file and its time alone (exit $rc; $before, $after)"
printf '/elsewhere/libjvm.so\n' >"$tmp/agent/libraries"
"$JAVA" "-agentpath:$BUILD/lib/libasgfagent.so=out=$tmp/agent,quiet=1" -version >"$tmp/agent3.log" 2>&1
grep -qP '^/.*/lib/server/libjvm\.so(\t[0-9a-f]+)?$' "$tmp/agent/libraries"; ok $? "a list of another VM is replaced"
if [ -x "$BUILD/fuzz/asgf-libfuzzer" ]; then
  fuzz/run-libfuzzer --runs 20 --out "$tmp/lf" >"$tmp/lf.log" 2>&1
  grep -qP '^/.*/lib/server/libjvm\.so(\t[0-9a-f]+)?$' "$tmp/lf/records/libraries" 2>/dev/null
  ok $? "the libFuzzer harness writes libraries beside its hs_err files, naming libjvm"
else
  skip "the libFuzzer harness writes libraries" "$BUILD/fuzz/asgf-libfuzzer not built"
fi
tap_done
