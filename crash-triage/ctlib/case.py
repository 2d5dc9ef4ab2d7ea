"""Case files (corpus/FORMAT.md, src/case.h): read, write and describe them, so that
repro and minimize can work on cases without the C build.

Binary: "ASGF" | version 1 | 3 reserved | entry mode options worker depth(u16) flags
reserved | 0..16 records of {reg, kind, region, pad, i64 value}, little endian.
Text: "asgf-case 1" then key lines (entry, mode, options, worker, depth, flags, mut)."""
import struct
from dataclasses import dataclass, field, replace
from typing import List

MAGIC = b'ASGF'
VERSION = 1
HEADER = 8
GLOBAL = 8
RECORD = 12
MAX_MUT = 16
MAX_SIZE = HEADER + GLOBAL + MAX_MUT * RECORD      # 208

ENTRIES = ['run_with_iterator', 'run_with_iterator_from_frame', 'enqueue',
           'get_enqueuable_element']
MODES = ['signal', 'thread', 'queue']
KINDS = ['abs', 'delta', 'region']
REGIONS = ['own_stack', 'other_stack', 'code_cache', 'libjvm_text', 'java_heap', 'guard_page',
           'null_page', 'unmapped', 'misaligned', 'noncanonical', 'nmethod_tail']
OPTION_NAMES = ['include_non_java_frames', 'end_on_first_java_frame']
FLAG_NAMES = ['rewind', 'method_info']
# x86_64 logical register numbers (src/arch_x86_64.c); pc/sp/fp are aliases of 0/1/2
REGS = ['rip', 'rsp', 'rbp', 'rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi',
        'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15']
REG_ALIASES = {'pc': 0, 'sp': 1, 'fp': 2}


class CaseError(Exception):
    pass


@dataclass
class Mutation:
    reg: int = 0
    kind: int = 0
    region: int = 0
    value: int = 0          # signed 64-bit

    def pack(self):
        return struct.pack('<BBBxq', self.reg & 0xff, self.kind & 0xff, self.region & 0xff,
                           _signed64(self.value))

    def text(self):
        reg = REGS[self.reg] if self.reg < len(REGS) else 'r#%d' % self.reg
        kind = KINDS[self.kind] if self.kind < len(KINDS) else 'kind#%d' % self.kind
        v = _signed64(self.value)
        if self.kind == 1 and v < 0:
            val = '-0x%x' % -v
        else:
            val = '0x%x' % (v & 0xffffffffffffffff)
        if self.kind == 2:
            region = REGIONS[self.region] if self.region < len(REGIONS) else 'region#%d' % self.region
            return 'mut %s %s %s %s' % (reg, kind, region, val)
        return 'mut %s %s %s' % (reg, kind, val)


@dataclass
class Case:
    entry: int = 0
    mode: int = 0
    options: int = 0
    worker: int = 0
    depth: int = 0
    flags: int = 0
    muts: List[Mutation] = field(default_factory=list)

    def encode(self):
        if len(self.muts) > MAX_MUT:
            raise CaseError('more than %d mutations' % MAX_MUT)
        out = MAGIC + bytes([VERSION, 0, 0, 0])
        out += struct.pack('<BBBBHBx', self.entry & 0xff, self.mode & 0xff, self.options & 0xff,
                           self.worker & 0xff, self.depth & 0xffff, self.flags & 0xff)
        for m in self.muts:
            out += m.pack()
        return out

    def copy(self):
        return replace(self, muts=[replace(m) for m in self.muts])

    def canonical(self, nregs=len(REGS)):
        """The same program as the total decoder (case_decode) reads it: entry, mode, kind
        and region modulo their counts, register modulo the architecture's (x86_64: 17),
        unknown option/flag bits dropped, the unused region byte of abs/delta records 0."""
        c = Case(self.entry % len(ENTRIES), self.mode % len(MODES),
                 self.options & ((1 << len(OPTION_NAMES)) - 1), self.worker, self.depth,
                 self.flags & ((1 << len(FLAG_NAMES)) - 1))
        for m in self.muts:
            kind = m.kind % len(KINDS)
            c.muts.append(Mutation(m.reg % nregs, kind, m.region % len(REGIONS) if kind == 2 else 0,
                                   m.value))
        return c

    def text(self):
        lines = ['asgf-case %d' % VERSION,
                 'entry %s' % _name(ENTRIES, self.entry),
                 'mode %s' % _name(MODES, self.mode),
                 'options %s' % _bits(OPTION_NAMES, self.options),
                 'worker %d' % self.worker,
                 'depth %d' % self.depth,
                 'flags %s' % _bits(FLAG_NAMES, self.flags)]
        lines += [m.text() for m in self.muts]
        return '\n'.join(lines) + '\n'

    def summary(self):
        """One line: entry, mode and the mutation lines."""
        parts = ['%s/%s' % (_name(ENTRIES, self.entry), _name(MODES, self.mode))]
        if self.options:
            parts.append('options ' + _bits(OPTION_NAMES, self.options))
        if self.flags:
            parts.append('flags ' + _bits(FLAG_NAMES, self.flags))
        if self.depth:
            parts.append('depth %d' % self.depth)
        if self.worker:
            parts.append('worker %d' % self.worker)
        parts.append('%d mutation%s' % (len(self.muts), '' if len(self.muts) == 1 else 's'))
        parts += [m.text()[4:] for m in self.muts]
        return ', '.join(parts)


def _signed64(v):
    v &= 0xffffffffffffffff
    return v - (1 << 64) if v >> 63 else v


def _name(table, i):
    return table[i] if 0 <= i < len(table) else '#%d' % i


def _bits(names, v):
    out = [n for i, n in enumerate(names) if v & (1 << i)]
    extra = v & ~((1 << len(names)) - 1)
    if extra:
        out.append('0x%x' % extra)
    return ','.join(out) or 'none'


def validate(data):
    """None if data is a well-formed binary case (case_validate's rules), else a reason."""
    n = len(data)
    if n == 0:
        return 'empty case (no header)'
    if n < HEADER:
        return 'offset %d: shorter than the 8-byte header' % n
    for i in range(4):
        if data[i] != MAGIC[i]:
            return 'offset %d: no "ASGF" magic' % i
    if data[4] != VERSION:
        return 'offset 4: version %d, not 1' % data[4]
    if n < HEADER + GLOBAL:
        return 'offset %d: no global section' % n
    if n > MAX_SIZE:
        return 'offset %d: more than %d mutation records' % (MAX_SIZE, MAX_MUT)
    if (n - HEADER - GLOBAL) % RECORD:
        return 'offset %d: cut mutation record' % (n - (n - HEADER - GLOBAL) % RECORD)
    return None


def decode(data):
    """Binary case bytes -> Case (strict: raises CaseError)."""
    why = validate(data)
    if why:
        raise CaseError(why)
    entry, mode, options, worker, depth, flags = struct.unpack_from('<BBBBHBx', data, HEADER)
    c = Case(entry, mode, options, worker, depth, flags)
    for off in range(HEADER + GLOBAL, len(data), RECORD):
        reg, kind, region, value = struct.unpack_from('<BBBxq', data, off)
        c.muts.append(Mutation(reg, kind, region, value))
    return c


def _num(tok, allow_neg=False):
    neg = tok.startswith('-')
    if neg and not allow_neg:
        raise CaseError('negative number not allowed here: %s' % tok)
    t = tok[1:] if neg else tok
    try:
        if t.lower().startswith('0x'):
            v = int(t, 16)
        elif len(t) > 1 and t.startswith('0'):
            v = int(t, 8)
        else:
            v = int(t, 10)
    except ValueError:
        raise CaseError('bad number %r' % tok)
    return -v if neg else v


def _lookup(table, word, what):
    if word in table:
        return table.index(word)
    raise CaseError('unknown %s %r' % (what, word))


def _parse_bits(names, word):
    v = 0
    if word == 'none':
        return 0
    for tok in word.replace('|', ',').split(','):
        if tok:
            v |= 1 << _lookup(names, tok, 'name')
    return v


def parse_text(text):
    """'asgf-case 1' text -> Case (raises CaseError with a line number)."""
    c = Case()
    seen = False
    for ln, raw in enumerate(text.splitlines(), 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        w = line.split()
        try:
            if not seen:
                if w[0] != 'asgf-case' or w[1:] != ['1']:
                    raise CaseError("expected 'asgf-case 1' first")
                seen = True
                continue
            key, args = w[0], w[1:]
            if key in ('entry', 'mode') and len(args) == 1:
                setattr(c, key, _lookup(ENTRIES if key == 'entry' else MODES, args[0], key))
            elif key in ('options', 'flags') and len(args) == 1:
                setattr(c, key, _parse_bits(OPTION_NAMES if key == 'options' else FLAG_NAMES, args[0]))
            elif key in ('worker', 'depth') and len(args) == 1:
                v = _num(args[0])
                if v > (255 if key == 'worker' else 65535):
                    raise CaseError('%s out of range' % key)
                setattr(c, key, v)
            elif key == 'mut' and len(args) >= 3:
                if len(c.muts) == MAX_MUT:
                    raise CaseError('more than %d mutations' % MAX_MUT)
                reg = REG_ALIASES.get(args[0])
                if reg is None:
                    reg = _lookup(REGS, args[0], 'register')
                kind = _lookup(KINDS, args[1], 'mutation kind')
                if kind == 2:
                    if len(args) != 4:
                        raise CaseError('mut REG region REGION VALUE')
                    c.muts.append(Mutation(reg, kind, _lookup(REGIONS, args[2], 'region'),
                                           _signed64(_num(args[3]))))
                else:
                    if len(args) != 3:
                        raise CaseError('mut REG %s VALUE' % args[1])
                    c.muts.append(Mutation(reg, kind, 0, _signed64(_num(args[2], kind == 1))))
            else:
                raise CaseError('unknown or malformed line %r' % line)
        except (CaseError, IndexError) as e:
            raise CaseError('line %d: %s' % (ln, e if isinstance(e, CaseError) else 'incomplete'))
    if not seen:
        raise CaseError("empty case text (expected 'asgf-case 1')")
    return c


def load(path):
    """A case file (binary or text) -> (Case, canonical binary bytes)."""
    with open(path, 'rb') as f:
        data = f.read(65537)
    if not data.startswith(MAGIC) and b'asgf-case' in data[:4096]:
        c = parse_text(data.decode('utf-8', 'replace'))
        return c, c.encode()
    c = decode(data)
    return c, data
