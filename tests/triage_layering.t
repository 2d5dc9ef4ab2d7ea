#!/usr/bin/env bash
# crash-triage: ctlib's modules import each other without a circle, lazy imports inside
# functions included (a circle works only as long as every import in it stays late),
# and the two hs_err parsers share hserr_grammar instead of importing each other.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
make_scratch

# graph DIR: one line per module of the package in DIR, 'module: import import ...',
# naming the package's modules it imports anywhere in its code (ast.walk reaches
# function bodies): 'from . import x', 'from .x import y', 'import ctlib.x',
# 'from ctlib import x', 'from ctlib.x import y'.
graph() {
  python3 - "$1" <<'EOF'
import ast, os, sys
d = sys.argv[1]
pkg = os.path.basename(os.path.normpath(d))
mods = sorted(n[:-3] for n in os.listdir(d) if n.endswith('.py'))
for mod in mods:
    deps = set()
    with open(os.path.join(d, mod + '.py'), encoding='utf-8') as f:
        tree = ast.parse(f.read(), mod + '.py')
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            deps.update(a.name.split('.')[1] for a in node.names
                        if a.name.startswith(pkg + '.'))    # import ctlib.x
        elif isinstance(node, ast.ImportFrom):
            if node.level == 1:
                sub = node.module.split('.') if node.module else []
            elif node.level == 0 and (node.module or '').split('.')[0] == pkg:
                sub = node.module.split('.')[1:]
            else:
                continue                                # another package, or above this one
            if sub:
                deps.add(sub[0])                        # from .x import y / from ctlib.x import y
            else:
                deps.update(a.name for a in node.names)  # from . import x / from ctlib import x
    print('%s: %s' % (mod, ' '.join(sorted(deps & set(mods) - {mod}))))
EOF
}

# circles: reads graph lines, prints the circles a depth-first walk meets (one per
# import that leads back into the walk's path: 'a -> b -> a; c -> d -> c'), or nothing.
circles() {
  python3 -c '
import sys
g = {}
for line in sys.stdin:
    mod, _, deps = line.partition(":")
    g[mod.strip()] = deps.split()
state, path, found = {}, [], []
def visit(m):
    state[m] = "open"
    path.append(m)
    for n in g.get(m, ()):
        if state.get(n) == "open":
            found.append(path[path.index(n):] + [n])
        elif n not in state:
            visit(n)
    path.pop()
    state[m] = "done"
for m in sorted(g):
    if m not in state:
        visit(m)
print("; ".join(" -> ".join(c) for c in found))
'
}

# the checks below must be able to fail: a planted package with a lazy circle through
# each import form is seen as one
mkdir -p "$d/ctlib"
printf 'from . import b\n' >"$d/ctlib/a.py"
printf 'def f():\n    from .c import x\n' >"$d/ctlib/b.py"
printf 'def g():\n    if 1:\n        import ctlib.d\n' >"$d/ctlib/c.py"
printf 'import os\nfrom .. import far\nfrom ctlib.e import y\n' >"$d/ctlib/d.py"
printf 'from ctlib import a\n' >"$d/ctlib/e.py"
planted=$(graph "$d/ctlib" | circles)
[ "$planted" = "a -> b -> c -> d -> e -> a" ]; ok $? "a planted circle through every import form is found ($planted)"

g=$(graph crash-triage/ctlib); rc=$?
[ $rc = 0 ] && printf '%s\n' "$g" | grep -qx 'collect: .*parse_hserr.*'
ok $? "ctlib modules parse and their imports are read ($(printf '%s\n' "$g" | wc -l) modules)"
c=$(printf '%s\n' "$g" | circles)
[ -z "$c" ]; ok $? "no import circle among crash-triage/ctlib/*.py${c:+ (circle: $c)}"

imports() { printf '%s\n' "$g" | grep "^$1:" | cut -d: -f2 | tr ' ' '\n' | grep -qx "$2"; }
imports parse_hserr hserr_grammar; ok $? "parse_hserr imports hserr_grammar"
imports parse_fragment hserr_grammar; ok $? "parse_fragment imports hserr_grammar"
! imports parse_hserr parse_fragment; ok $? "parse_hserr does not import parse_fragment"
! imports parse_fragment parse_hserr; ok $? "parse_fragment does not import parse_hserr"
tap_done
