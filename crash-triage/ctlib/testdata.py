"""Testdata files: a header block (TITLE:/ALT:/FRAME:/CORRUPTED:/TRUNCATED:/NOTE:
lines, then one blank line) over the raw report. No TITLE = negative case."""
import re

KEYS = ('TITLE', 'ALT', 'FRAME', 'CORRUPTED', 'TRUNCATED', 'NOTE')
HEADER_RE = re.compile(rb'^(TITLE|ALT|FRAME|CORRUPTED|TRUNCATED|NOTE): ?(.*)$')


def split(data):
    """bytes -> (dict of header lists, raw report bytes)."""
    hdr = {k: [] for k in KEYS}
    pos = 0
    seen = False
    while pos < len(data):
        end = data.find(b'\n', pos)
        if end < 0:
            end = len(data)
        line = data[pos:end]
        m = HEADER_RE.match(line)
        if m:
            hdr[m.group(1).decode()].append(m.group(2).decode('utf-8', 'replace'))
            seen = True
            pos = end + 1
            continue
        if seen and line == b'':
            pos = end + 1
        break
    if not seen:
        return hdr, data
    return hdr, data[pos:]


def render(hdr):
    out = []
    for k in KEYS:
        for v in hdr.get(k, []):
            out.append('%s: %s' % (k, v))
    if not out:
        return b''
    return ('\n'.join(out) + '\n\n').encode()


def expected_from(rep):
    """Header values a parsed (and described) report should carry."""
    h = {k: [] for k in KEYS}
    if rep is None:
        return h
    h['TITLE'] = [rep.extra['title']]
    if rep.extra.get('alt'):
        h['ALT'] = [rep.extra['alt']]
    if rep.extra.get('frame'):
        h['FRAME'] = [rep.extra['frame']]
    if 'corrupted' in rep.flags:
        h['CORRUPTED'] = ['Y']
    if 'truncated' in rep.flags:
        h['TRUNCATED'] = ['Y']
    return h
