#!/usr/bin/env python3
"""Prints the stand-in provider's fault-knob log (tests/jvm/fault_knob.h):
one line per entry point and context the framework called,
'ENTRY@CONTEXT calls N planted N'. Usage: knob_log.py FILE"""
import struct
import sys

CONTEXTS = ['signal', 'thread', 'callback', 'nested', 'rewound', 'failed', 'rewound_failed', 'ended',
            'queue', 'processing', 'mark', 'unload']
MAGIC = 0x41534746464b4e31


def entry_names(header):
    """The entry points in the order of src/asgst.h's ASGST_ENTRY_POINTS."""
    text = open(header).read()
    start = text.index('#define ASGST_ENTRY_POINTS(X)')
    body = text[start:text.index('\n\n', start)]
    import re
    return re.findall(r'X\((\w+),', body)


def read(path, header):
    data = open(path, 'rb').read()
    magic, n_ep, n_ctx, _ = struct.unpack_from('<4Q', data, 0)
    if magic != MAGIC:
        sys.exit('%s: not a fault-knob log (magic %#x)' % (path, magic))
    names = entry_names(header)
    if n_ep != len(names) or n_ctx != len(CONTEXTS):
        sys.exit('%s: %d entries x %d contexts, this tree has %d x %d' % (path, n_ep, n_ctx, len(names), len(CONTEXTS)))
    size = n_ep * n_ctx
    calls = struct.unpack_from('<%dQ' % size, data, 32)
    planted = struct.unpack_from('<%dQ' % size, data, 32 + 8 * size)
    for e in range(n_ep):
        for c in range(n_ctx):
            i = e * n_ctx + c
            if calls[i] or planted[i]:
                yield names[e], CONTEXTS[c], calls[i], planted[i]


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    import os
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'asgst.h')
    for ep, ctx, calls, planted in read(sys.argv[1], header):
        print('%s@%s calls %d planted %d' % (ep, ctx, calls, planted))
