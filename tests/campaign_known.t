#!/usr/bin/env bash
# Known VM bugs ship with the repository (ci/known/, ci/cilib/known.py): a
# list matches a JDK by its libjvm build-id, else by java.vm.version (said as
# such); a JDK with no list is told so, with what the lists are for. ci/premerge
# and ci/campaign use the matching list unless --known is given; a given list
# is checked against the build its header names (another build's: WARNING),
# and --known /dev/null is accepted (every bucket new).
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

read -r version build_id < <(python3 -c 'import sys; sys.path.insert(0, "ci"); from cilib import known; print(*known.vm_identity(sys.argv[1]))' "$JAVA_HOME")
[ -n "$version" ] && [[ $build_id =~ ^[0-9a-f]{40}$ ]]
ok $? "the JDK's identity: java.vm.version $version, libjvm build-id $build_id"

find_in() {  # DIR: the message known.find gives for this JDK with the lists in DIR
  python3 -c 'import sys; sys.path.insert(0, "ci"); from cilib import known; p, why = known.find(sys.argv[1], sys.argv[2]); print(p or "-"); print(why)' "$JAVA_HOME" "$1"
}
mkdir -p "$d/by-id" "$d/by-version" "$d/none"
printf '# vm-version: other-version\n# libjvm-build-id: %s\n\nSIGSEGV in x\n' "$build_id" > "$d/by-id/a.known"
printf '# vm-version: %s\n# libjvm-build-id: 0000\n\nSIGSEGV in x\n' "$version" > "$d/by-version/b.known"
printf '# vm-version: 99.0.0\n# libjvm-build-id: 1111\n\nSIGSEGV in x\n' > "$d/none/c.known"
out=$(find_in "$d/by-id")
[ "$(echo "$out" | head -1)" = "$d/by-id/a.known" ] && echo "$out" | grep -q "libjvm build-id $build_id"
ok $? "a list with the JDK's build-id matches ($(echo "$out" | tail -1 | cut -c1-80))"
out=$(find_in "$d/by-version")
[ "$(echo "$out" | head -1)" = "$d/by-version/b.known" ] && echo "$out" | grep -q "the same version, another build"
ok $? "a list with its version but another build-id matches, and says so"
out=$(find_in "$d/none")
[ "$(echo "$out" | head -1)" = - ] && echo "$out" | grep -q "no known list ships for this VM (java.vm.version $version" && echo "$out" | grep -q "lists for 99.0.0"
ok $? "no list: said plainly, with the VMs there are lists for ($(echo "$out" | tail -1 | cut -c1-90)...)"

# Every shipped list is a valid --known list with a header that names its build,
# and says whether it was made with libjvm's debug info; and every signature in
# it is still its title's under today's rules (triage warns otherwise).
bad=""
for f in ci/known/*.known; do
  grep -q '^# vm-version: ' "$f" && grep -q '^# libjvm-build-id: [0-9a-f]\{40\}$' "$f" &&
    grep -q '^# debug-info: \(yes\|no\)$' "$f" &&
    crash-triage/triage --known "$f" --out "$d/t-$(basename "$f")" "$d/none" > /dev/null 2> "$d/t.err" &&
    ! grep -qi 'warn\|not that of its title' "$d/t.err" || bad="$bad $f"
done
[ -z "$bad" ]; ok $? "the shipped lists have their header, load as --known lists, and no title disagrees with its signature${bad:+ (not:$bad)}"

# A list made with libjvm's debug info meets a host without it (or the other way
# round): titles naming inlined functions differ, and the list says so.
here=$(python3 -c 'import sys; sys.path.insert(0, "ci"); from cilib import known; print(known.debug_info(sys.argv[1]))' "$JAVA_HOME")
other=$([ "$here" = yes ] && echo no || echo yes)
mkdir -p "$d/dbg"
printf '# vm-version: x\n# libjvm-build-id: %s\n# debug-info: %s\n\nSIGSEGV in x\n' "$build_id" "$other" > "$d/dbg/a.known"
out=$(find_in "$d/dbg")
echo "$out" | grep -q "WARNING: the list was made with$([ "$other" = no ] && echo out) libjvm's debug info"
ok $? "a list made $([ "$other" = yes ] && echo with || echo without) debug info on a host $([ "$here" = yes ] && echo with || echo without): said with the list ($(echo "$out" | tail -1 | cut -c1-160))"
printf '# vm-version: x\n# libjvm-build-id: %s\n# debug-info: %s\n\nSIGSEGV in x\n' "$build_id" "$here" > "$d/dbg/a.known"
! find_in "$d/dbg" | grep -q WARNING; ok $? "... and nothing said when they agree"
# Line tables are found in the file, beside it (an OpenJDK build's .debuginfo) or not at all.
mkdir -p "$d/lt"
objcopy --strip-debug "$BUILD/tests/fnv_test" "$d/lt/libx.so" && cp "$BUILD/tests/fnv_test" "$d/lt/libx.debuginfo"
lt() { python3 -c 'import sys; sys.path.insert(0, "crash-triage"); from ctlib.symbolize import has_line_tables; print(has_line_tables(sys.argv[1]))' "$1"; }
a=$(lt "$BUILD/tests/fnv_test") b=$(lt "$d/lt/libx.so"); rm "$d/lt/libx.debuginfo"; c=$(lt "$d/lt/libx.so")
# ... and by build-id in the root a ci/install-jdk handle links into.
bid=$(python3 -c 'import sys; sys.path.insert(0, "crash-triage"); from ctlib.symbolize import elf_build_id; print(elf_build_id(sys.argv[1]))' "$d/lt/libx.so")
mkdir -p "$d/lt/root/lib/server" "$d/lt/root/usr/lib/debug/.build-id/${bid:0:2}" "$d/lt/handle"
mv "$d/lt/libx.so" "$d/lt/root/lib/server/libjvm.so" && cp "$BUILD/tests/fnv_test" "$d/lt/root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
ln -s "$d/lt/root/lib" "$d/lt/handle/lib"; e=$(lt "$d/lt/handle/lib/server/libjvm.so")
[ "$a $b $c $e" = "True True False True" ]
ok $? "line tables: in the file, in a .debuginfo beside it, none once that is gone, by build-id in a handle's root ($a $b $c $e)"

# ci/premerge says which list it uses; --known /dev/null is a list with nothing in it.
ci/premerge --budget 0 --out "$d/pm" --no-build > "$d/pm.log" 2>&1
grep -q '^premerge: \(known list ci/known/.*(libjvm build-id\|no known list ships for this VM\)' "$d/pm.log"
ok $? "premerge names the list it takes for this VM ($(grep -m1 'known list' "$d/pm.log" | cut -c1-100))"
ci/premerge --budget 0 --known /dev/null --out "$d/pm2" --no-build > "$d/pm2.log" 2>&1
rc=$?
[ $rc = 3 ] && grep -q '^premerge: known list /dev/null (given; it names no VM build' "$d/pm2.log"
ok $? "--known /dev/null is accepted, said to name no build (exit $rc: the budget tests nothing)"

# A list given with --known is checked against the VM its header names: another build's
# list is said plainly; one made for this libjvm is said to be.
printf '# vm-version: %s\n# libjvm-build-id: %s\nffffffffffff\n' "$version" "$build_id" > "$d/this.known"
printf '# vm-version: 99.0.1+1-Other\n# libjvm-build-id: 00112233\nffffffffffff\n' > "$d/other.known"
ci/premerge --budget 0 --known "$d/other.known" --out "$d/pm3" --no-build > "$d/pm3.log" 2>&1
grep -q "^premerge: known list $d/other.known (given); WARNING: it was made for java.vm.version 99.0.1+1-Other (libjvm build-id 00112233), and this JDK is " "$d/pm3.log"
ok $? "premerge warns of a given list made for another VM ($(grep -m1 'known list' "$d/pm3.log" | cut -c1-150))"
ci/campaign --preset smoke --budget 0 --known "$d/this.known" --out "$d/c4" > "$d/c4.log" 2>&1
grep -q "^campaign: known list $d/this.known (given; made for this libjvm, build-id [0-9a-f]*)" "$d/c4.log" && ! grep -q WARNING "$d/c4.log"
ok $? "campaign says a given list was made for this libjvm ($(grep -m1 'known list' "$d/c4.log" | cut -c1-120))"
tap_done
