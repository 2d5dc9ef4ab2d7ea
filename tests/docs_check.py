#!/usr/bin/env python3
"""Checks that the documentation says what the tree does (tests/docs.t).

  docs_check.py [ROOT]

For the README and the pages it links (docs/*.md and each tool's README):
  commands  every line of a code block that runs one of the repository's tools
            (ci/..., crash-triage/..., fuzz/..., stress/run, build/bin/...): the tool
            exists, is executable and answers --help with status 0, and every --option
            the line uses is named in that help; `make TARGET` lines: make knows the
            target (make -n);
  paths     every repository path named in backquotes exists (placeholders such as
            NAME, <sig>, DIR and globs are left alone);
  statuses  every row of docs/exit-statuses.md lists the statuses the tool's own header
            lists (its "Exit:" paragraph), no more and no fewer.
Prints one line per problem, naming file and line, and exits 1 if there is any."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
PAGES = ['README.md'] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md'))) + [
    'ci/README.md', 'fuzz/README.md', 'crash-triage/README.md', 'corpus/FORMAT.md', 'stress/README.md']
TOP = ('src/', 'agents/', 'fuzz/', 'corpus/', 'crash-triage/', 'ci/', 'tests/', 'docs/', 'stress/', 'test/',
       'build/bin/', 'build/lib/', 'build/fuzz/')
TOOL_RE = re.compile(r'^(?:[A-Z_]+=\S+\s+)*((?:ci|crash-triage|fuzz|stress|build/bin)/[\w./-]+)')
# a path with a placeholder or a pattern in it names no one file
PLACEHOLDER_RE = re.compile(r'[<>*{}\[\]]|\.\.\.|\b[A-Z][A-Z0-9_]{1,}\b|\bNAME\b|\$')
# tools whose exit table is in another file
EXIT_SOURCE = {'fuzz/replay': 'fuzz/replay.c', 'the agent': None}

problems = []


def rel(p):
    return os.path.relpath(p, ROOT)


def code_lines(path):
    """(line number, text) of each line inside a code block: indented by 4 or fenced."""
    fenced = False
    prev_blank = True
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.startswith('```'):
                fenced = not fenced
                continue
            if fenced:
                yield no, line.strip()
            elif line.startswith('    ') and line.strip() and (prev_blank or code_lines.inblock):
                code_lines.inblock = True
                yield no, line.strip()
            else:
                code_lines.inblock = False
            prev_blank = not line.strip()


code_lines.inblock = False
checked_help = {}


def check_command(page, no, text):
    text = text.split('#', 1)[0].strip() if ' #' in text or text.startswith('#') else text
    if not text:
        return
    m = TOOL_RE.match(text)
    if m:
        tool = m.group(1)
        if PLACEHOLDER_RE.search(tool):
            return
        path = os.path.join(ROOT, tool)
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            problems.append('%s:%d: command %s: no such executable' % (page, no, tool))
            return
        if tool not in checked_help:
            try:
                r = subprocess.run([path, '--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=60, cwd=ROOT)
                checked_help[tool] = (r.returncode, r.stdout.decode('utf-8', 'replace'))
            except (OSError, subprocess.TimeoutExpired) as e:
                checked_help[tool] = (str(e), '')
        rc, helptext = checked_help[tool]
        if rc != 0:
            problems.append('%s:%d: %s --help answered %s' % (page, no, tool, rc))
            return
        # every option the line uses is one the tool's help names (what follows a bare --
        # goes to another program)
        words = text[m.end():].split(' -- ', 1)[0]
        for opt in re.findall(r'(?<![\w-])(--[a-z][\w-]*)', words):
            if not re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(opt), helptext):
                problems.append('%s:%d: %s: option %s is not in its --help' % (page, no, tool, opt))
        return
    m = re.match(r'^make\s+([a-z][\w-]*)', text)
    if m:
        target = m.group(1)
        r = subprocess.run(['make', '-n', '--no-print-directory', target], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
        if b'No rule to make target' in r.stderr:
            problems.append('%s:%d: make %s: no such target' % (page, no, target))


def check_paths(page, path):
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            for tok in re.findall(r'`([^`\s]+)`', line):
                tok = tok.rstrip('.,;:)').split('#', 1)[0]
                if not tok.startswith(TOP) or PLACEHOLDER_RE.search(tok) or re.search(r'[=(]', tok):
                    continue
                if tok.startswith('build/'):
                    continue          # made by make; the tools' own checks cover them
                if not os.path.exists(os.path.join(ROOT, tok)):
                    problems.append('%s:%d: path %s does not exist' % (page, no, tok))


def codes_in(text):
    return {int(x) for x in re.findall(r'(?<![\w.-])(\d{1,3})(?=\s+[a-zA-Z(-])', text)}


def tool_codes(tool):
    """The statuses a tool's own header lists, or None when it has no Exit paragraph."""
    src = EXIT_SOURCE.get(tool, tool)
    if not src:
        return None
    path = os.path.join(ROOT, src)
    try:
        text = open(path, encoding='utf-8', errors='replace').read(20000)
    except OSError:
        return None
    m = re.search(r'^(.*?)Exit(?: status)?', text, re.M)
    if not m:
        return None
    comment = m.group(1).strip() in ('#', '*', '/*')
    body = []
    for i, line in enumerate(text[m.end():].split('\n')):
        if i == 0:                # the rest of the Exit line itself
            body.append(line.split('"""', 1)[0])
            if '"""' in line:
                break
            continue
        if '"""' in line:
            body.append(line.split('"""', 1)[0])
            break
        stripped = re.sub(r'^\s*(#|\*|/\*)\s?', '', line)
        if comment and not re.match(r'^\s*(#|\*)', line):
            break
        if body and not stripped.strip():
            break
        body.append(stripped)
    return codes_in(' '.join(body))


def check_statuses():
    page = 'docs/exit-statuses.md'
    with open(os.path.join(ROOT, page), encoding='utf-8') as f:
        rows = [(no, l) for no, l in enumerate(f, 1) if l.startswith('| `')]
    for no, line in rows:
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 6:
            problems.append('%s:%d: %d columns, not 6' % (page, no, len(cells)))
            continue
        tools = re.findall(r'`([^`]+)`', cells[0])
        doc = {code for code, cell in zip((0, 1, 2, 3), cells[1:5]) if cell} | {
            int(x) for x in re.findall(r'(?:^|;\s*)(\d{1,3})\b', cells[5])}
        for tool in tools:
            own = tool_codes(tool)
            if own is None:
                continue
            if own != doc:
                problems.append('%s:%d: %s: the page lists %s, its own header %s' % (
                    page, no, tool, sorted(doc), sorted(own)))


def main():
    for page in PAGES:
        path = os.path.join(ROOT, page) if not os.path.isabs(page) else page
        if not os.path.isfile(path):
            problems.append('%s: linked from the README but missing' % page)
            continue
        for no, text in code_lines(path):
            check_command(rel(path), no, text)
        check_paths(rel(path), path)
    check_statuses()
    for p in problems:
        print(p)
    print('docs: %d pages, %d tools answered --help, %d problems' % (len(PAGES), len(checked_help), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
