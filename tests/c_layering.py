#!/usr/bin/env python3
"""Layering of a directory of C modules (a .c and its .h are one module):
prints, one a line, every global variable a module defines that another
module names, and every include or call circle among the modules. Exit 1 if
there is any. Usage: c_layering.py DIR

A regular-expression reading of C, good enough for code in this tree's style
(definitions start in column 0; comments and strings are stripped first)."""
import os
import re
import sys

COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
FUNC_DEF = re.compile(r'^(?!static\b)(?:[A-Za-z_][\w\s\*]*?[\s\*])(\w+)\s*\([^;{)]*(?:\)[^;{)]*)*\)\s*\{', re.M)
VAR_DEF = re.compile(r'^(?!static\b|extern\b|typedef\b|struct \w+ \{|enum\b|union\b)'
                     r'(?:const\s+)?(?:struct\s+\w+|unsigned\s+\w+|\w+)[\s\*]+(?:const\s+)?\*?\s*(\w+)\s*(?:\[[^\]]*\])?\s*(?:=[^;]*)?;',
                     re.M)
INCLUDE = re.compile(r'^#\s*include\s+"([^"]+)"', re.M)


def modules(d):
    mods = {}
    for name in sorted(os.listdir(d)):
        base, ext = os.path.splitext(name)
        if ext in ('.c', '.h'):
            mods.setdefault(base, []).append(os.path.join(d, name))
    return mods


def cycles(graph):
    """Every elementary circle found by a depth-first search, each once."""
    found, seen = [], set()

    def visit(node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                circle = path[path.index(nxt):]
                key = frozenset(circle)
                if key not in seen:
                    seen.add(key)
                    found.append(circle + [nxt])
            elif len(path) < 12:
                visit(nxt, path + [nxt])
    for n in sorted(graph):
        visit(n, [n])
    return found


def main(d):
    mods = modules(d)
    raw = {m: {p: COMMENT.sub(' ', open(p).read()) for p in ps} for m, ps in mods.items()}
    text = {m: {p: STRING.sub('""', t) for p, t in files.items()} for m, files in raw.items()}
    funcs, globs = {}, {}
    for m, files in text.items():
        for p, t in files.items():
            if p.endswith('.c'):
                for f in FUNC_DEF.finditer(t):
                    funcs[f.group(1)] = m
                for v in VAR_DEF.finditer(t):
                    globs[v.group(1)] = m
    problems = []
    includes, calls = {}, {}
    for m, files in text.items():
        for p, t in files.items():
            for inc in INCLUDE.findall(raw[m][p]):
                other = os.path.splitext(os.path.basename(inc))[0]
                if other in mods and other != m:
                    includes.setdefault(m, set()).add(other)
            if not p.endswith('.c'):
                continue
            for name, owner in globs.items():
                if owner != m and re.search(r'\b%s\b' % re.escape(name), t):
                    problems.append('global: %s names %s, a global of %s' % (p, name, owner))
            for name, owner in funcs.items():
                if owner != m and re.search(r'\b%s\s*\(' % re.escape(name), t):
                    calls.setdefault(m, set()).add(owner)
    for kind, graph in (('include', includes), ('call', calls)):
        for c in cycles(graph):
            problems.append('%s circle: %s' % (kind, ' -> '.join(c)))
    for p in problems:
        print(p)
    print('%d modules, %d functions, %d globals; calls: %s' % (
        len(mods), len(funcs), len(globs),
        '; '.join('%s -> %s' % (m, ','.join(sorted(v))) for m, v in sorted(calls.items()))))
    return 1 if problems else 0


if __name__ == '__main__':
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit('usage: c_layering.py DIR')
    sys.exit(main(sys.argv[1]))
