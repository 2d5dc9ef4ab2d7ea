#!/usr/bin/env python3
"""Writes the list of stable codes in corpus/FORMAT.md (the block between the
`<!-- codes: begin` and `<!-- codes: end -->` markers) from src/case_codes.h.

    corpus/gen/mkformat.py            print the block
    corpus/gen/mkformat.py --write    rewrite it inside corpus/FORMAT.md

The codes come through crash-triage/ctlib/case.py, the one Python reader of
src/case_codes.h, so a new code needs no hand edit of the list;
tests/core_case_codes.t checks the committed block is what this prints.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
sys.path.insert(0, os.path.join(ROOT, 'crash-triage'))
from ctlib import case  # noqa: E402

FORMAT_MD = os.path.join(ROOT, 'corpus', 'FORMAT.md')
BLOCK = re.compile(r'(<!-- codes: begin.*?-->\n)(.*?)(<!-- codes: end -->)', re.S)
TABLES = (('entry', 'CASE_ENTRY'), ('mode', 'CASE_MODE'), ('option', 'CASE_OPTION'), ('flag', 'CASE_FLAG'),
          ('record', 'CASE_RECORD'), ('kind', 'CASE_KIND'), ('region', 'CASE_REGION'))


def compress(names):
    """x0, x1, ..., x28 -> `x0`..`x28` for runs of 3 or more; others quoted one by one."""
    out, i = [], 0
    while i < len(names):
        m = re.fullmatch(r'([a-z]+)(\d+)', names[i])
        j = i
        while m and j + 1 < len(names) and names[j + 1] == '%s%d' % (m.group(1), int(m.group(2)) + j + 1 - i):
            j += 1
        out.append('`%s`..`%s`' % (names[i], names[j]) if j - i >= 2 else '`%s`' % names[i])
        i = j + 1 if j - i >= 2 else i + 1
    return out


def rows(codes=None):
    """The list as [table, code, name] rows, in the order the block shows them."""
    codes = codes or case.read_codes()
    out = [[t, str(c), '`%s`' % n] for t, macro in TABLES for c, n, *_ in codes[macro]]
    for arch, macro in (('x86_64', 'CASE_REG_X86_64'), ('aarch64', 'CASE_REG_AARCH64')):
        regs = codes[macro]
        names = compress([r[1] for r in regs])
        for r in regs:  # aliases after their names
            if r[2] != '-':
                names[names.index('`%s`' % r[1])] += ' (`%s`)' % r[2]
        out.append(['%s register' % arch, '0..%d' % (len(regs) - 1), ', '.join(names)])
    return out


def block(codes=None):
    lines = ['| table | code | name |', '|---|---|---|'] + ['| %s |' % ' | '.join(r) for r in rows(codes)]
    return '\n'.join(lines) + '\n'


def main(argv):
    if argv not in ([], ['--write']):
        sys.stderr.write('usage: corpus/gen/mkformat.py [--write]\n')
        return 2
    if not argv:
        sys.stdout.write(block())
        return 0
    text = open(FORMAT_MD, encoding='utf-8').read()
    if not BLOCK.search(text):
        sys.stderr.write('mkformat: %s has no "<!-- codes: begin ... -->" / "<!-- codes: end -->" block\n' % FORMAT_MD)
        return 1
    new = BLOCK.sub(lambda m: m.group(1) + block() + m.group(3), text, count=1)
    if new != text:
        with open(FORMAT_MD + '.tmp', 'w', encoding='utf-8') as f:
            f.write(new)
        os.replace(FORMAT_MD + '.tmp', FORMAT_MD)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
