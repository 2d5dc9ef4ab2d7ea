"""Case files (corpus/FORMAT.md): read, write and describe them, so that repro and
minimize can work on cases without the C build.

The code tables (entries, modes, kinds, regions, options, flags, record types,
registers) are not copied here: they are read from src/case_codes.h, the one
source the C core is built from. tests/core_case_codes.t checks the two agree.

Binary: "ASGF" | version | 3 reserved | entry mode options worker depth(u16) flags
reserved | records, little endian. Version 2 (written): every record is a 12-byte
head whose byte 3 is its type, then the type's payload words; codes are checked.
Version 1 (read, and written back unchanged): at most 16 mut records, codes taken
modulo their table size by the decoder.
Text: "asgf-case 1" then key lines (entry, mode, options, worker, depth, flags, and
one line per record, keyed by the record type's name)."""
import os
import platform
import re
import struct
from dataclasses import dataclass, field, replace
from typing import List

CODES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'case_codes.h')

MAGIC = b'ASGF'
VERSION = 2              # what encode() writes for new cases
VERSION_1 = 1
HEADER = 8
GLOBAL = 8
RECORD = 12              # a record head
WORD = 8                 # a payload word
V1_MAX_RECORDS = 16
V1_MAX_SIZE = HEADER + GLOBAL + V1_MAX_RECORDS * RECORD      # 208
MAX_SIZE = 1024          # version 2 (CASE_MAX_SIZE)
MAX_MUT = 32             # mut records in one program (CASE_MAX_MUTATIONS)
MAX_QOP = 16             # qop records in one program (CASE_MAX_QOPS)
MAX_STK = 8              # stk records in one program (CASE_MAX_STK)
IMAGE_SIZE = 8192        # bytes of stack top a stk case forges (CASE_IMAGE_SIZE)
ANCHORS = ['sp', 'fp', 'fp2', 'fp3', 'ret1', 'ret2', 'ret3', 'ret4']   # stk anchors, by code (case.h)
V1_SIZES = {'entry': 4, 'mode': 3, 'kind': 3, 'region': 11}  # frozen: version 1 decodes modulo these


def read_codes(path=CODES_FILE):
    """src/case_codes.h -> {macro: [argument lists]}, in file order, ints converted."""
    tables = {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            m = re.match(r'^(CASE_[A-Z0-9_]+)\((.*)\)\s*$', line)
            if not m:
                continue
            args = [a.strip() for a in m.group(2).split(',')]
            args = [int(a) if re.fullmatch(r'-?\d+', a) else a for a in args]
            tables.setdefault(m.group(1), []).append(args)
    return tables


def _dense(rows, what):
    names = [r[1] for r in rows]
    if [r[0] for r in rows] != list(range(len(rows))):
        raise ImportError('%s: %s codes are not 0..%d in order' % (CODES_FILE, what, len(rows) - 1))
    return names


CODES = read_codes()
ENTRIES = _dense(CODES['CASE_ENTRY'], 'entry')
ENTRY_WALKS = [r[3] for r in CODES['CASE_ENTRY']]
MODES = _dense(CODES['CASE_MODE'], 'mode')
KINDS = _dense(CODES['CASE_KIND'], 'kind')
REGIONS = _dense(CODES['CASE_REGION'], 'region')
RECORD_TYPES = _dense(CODES['CASE_RECORD'], 'record type')
QOPS = _dense(CODES['CASE_QOP'], 'queue operation')
RECORD_LAYOUT = {r[1]: {'type': r[0], 'count_byte': r[3], 'max_words': r[4]} for r in CODES['CASE_RECORD']}
OPTION_NAMES = [r[1] for r in CODES['CASE_OPTION']]
FLAG_NAMES = [r[1] for r in CODES['CASE_FLAG']]
ARCHES = {'x86_64': 'CASE_REG_X86_64', 'aarch64': 'CASE_REG_AARCH64'}
ARCH = platform.machine() if platform.machine() in ARCHES else 'x86_64'
REG_TABLES = {a: CODES[m] for a, m in ARCHES.items()}
# Registers of this machine, as this module prints them: the architecture's own
# name where there is one (rip, rsp, rbp on x86_64), else the logical name.
REGS = [r[2] if r[2] != '-' else r[1] for r in REG_TABLES[ARCH]]
REG_ALIASES = {}
for _r in REG_TABLES[ARCH]:
    REG_ALIASES[_r[1]] = _r[0]
    if _r[2] != '-':
        REG_ALIASES[_r[2]] = _r[0]


class CaseError(Exception):
    pass


def _check_kind_region(kind, region):
    """Head bytes 1 (kind) and 2 (region) of a mut or stk record: None, or (offset, why)."""
    if kind >= len(KINDS):
        return 1, 'unknown mutation kind'
    if kind == 2 and region >= len(REGIONS):
        return 2, 'unknown region'
    if kind != 2 and region:
        return 2, 'region byte of an abs or delta record is not 0'
    return None


@dataclass
class Mutation:
    """Record type mut: register, kind, region (kind region only), value."""
    reg: int = 0
    kind: int = 0
    region: int = 0
    value: int = 0          # signed 64-bit

    def pack(self):
        return struct.pack('<BBBBq', self.reg & 0xff, self.kind & 0xff, self.region & 0xff,
                           RECORD_LAYOUT['mut']['type'], _signed64(self.value))

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

    @staticmethod
    def check(head, words, nregs):
        """Version 2 head -> (Mutation, None), or (None, (offset in the record, why))."""
        reg, kind, region = head[0], head[1], head[2]
        if reg >= nregs:
            return None, (0, 'unknown register')
        bad = _check_kind_region(kind, region)
        if bad:
            return None, bad
        return Mutation(reg, kind, region, struct.unpack_from('<q', head, 4)[0]), None

    @staticmethod
    def parse(args):
        """The words after 'mut' -> Mutation."""
        if len(args) < 3:
            raise CaseError('mut REG KIND [REGION] VALUE')
        reg = REG_ALIASES.get(args[0])
        if reg is None:
            raise CaseError('unknown register %r' % args[0])
        kind = _lookup(KINDS, args[1], 'mutation kind')
        if kind == 2:
            if len(args) != 4:
                raise CaseError('mut REG region REGION VALUE')
            return Mutation(reg, kind, _lookup(REGIONS, args[2], 'region'), _signed64(_num(args[3])))
        if len(args) != 3:
            raise CaseError('mut REG %s VALUE' % args[1])
        return Mutation(reg, kind, 0, _signed64(_num(args[2], kind == 1)))


@dataclass
class QueueOp:
    """Record type qop: a queue or frame-mark operation after the entry call, and its argument."""
    op: int = 0
    value: int = 0          # signed 64-bit

    def pack(self):
        return struct.pack('<BBBBq', self.op & 0xff, 0, 0, RECORD_LAYOUT['qop']['type'], _signed64(self.value))

    def text(self):
        return 'qop %s %d' % (_name(QOPS, self.op), _signed64(self.value))

    @staticmethod
    def check(head, words, nregs):
        if head[0] >= len(QOPS):
            return None, (0, 'unknown queue operation')
        if head[1] or head[2]:
            return None, (1 if head[1] else 2, 'reserved byte of a qop record is not 0')
        return QueueOp(head[0], struct.unpack_from('<q', head, 4)[0]), None

    @staticmethod
    def parse(args):
        if len(args) != 2:
            raise CaseError('qop OP VALUE')
        return QueueOp(_lookup(QOPS, args[0], 'queue operation'), _signed64(_num(args[1], True)))


@dataclass
class StackPatch:
    """Record type stk: words of the forged stack copy at anchor + offset, offset + 8, ...,
    each read by kind as a mut value is."""
    anchor: int = 0         # index in ANCHORS
    offset: int = 0         # bytes, a multiple of 8
    kind: int = 0
    region: int = 0
    words: List[int] = field(default_factory=list)

    def pack(self):
        v = (self.offset & 0xffffffff) | (self.anchor & 0xff) << 32
        head = struct.pack('<BBBBQ', len(self.words) & 0xff, self.kind & 0xff,
                           self.region & 0xff if self.kind == 2 else 0, RECORD_LAYOUT['stk']['type'], v)
        return head + b''.join(struct.pack('<q', _signed64(w)) for w in self.words)

    def text(self):
        out = ['stk', _name(ANCHORS, self.anchor), '%+d' % self.offset, _name(KINDS, self.kind)]
        if self.kind == 2:
            out.append(_name(REGIONS, self.region))
        for w in self.words:
            w = _signed64(w)
            out.append('-0x%x' % -w if self.kind == 1 and w < 0 else '0x%x' % (w & 0xffffffffffffffff))
        return ' '.join(out)

    @staticmethod
    def check(rec, words, nregs):
        head = rec[:RECORD]
        if not words:
            return None, (0, 'stk record without words')
        kind, region = head[1], head[2]
        bad = _check_kind_region(kind, region)
        if bad:
            return None, bad
        v = struct.unpack_from('<Q', head, 4)[0]
        offset = _signed32(v & 0xffffffff)
        if v >> 40:
            return None, (9, 'stk bits 40-63 are not 0')
        if (v >> 32) & 0xff >= len(ANCHORS):
            return None, (8, 'unknown stk anchor')
        if offset % 8:
            return None, (4, 'stk offset is not a multiple of 8')
        if not -IMAGE_SIZE < offset < IMAGE_SIZE:
            return None, (4, 'stk offset outside the image')
        return StackPatch((v >> 32) & 0xff, offset, kind, region, [_signed64(w) for w in words]), None

    @staticmethod
    def parse(args):
        if len(args) < 4:
            raise CaseError('stk ANCHOR OFFSET KIND [REGION] WORD...')
        anchor = _lookup(ANCHORS, args[0], 'stk anchor')
        off = _num(args[1][1:] if args[1].startswith('+') else args[1], True)
        if off % 8 or not -IMAGE_SIZE < off < IMAGE_SIZE:
            raise CaseError('stk offset %s: a multiple of 8 with |offset| < %d' % (args[1], IMAGE_SIZE))
        kind = _lookup(KINDS, args[2], 'mutation kind')
        rest, region = args[3:], 0
        if kind == 2:
            region, rest = _lookup(REGIONS, args[3], 'region'), args[4:]
        if not rest or len(rest) > RECORD_LAYOUT['stk']['max_words']:
            raise CaseError('stk takes 1 to %d words' % RECORD_LAYOUT['stk']['max_words'])
        return StackPatch(anchor, off, kind, region, [_signed64(_num(w, True)) for w in rest])


# Record types: name -> (Case attribute holding its records, class with check/parse,
# the most a program holds). A type in src/case_codes.h without an entry here makes
# tests/core_case_codes.t fail.
RECORD_HANDLERS = {'mut': ('muts', Mutation, MAX_MUT), 'qop': ('qops', QueueOp, MAX_QOP),
                   'stk': ('stks', StackPatch, MAX_STK)}


@dataclass
class Case:
    entry: int = 0
    mode: int = 0
    options: int = 0
    worker: int = 0
    depth: int = 0
    flags: int = 0
    muts: List[Mutation] = field(default_factory=list)
    qops: List[QueueOp] = field(default_factory=list)
    stks: List[StackPatch] = field(default_factory=list)
    version: int = VERSION  # a decoded file keeps its version, so encode() gives its bytes back
    dropped: int = 0        # canonical(): out-of-range fields and records left out

    def records(self):
        """(type name, record) pairs in encoding order: by type, then as listed."""
        for name in RECORD_TYPES:
            for r in getattr(self, RECORD_HANDLERS[name][0]):
                yield name, r

    def encode(self):
        if self.version == VERSION_1:
            if len(self.muts) > V1_MAX_RECORDS:
                raise CaseError('more than %d mutations (version 1)' % V1_MAX_RECORDS)
            recs = [struct.pack('<BBBxq', m.reg & 0xff, m.kind & 0xff, m.region & 0xff, _signed64(m.value))
                    for m in self.muts]
        else:
            for name in RECORD_TYPES:
                attr, _, most = RECORD_HANDLERS[name]
                if len(getattr(self, attr)) > most:
                    raise CaseError('more than %d %s records' % (most, name))
            recs = [r.pack() for _, r in self.records()]
        out = MAGIC + bytes([self.version, 0, 0, 0])
        out += struct.pack('<BBBBHBx', self.entry & 0xff, self.mode & 0xff, self.options & 0xff,
                           self.worker & 0xff, self.depth & 0xffff, self.flags & 0xff)
        out += b''.join(recs)
        if self.version != VERSION_1 and len(out) > MAX_SIZE:
            raise CaseError('case larger than %d bytes' % MAX_SIZE)
        return out

    def copy(self):
        return replace(self, muts=[replace(m) for m in self.muts], qops=[replace(q) for q in self.qops],
                       stks=[replace(k, words=list(k.words)) for k in self.stks])

    def canonical(self, nregs=len(REGS)):
        """The same program as the total decoder (case_decode) reads it, as a version 2
        case. Version 1: entry, mode, kind and region modulo their version 1 table sizes,
        register modulo the architecture's count, unknown option/flag bits dropped, the
        unused region byte of abs/delta records 0. Version 2: out-of-range entry and mode
        become 0, unknown bits are cleared, records with out-of-range codes are left out
        (counted in .dropped)."""
        omask, fmask = (1 << len(OPTION_NAMES)) - 1, (1 << len(FLAG_NAMES)) - 1
        if self.version == VERSION_1:
            c = Case(self.entry % V1_SIZES['entry'], self.mode % V1_SIZES['mode'], self.options & 3,
                     self.worker, self.depth, self.flags & 3)
            for m in self.muts:
                kind = m.kind % V1_SIZES['kind']
                c.muts.append(Mutation(m.reg % nregs, kind, m.region % V1_SIZES['region'] if kind == 2 else 0,
                                       m.value))
            return c
        c = Case(self.entry if self.entry < len(ENTRIES) else 0, self.mode if self.mode < len(MODES) else 0,
                 self.options & omask, self.worker, self.depth, self.flags & fmask)
        c.dropped = ((self.entry >= len(ENTRIES)) + (self.mode >= len(MODES)) + bool(self.options & ~omask)
                     + bool(self.flags & ~fmask))
        for m in self.muts:
            region = m.region if m.kind == 2 else 0
            good, _ = Mutation.check(Mutation(m.reg, m.kind, region, m.value).pack(), [], nregs)
            if good is None or len(c.muts) == MAX_MUT:
                c.dropped += 1
            else:
                c.muts.append(good)
        for name in RECORD_TYPES:
            if name == 'mut':
                continue
            attr, cls, most = RECORD_HANDLERS[name]
            for r in getattr(self, attr):
                rec = r.pack()
                words = [struct.unpack_from('<Q', rec, RECORD + WORD * i)[0] for i in range((len(rec) - RECORD) // WORD)]
                good, _ = cls.check(rec, words, nregs)
                if good is None or len(getattr(c, attr)) == most:
                    c.dropped += 1
                else:
                    getattr(c, attr).append(good)
        return c

    def text(self):
        lines = ['asgf-case 1',
                 'entry %s' % _name(ENTRIES, self.entry),
                 'mode %s' % _name(MODES, self.mode),
                 'options %s' % _bits(OPTION_NAMES, self.options),
                 'worker %d' % self.worker,
                 'depth %d' % self.depth,
                 'flags %s' % _bits(FLAG_NAMES, self.flags)]
        lines += [r.text() for _, r in self.records()]
        return '\n'.join(lines) + '\n'

    def summary(self):
        """One line: entry, mode and the record lines."""
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
        parts += [r.text()[4:] if n == 'mut' else r.text() for n, r in self.records()]
        return ', '.join(parts)


def _signed64(v):
    v &= 0xffffffffffffffff
    return v - (1 << 64) if v >> 63 else v


def _signed32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >> 31 else v


def _name(table, i):
    return table[i] if 0 <= i < len(table) else '#%d' % i


def _bits(names, v):
    out = [n for i, n in enumerate(names) if v & (1 << i)]
    extra = v & ~((1 << len(names)) - 1)
    if extra:
        out.append('0x%x' % extra)
    return ','.join(out) or 'none'


def _records_v2(data, nregs):
    """Version 2 records -> ({attr: [records]}, None), or (None, (file offset, why))."""
    got = {h[0]: [] for h in RECORD_HANDLERS.values()}
    at, n = HEADER + GLOBAL, len(data)
    while at < n:
        if n - at < RECORD:
            return None, (at, 'truncated record (a record head is 12 bytes)')
        head = data[at:at + RECORD]
        if head[3] >= len(RECORD_TYPES):
            return None, (at + 3, 'unknown record type')
        name = RECORD_TYPES[head[3]]
        lay = RECORD_LAYOUT[name]
        words = head[lay['count_byte']] if lay['count_byte'] >= 0 else 0
        if words > lay['max_words']:
            return None, (at + lay['count_byte'], "payload word count over the type's limit")
        size = RECORD + words * WORD
        if at + size > n:
            return None, (n, 'truncated record payload')
        attr, cls, most = RECORD_HANDLERS[name]
        rec, bad = cls.check(data[at:at + size], [struct.unpack_from('<Q', data, at + RECORD + WORD * i)[0]
                                                   for i in range(words)], nregs)
        if bad:
            return None, (at + bad[0], bad[1])
        if len(got[attr]) == most:
            return None, (at, 'more than %d %s records' % (most, name))
        got[attr].append(rec)
        at += size
    return got, None


def validate(data, nregs=len(REGS)):
    """None if data is a well-formed binary case (case_validate's rules), else a reason."""
    n = len(data)
    if n == 0:
        return 'offset 0: empty case (no header)'
    if n < HEADER:
        return 'offset %d: truncated header (need 8 bytes)' % n
    for i in range(4):
        if data[i] != MAGIC[i]:
            return 'offset %d: bad magic (expected "ASGF")' % i
    if data[4] not in (VERSION_1, VERSION):
        return 'offset 4: unsupported version %d (this build reads versions 1 and 2)' % data[4]
    if n < HEADER + GLOBAL:
        return 'offset %d: truncated global section (need 8 bytes after the header)' % n
    if data[4] == VERSION_1:
        if n > V1_MAX_SIZE:
            return 'offset %d: too many mutation records (at most %d)' % (V1_MAX_SIZE, V1_MAX_RECORDS)
        if (n - HEADER - GLOBAL) % RECORD:
            return 'offset %d: truncated mutation record (records are %d bytes)' % (n - (n - HEADER - GLOBAL) % RECORD, RECORD)
        return None
    for i in range(5, HEADER):
        if data[i]:
            return 'offset %d: reserved byte is not 0' % i
    if n > MAX_SIZE:
        return 'offset %d: case larger than %d bytes' % (MAX_SIZE, MAX_SIZE)
    entry, mode, options, _, _, flags, reserved = struct.unpack_from('<BBBBHBB', data, HEADER)
    for off, bad, why in ((0, entry >= len(ENTRIES), 'unknown entry'), (1, mode >= len(MODES), 'unknown mode'),
                          (2, options >> len(OPTION_NAMES), 'unknown option bits'),
                          (6, flags >> len(FLAG_NAMES), 'unknown flag bits'),
                          (7, reserved, 'reserved byte is not 0')):
        if bad:
            return 'offset %d: %s' % (HEADER + off, why)
    _, bad = _records_v2(data, nregs)
    return 'offset %d: %s' % bad if bad else None


def decode(data, nregs=len(REGS)):
    """Binary case bytes -> Case (strict: raises CaseError). Version 1 fields are kept
    as they are in the file (canonical() gives what the decoder makes of them)."""
    why = validate(data, nregs)
    if why:
        raise CaseError(why)
    entry, mode, options, worker, depth, flags = struct.unpack_from('<BBBBHBx', data, HEADER)
    c = Case(entry, mode, options, worker, depth, flags, version=data[4])
    if data[4] == VERSION_1:
        for off in range(HEADER + GLOBAL, len(data), RECORD):
            reg, kind, region, value = struct.unpack_from('<BBBxq', data, off)
            c.muts.append(Mutation(reg, kind, region, value))
        return c
    got, _ = _records_v2(data, nregs)
    for attr, recs in got.items():
        setattr(c, attr, recs)
    return c


def decode_total(data, nregs=len(REGS)):
    """Any bytes -> the program the total decoder (case_decode) makes of them, as a version 2
    Case whose .dropped counts what it left out. Never raises."""
    data = bytes(data)
    if len(data) < HEADER or data[:4] != MAGIC or data[4] != VERSION:
        body = data[HEADER:] if len(data) >= HEADER and data[:4] == MAGIC else data
        body = body + bytes(-(len(body) - GLOBAL) % RECORD if len(body) > GLOBAL else GLOBAL - len(body))
        c = Case(*struct.unpack_from('<BBBBHBx', body, 0), version=VERSION_1)
        c.muts = [Mutation(*struct.unpack_from('<BBBxq', body, o))
                  for o in range(GLOBAL, min(len(body), GLOBAL + V1_MAX_RECORDS * RECORD), RECORD)]
        return c.canonical(nregs)
    dropped = len(data) > MAX_SIZE
    data = data[:MAX_SIZE]
    g = (data[HEADER:HEADER + GLOBAL] + bytes(GLOBAL))[:GLOBAL]
    c = Case(*struct.unpack_from('<BBBBHBx', g, 0)).canonical(nregs)
    c.dropped += dropped
    at = HEADER + GLOBAL
    while at < len(data):
        head = (data[at:at + RECORD] + bytes(RECORD))[:RECORD]
        name = RECORD_TYPES[head[3]] if head[3] < len(RECORD_TYPES) else None
        lay = RECORD_LAYOUT.get(name)
        words = head[lay['count_byte']] if lay and lay['count_byte'] >= 0 else 0
        if not lay or words > lay['max_words']:
            c.dropped += 1
            at += RECORD
            continue
        size = RECORD + words * WORD
        rec = (data[at:at + size] + bytes(size))[:size]
        attr, cls, most = RECORD_HANDLERS[name]
        got, bad = cls.check(rec, [struct.unpack_from('<Q', rec, RECORD + WORD * i)[0] for i in range(words)], nregs)
        if bad or len(getattr(c, attr)) == most:
            c.dropped += 1
        else:
            getattr(c, attr).append(got)
        at += size
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
    """'asgf-case 1' text -> Case (version 2; raises CaseError with a line number)."""
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
            elif key in RECORD_HANDLERS:
                attr, cls, most = RECORD_HANDLERS[key]
                if len(getattr(c, attr)) == most:
                    raise CaseError('more than %d %s records' % (most, key))
                getattr(c, attr).append(cls.parse(args))
            else:
                raise CaseError('unknown or malformed line %r' % line)
        except (CaseError, IndexError) as e:
            raise CaseError('line %d: %s' % (ln, e if isinstance(e, CaseError) else 'incomplete'))
    if not seen:
        raise CaseError("empty case text (expected 'asgf-case 1')")
    return c


def is_text(data):
    """Whether a file's bytes are a case's text form rather than its binary one."""
    return not data.startswith(MAGIC) and b'asgf-case' in data[:4096]


def load(path):
    """A case file (binary or text) -> (Case, canonical binary bytes)."""
    # A FIFO or a device would block the read or never end: only regular files are cases.
    if os.path.exists(path) and not os.path.isfile(path):
        raise CaseError('%s: not a regular file' % path)
    with open(path, 'rb') as f:
        data = f.read(65537)
    if is_text(data):
        c = parse_text(data.decode('utf-8', 'replace'))
        return c, c.encode()
    c = decode(data)
    return c, data
