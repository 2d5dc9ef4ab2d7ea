#!/usr/bin/env bash
# ASGST structs: every struct and field src/asgst.h declares has a row in
# the prototype layout table (src/asgst_abi.c), whose static asserts hold
# (the core builds); a declaration that departs from the prototype layout
# (idnum widened to jlong, as it once was) stops the build.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
"$BUILD/tests/asgst_abi_print" > "$d/table"; ok $? "the layout table prints ($(wc -l < "$d/table") rows)"
python3 - src/asgst.h "$d/table" > "$d/missing" <<'PY'
import re, sys
text = re.sub(r'/\*.*?\*/', '', open(sys.argv[1]).read(), flags=re.S)
rows = {tuple(l.split()[:2]) for l in open(sys.argv[2])}
for body, name in re.findall(r'typedef struct \{(.*?)\}\s*(\w+);', text, flags=re.S):
    if (name, '-') not in rows: print(name, 'size')
    for decl in body.split(';'):
        for field in re.findall(r'\*?\s*(\w+)\s*(?:,|$)', decl.strip()):
            if decl.strip() and (name, field) not in rows: print(name, field)
PY
[ ! -s "$d/missing" ]; ok $? "every declared struct and field has a layout row (missing: $(tr '\n' ' ' < "$d/missing"))"
grep -q "ASGST_MethodInfo idnum 56 4" "$d/table" && grep -q "ASGST_MethodInfo - 0 72" "$d/table"
ok $? "MethodInfo.idnum is a 4-byte jint at 56 in a 72-byte struct"
mkdir -p "$d/inc"
# The copy of asgst_abi.c sits beside the altered header, so its
# #include "asgst.h" finds that one.
sed 's/jint idnum; /jlong idnum; /' src/asgst.h > "$d/inc/asgst.h"
cp src/asgst_abi.c "$d/inc/"
grep -q "jlong idnum; " "$d/inc/asgst.h"; ok $? "negative case prepared: idnum declared jlong"
${CC:-gcc} -std=c11 -I"$d/inc" -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -c "$d/inc/asgst_abi.c" \
  -o "$d/abi.o" > "$d/cc.out" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "ASGST_MethodInfo.idnum differs from the prototype" "$d/cc.out"
ok $? "a jlong idnum fails the build naming the field (cc exit $rc)"
tap_done
