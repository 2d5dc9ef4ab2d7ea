#!/usr/bin/env bash
# The agent's and the core's modules: none names another's global variable, and no two of
# them include or call each other in a circle (tests/c_layering.py). The same
# check on a planted knot shows it can fail.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch
python3 tests/c_layering.py agents > "$d/agents.out" 2>&1
rc=$?
sed 's/^/# /' "$d/agents.out"
ok $rc "agents/: no module names another's global, no include or call circle"
python3 tests/c_layering.py src > "$d/src.out" 2>&1
rc=$?
grep -v '^[0-9]* modules' "$d/src.out" | sed 's/^/# /'
ok $rc "src/: no module names another's global, no include or call circle"
mkdir "$d/knot"
cat > "$d/knot/a.c" <<'C'
#include "b.h"
int a_count;
int a_run(void) { return b_run() + 1; }
C
cat > "$d/knot/b.c" <<'C'
#include "a.h"
int b_run(void) { return a_count ? 0 : a_run(); }
C
printf 'int a_run(void);\nextern int a_count;\n' > "$d/knot/a.h"
printf '#include "a.h"\nint b_run(void);\n' > "$d/knot/b.h"
python3 tests/c_layering.py "$d/knot" > "$d/knot.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^global: .*b.c names a_count' "$d/knot.out" && grep -q '^call circle: ' "$d/knot.out" &&
  grep -q '^include circle: ' "$d/knot.out"
ok $? "a planted knot is reported: global, call circle, include circle (exit $rc)"
tap_done
