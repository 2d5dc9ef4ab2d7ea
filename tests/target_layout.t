#!/usr/bin/env bash
# The hand-off's per-case words (src/target.c: req, holding, caller_w, target_w, spin_ns_)
# each sit alone on their 128-byte lines in the objects the compilers made: gcc's core and
# clang's fuzzer core. A caller counter placed beside one of them costs every case a cache
# line moving between the cores (docs/figures.md, 2026-11-28); a compiler that splits a
# padded struct into its fields (clang's global SRA does) would undo the padding unseen.
cd "$(dirname "$0")/.." && . tests/lib.sh
check() { # OBJECT LABEL
  [ -f "$1" ] || { echo "ok - $2: $1 not built # SKIP"; return; }
  nm -n -S "$1" | python3 -c '
import sys
LINE = 128
hot = ("req", "holding", "caller_w", "target_w", "spin_ns_")
syms = []
for l in sys.stdin:
    f = l.split()
    if len(f) == 4 and f[2] in "bBdD":
        syms.append((f[2].lower(), int(f[0], 16), int(f[1], 16), f[3]))
bad, seen = [], []
for sec, at, size, name in syms:
    if name.split(".")[0] not in hot:
        continue
    seen.append(name)
    lo, hi = at // LINE * LINE, -(-(at + size) // LINE) * LINE
    for s2, a2, z2, n2 in syms:
        if s2 == sec and n2 != name and a2 < hi and a2 + z2 > lo:
            bad.append("%s shares its line with %s" % (name, n2))
ok = not bad and len({n.split(".")[0] for n in seen}) == len(hot)
print(("ok" if ok else "not ok") + " - %s: the per-case words sit alone on their lines (%s)"
      % (sys.argv[1], "; ".join(bad) or ", ".join(seen)))
' "$2"
}
check "$BUILD/core/target.o" "gcc core"
check "$BUILD/fuzz/core-plain/target.o" "clang fuzzer core"
tap_done
