#!/usr/bin/env bash
# Walker coverage (src/walker_cov.h): one-shot breakpoints on the basic blocks
# of libjvm's stack-walking functions, found in its symbol table. A libFuzzer
# run arms thousands of blocks and reaches some; AGCT walks report the blocks
# of AsyncGetCallTrace's own functions; every workload runs under the agent
# with coverage on without a VM crash or a stray SIGTRAP; a JDK whose libjvm
# has no symbols says so and runs without it.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
if [ ! -f /usr/include/capstone/capstone.h ]; then
  skip "walker coverage" "built without capstone (apt-get install libcapstone-dev)"; tap_done; exit
fi
cov_line() { grep -o 'walker coverage: [0-9]* of [0-9]* blocks ([0-9]* of [0-9]* functions)' "$1" | tail -1; }

# libFuzzer on the build's JDK.
mkdir -p "$d/u"
ASGF_WALKER_BLOCKS=$d/u/walker-blocks.txt timeout 300 fuzz/run-libfuzzer --duration 15s --keep-going --out "$d/lf" > "$d/lf.log" 2>&1
line=$(cov_line "$d/lf.log")
read -r n m <<<"$(echo "$line" | sed 's/walker coverage: \([0-9]*\) of \([0-9]*\) blocks.*/\1 \2/')"
[ "${m:-0}" -ge 2000 ] && [ "${n:-0}" -gt 0 ]
ok $? "libFuzzer 15 s: ${line:-no walker coverage line} (at least 2000 blocks armed, some reached)"
# The blocks of the functions AGCT itself runs are among those reached.
f=$d/lf/records/walker-coverage.txt
grep -q ' AsyncGetCallTrace$' "$f" && grep -q ' forte_fill_call_trace_given_top$' "$f"
ok $? "AGCT walks report the blocks of AsyncGetCallTrace and forte_fill_call_trace_given_top ($(grep -c ' AsyncGetCallTrace$' "$f" 2>/dev/null) and $(grep -c ' forte_fill_call_trace_given_top$' "$f" 2>/dev/null) blocks)"

# Every workload under the agent, coverage on, registers mutated: faults are
# caught as always, and no breakpoint escapes (a SIGTRAP nobody takes kills
# the VM with "Trace/breakpoint trap").
scen=$(java -cp "$BUILD/stress/classes" asgstfuzz.stress.Main --list 2>/dev/null | awk '{print $1}' | grep -v '^redefine$' | paste -sd, -)
run_stress "$d/all" "walker_cov=1,mutate=near,interval=100us" "$scen" 20 1
rc=$?
reached=$(json_field "$d/all/summary.json" walker_blocks_reached)
[ $rc -le 1 ] && ! ls "$d"/all/hs_err* > /dev/null 2>&1 && ! grep -qi 'breakpoint trap' "$d/all/log" && [ "$reached" -gt 0 ]
ok $? "every workload at once under the agent with walker_cov=1: exit $rc, no hs_err, no stray SIGTRAP, $reached blocks reached"
# Only walks count: the blocks the VM's own threads ran (a GC scanning frames, a
# deoptimization unpacking them, compiled code made not entrant) are counted apart,
# and none of those functions is in the walks' list.
vm=$(json_field "$d/all/summary.json" walker_blocks_vm_only)
own=$(grep -cE ' (frame::oops_|nmethod::oops_do|nmethod::make_not_entrant|vframeArray(Element)?::unpack|CompiledMethod::cleanup_inline_caches)' \
  "$(find "$d/all" -name walker-coverage.txt | head -1)")
[ "${vm:-0}" -gt 0 ] && [ "$own" = 0 ]
ok $? "the blocks the VM's own threads reached are counted apart ($vm), none in the walks' list ($own VM-only blocks there)"
# With protection off the walks run bare (no guarded call), and are still the walks.
run_stress "$d/p0" "walker_cov=1,protect=0" spin 4 1
p0=$(json_field "$d/p0/summary.json" walker_blocks_reached)
[ "${p0:-0}" -gt 0 ] && grep -q ' AsyncGetCallTrace$' "$d/p0/walker-coverage.txt"
ok $? "protection off: the walks' blocks still count ($p0, AsyncGetCallTrace's among them)"

# A real VM crash with coverage armed: the fault is disarmed on its way to
# the VM, whose error reporter walks the stack through the armed functions
# (with its own SIGTRAP handler): the hs_err keeps its frames.
run_stress "$d/crash" "api=agct,walker_cov=1,test_plant=0x10,protect=0" spin 5 1 > /dev/null 2>&1
h=$(ls "$d"/crash/hs_err*.log 2>/dev/null | head -1)
[ -n "$h" ] && grep -q '^V  \[libjvm.so+0x[0-9a-f]*\]  AsyncGetCallTrace' "$h" && ! grep -q 'error occurred during error reporting.*SIGTRAP' "$h"
ok $? "a VM crash under walker_cov=1: its hs_err has the native frames, no breakpoint met while reporting ($(grep -c 'during error reporting' "$h" 2>/dev/null) reporting errors)"

# A campaign's report sums its jobs' files (ci/cilib/walker.py): the union of
# the fuzzer's and the agent's blocks on one libjvm is at least either, and
# at most both.
mkdir -p "$d/u/a" "$d/u/b"
cp "$f" "$d/u/a/" 2>/dev/null; cp "$(find "$d/all" -name walker-coverage.txt | head -1)" "$d/u/b/" 2>/dev/null
na=$(($(wc -l < "$d/u/a/walker-coverage.txt") - 1)) nb=$(($(wc -l < "$d/u/b/walker-coverage.txt") - 1))
both=$(cat "$d"/u/*/walker-coverage.txt | grep -v '^#' | cut -d' ' -f1 | sort -u | wc -l)
u=$(cd ci && python3 -c 'import sys; from cilib import walker; print(walker.line(walker.union(sys.argv[1])))' "$d/u")
n=$(echo "$u" | sed -n 's/walker coverage: \([0-9]*\) of.*/\1/p')
[ "${n:-0}" = "$both" ] && [ "$n" -ge "$na" ] && [ "$n" -ge "$nb" ] && echo "$u" | grep -q 'union of 2 jobs'
ok $? "campaign report: $u (fuzzer $na, agent $nb, distinct $both)"
# ... and names source lines through the -dbg line tables (Debian's JDK has them).
src=$(cd ci && python3 -c 'import sys; from cilib import walker; s = walker.summary(sys.argv[1])["source_lines"]; print(len(s.get("forte.cpp", [])), len(s))' "$d/u")
read -r nforte nfiles <<<"$src"
[ "${nforte:-0}" -gt 0 ]; ok $? "campaign report: reached lines of forte.cpp from the line tables ($nforte lines; $nfiles source files)"
# The armed list (ASGF_WALKER_BLOCKS, written once): every armed block, so
# the report names the lines no job reached too; a line is on one side only.
armed=$(($(wc -l < "$d/u/walker-blocks.txt" 2>/dev/null || echo 1) - 1))
[ "$armed" = "${m:-x}" ] && grep -q "^# walker blocks armed in .*: $m of $m blocks" "$d/u/walker-blocks.txt"
ok $? "ASGF_WALKER_BLOCKS: the list of every armed block ($armed lines, $m armed)"
res=$(cd ci && python3 -c '
import sys; from cilib import walker
s = walker.summary(sys.argv[1]); hit, miss = s["source_lines"], s["source_unreached"]
both = sum(len(set(hit.get(f, ())) & set(v)) for f, v in miss.items())
print(len(miss.get("forte.cpp", [])), len(miss.get("frame_x86.cpp", [])), both)' "$d/u")
read -r mforte mframe both <<<"$res"
[ "${mforte:-0}" -gt 0 ] && [ "${mframe:-0}" -gt 0 ] && [ "$both" = 0 ]
ok $? "campaign report: lines not reached in forte.cpp ($mforte) and frame_x86.cpp ($mframe), none also reached ($both)"
# report.html lists every function reached (report.md the first 15 and how many more).
res=$(cd ci && python3 -c '
import sys; from cilib import walker
s = walker.summary(sys.argv[1]); h = "".join(walker.html_section(s))
t = h.split("id=\"walker-functions\"", 1)[-1].split("</table>", 1)[0]
more = [l for l in walker.markdown(s) if l.startswith("| and ")]
print(len(s["by_function"]), t.count("<tr><td><code>"), len(more))' "$d/u")
read -r nfn nrows nmore <<<"$res"
[ "${nfn:-0}" -gt 0 ] && [ "$nrows" = "$nfn" ] && { [ "$nfn" -le 15 ] || [ "$nmore" -ge 1 ]; }
ok $? "report.html lists all $nfn functions reached ($nrows rows); report.md says how many it leaves out"

# Temurin's libjvm carries its own .symtab.
t=$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -1)
if [ -z "$t" ]; then
  skip "Temurin 25: walker coverage from its .symtab" "no Temurin 25 installed"
else
  JAVA_HOME=$t timeout 300 fuzz/run-libfuzzer --duration 10s --keep-going --out "$d/t25" > "$d/t25.log" 2>&1
  line=$(cov_line "$d/t25.log")
  m=$(echo "$line" | sed -n 's/walker coverage: [0-9]* of \([0-9]*\) blocks.*/\1/p')
  [ "${m:-0}" -ge 2000 ]; ok $? "Temurin 25: ${line:-no walker coverage line}"
fi

# A libjvm without symbols: a copy of the JDK with its libjvm stripped.
mkdir -p "$d/nosym"
cp -as "$(readlink -f "$JAVA_HOME")/." "$d/nosym/" 2>/dev/null   # a tree of links, one file replaced
rm -f "$d/nosym/lib/server/libjvm.so" && strip -o "$d/nosym/lib/server/libjvm.so" "$(readlink -f "$JAVA_HOME/lib/server/libjvm.so")" &&
  objcopy --remove-section .gnu_debuglink --remove-section .note.gnu.build-id "$d/nosym/lib/server/libjvm.so"
JAVA_HOME=$d/nosym timeout 300 fuzz/run-libfuzzer --duration 5s --keep-going --out "$d/ns" > "$d/ns.log" 2>&1
rc=$?
grep -q 'walker coverage: .*has no symbol table' "$d/ns.log" && grep -q 'stat::number_of_executed_units' "$d/ns.log"
ok $? "a libjvm without symbols: said so, and the run went on without walker coverage (exit $rc: $(grep -m1 -o 'walker coverage: [^;]*' "$d/ns.log" | cut -c1-100))"
tap_done
