"""Signal trampolines, known by their code rather than their name.

A signal handler returns into the C library's sigreturn trampoline (glibc's
__restore_rt). In a backtrace taken inside a handler, the frame after the
handler's is that trampoline, and the frames after it are whatever code the
signal interrupted: not the fault's callers. Symbolizers name the trampoline
after whichever symbol precedes it (libc without a symbol table gives
__GI___sigaction, hs_err gives nothing), so a frame is one when the bytes
at its address in the module file are the trampoline's two instructions.
mark() gives such frames kind 'S'; rules.json's boundary rules end the
signature there."""
import os
import struct

from . import elf

# mov $15,%rax; syscall (rt_sigreturn) -- x86_64
# mov x8,#139; svc #0 -- aarch64
CODES = (bytes.fromhex('48c7c00f0000000f05'), bytes.fromhex('681180d2010000d4'))
READ = max(len(c) for c in CODES)

_loads = {}     # path -> list of (vaddr, filesz, offset) of PT_LOAD segments, or None
_hits = {}      # (path, offset) -> bool


def _segments(path):
    """PT_LOAD segments of an ELF64 little-endian file, or None."""
    if path in _loads:
        return _loads[path]
    segs = None
    if '\0' in path:            # a damaged report's module name
        _loads[path] = None
        return None
    try:
        with open(path, 'rb') as f:
            got = elf.header_table(f, 'segments')
            if got:
                segs = []
                for p in got[0]:
                    ptype, = struct.unpack_from('<I', p, 0)
                    if ptype == 1:          # PT_LOAD
                        off, vaddr, _, filesz = struct.unpack_from('<QQQQ', p, 8)
                        segs.append((vaddr, filesz, off))
    except (OSError, ValueError, struct.error):
        segs = None
    _loads[path] = segs
    return segs


def _module_base(segs):
    return min(v for v, _, _ in segs) if segs else 0


def is_sigreturn(path, offset):
    """Whether module `path` holds the sigreturn trampoline at `offset` (relative to
    where the module was loaded, as records and hs_err files give it). False when
    the file cannot be read."""
    key = (path, offset)
    if key in _hits:
        return _hits[key]
    hit = False
    segs = _segments(path)
    if segs:
        v = _module_base(segs) + offset
        for vaddr, filesz, off in segs:
            if vaddr <= v < vaddr + filesz:
                try:
                    with open(path, 'rb') as f:
                        f.seek(off + v - vaddr)
                        code = f.read(READ)
                    hit = any(code.startswith(c) for c in CODES)
                except (OSError, ValueError):
                    hit = False
                break
    _hits[key] = hit
    return hit


def module_path(rep, fr):
    """The file of a frame's module: absolute in records, through the report's list
    of loaded libraries in hs_err files."""
    if not fr.module:
        return None
    if os.path.isabs(fr.module):
        return fr.module
    return rep.module_paths.get(fr.module) or rep.module_paths.get(os.path.basename(fr.module))


def mark(rep):
    """Give the report's trampoline frames kind 'S'; returns how many."""
    n = 0
    for fr in rep.frames:
        if fr.kind == 'S' or fr.offset is None:
            continue
        path = module_path(rep, fr)
        if path and is_sigreturn(path, fr.offset):
            fr.kind = 'S'
            n += 1
    return n
