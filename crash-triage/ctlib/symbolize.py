"""Offline symbolization with addr2line, batched per module, cached in JSON."""
import json
import os
import shutil
import struct
import subprocess

from . import elf
from .model import Frame
from .outdir import write_atomic

BATCH = 400
TIMEOUT = 300


def _elf_sections(f):
    """(name offset, type, file offset, size) of each section of an open ELF file, and
    the index of the name table; None when it is no ELF64 little-endian file."""
    got = elf.header_table(f, 'sections')
    if not got:
        return None
    entries, strndx = got
    return [struct.unpack_from('<II', e, 0) + struct.unpack_from('<QQ', e, 0x18) for e in entries], strndx


def elf_build_id(path):
    """GNU build-id of an ELF64 little-endian file as hex, or None."""
    try:
        with open(path, 'rb') as f:
            got = _elf_sections(f)
            for _, sh_type, off, size in (got[0] if got else []):
                if sh_type != 7 or size > 1 << 16:     # SHT_NOTE, of a sane size
                    continue
                f.seek(off)
                notes = f.read(size)
                p = 0
                while p + 12 <= len(notes):
                    namesz, descsz, ntype = struct.unpack_from('<III', notes, p)
                    p += 12
                    name = notes[p:p + namesz]
                    p += (namesz + 3) & ~3
                    desc = notes[p:p + descsz]
                    p += (descsz + 3) & ~3
                    if ntype == 3 and name.rstrip(b'\0') == b'GNU':
                        return desc.hex()
    except (OSError, struct.error):
        return None
    return None


def elf_section_names(path):
    """Section names of an ELF64 little-endian file, or an empty set."""
    try:
        with open(path, 'rb') as f:
            got = _elf_sections(f)
            if not got or got[1] >= len(got[0]):
                return set()
            sections, strndx = got
            _, _, str_off, str_size = sections[strndx]
            if str_size > 1 << 20:
                return set()
            f.seek(str_off)
            strings = f.read(str_size)
            return {strings[at:strings.find(b'\0', at)].decode('ascii', 'replace') for at, _, _, _ in sections}
    except (OSError, struct.error):
        return set()


def debug_file(top, bid):
    """Where a Debian -dbg package puts the debug file of build-id bid under the root top."""
    return os.path.join(top, 'usr/lib/debug/.build-id', bid[:2], bid[2:] + '.debug')


def root_debug_file(root, bid):
    """The -dbg file of build-id bid in a JDK's root (ci/install-jdk), or None."""
    dbg = bid and debug_file(root, bid)
    return dbg if dbg and os.path.isfile(dbg) else None


def has_line_tables(path):
    """Whether addr2line can name inlined functions in this module: DWARF line tables in
    the file itself, in a debug file beside it (an OpenJDK build's libjvm.debuginfo), or
    in its debug file by build-id (a Debian -dbg package), looked for under every
    directory above it too (a JDK run in a root of another release keeps its -dbg files
    there)."""
    if '.debug_line' in elf_section_names(path):
        return True
    # An OpenJDK build's separate debug files sit beside the library (libjvm.debuginfo).
    stem = os.path.splitext(path)[0]
    for side in (stem + '.debuginfo', path + '.debug', os.path.join(os.path.dirname(path), '.debug',
                                                                      os.path.basename(path) + '.debug')):
        if os.path.isfile(side) and '.debug_line' in elf_section_names(side):
            return True
    bid = elf_build_id(path)
    if not bid:
        return False
    d = os.path.dirname(os.path.realpath(path))  # a ci/install-jdk handle links into its root
    while True:
        if os.path.isfile(debug_file(d, bid)):
            return True
        up = os.path.dirname(d)
        if up == d:
            return False
        d = up


class Symbolizer:
    def __init__(self, cache_path=None, addr2line=None, expand_inline=True):
        self.cache_path = cache_path
        self.expand_inline = expand_inline
        self.tool = addr2line or shutil.which('addr2line')
        self.cache = {}
        self.keys = {}
        self.dirty = False
        self.calls = 0
        self.errors = []
        self.ids = {}        # path -> build-id of the file there now
        self.rebuilt = {}    # path -> (recorded build-id, build-id now, [report paths])
        if cache_path and os.path.exists(cache_path):
            try:
                with open(cache_path) as f:
                    data = json.load(f)
                if isinstance(data, dict) and data.get('version') == 1:
                    self.cache = data.get('modules', {})
            except (OSError, ValueError):
                self.cache = {}

    def save(self):
        if not (self.cache_path and self.dirty):
            return
        write_atomic(self.cache_path, json.dumps({'version': 1, 'modules': self.cache}, sort_keys=True))
        self.dirty = False

    def module_key(self, path):
        if path in self.keys:
            return self.keys[path]
        key = None
        try:
            st = os.stat(path)
            bid = self._build_id(path)
            key = 'build-id:' + bid if bid else 'file:%s:%d:%d' % (path, st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        self.keys[path] = key
        return key

    @staticmethod
    def _outer_name(name):
        """A function name without its argument list, for comparing two spellings."""
        return (name or '').split('(', 1)[0].strip()

    def _needs(self, fr, index, kind):
        """'name' when the frame has no usable name, 'inline' when it has one (hs_err)
        and only its inline chain is wanted, None when nothing is to be looked up."""
        if fr.module is None or fr.offset is None:
            return None
        if not fr.function:
            return 'name'
        if kind != 'hs_err':
            return None
        # An hs_err caller frame printed at symbol+0x0 is a return address just past a
        # noreturn call: the name belongs to the next symbol. Look up offset-1 instead.
        if index > 0 and fr.func_off == 0:
            return 'name'
        return 'inline' if self.expand_inline else None

    @staticmethod
    def _lookup_offset(fr, kind):
        if kind == 'hs_err':
            back = fr.function and fr.func_off == 0 or fr.is_return
            return fr.offset - 1 if back and fr.offset > 0 else fr.offset
        return fr.offset - 1 if fr.is_return and fr.offset > 0 else fr.offset

    def _build_id(self, path):
        if path not in self.ids:
            self.ids[path] = elf_build_id(path)
        return self.ids[path]

    def _resolve(self, rep, module):
        """The file whose symbols name the report's offsets in module, or None. A record
        says which build each module was (its build-id): a file at that path since
        rebuilt, or gone, has not those offsets and is not used; that build's debug file
        is, when it is still there."""
        path = module if module.startswith('/') else rep.module_paths.get(module)
        if not path:
            return None
        want = rep.extra.get('build_ids', {}).get(path)
        root = rep.extra.get('sysroot')
        # A JDK run in a root of a newer Debian (ci/install-jdk): its modules, and
        # their -dbg files by build-id, are there; our own (bound in at the same
        # paths) are not, and are found on the host below.
        inner = root and os.path.join(root, path.lstrip('/'))
        if inner and os.path.isfile(inner):
            dbg = root_debug_file(root, want or self._build_id(inner))
            if dbg:
                return dbg
        else:
            inner = None
        file = inner or path
        now = self._build_id(file) if want and os.path.isfile(file) else None
        if not want or now == want:
            return file if os.path.isfile(file) else None
        dbg = debug_file('/', want)
        if os.path.isfile(dbg):
            return dbg
        if now:
            rep.extra.setdefault('other_build', {})[path] = now
            where = self.rebuilt.setdefault(path, (want, now, []))[2]
            if rep.path not in where:
                where.append(rep.path)
        return None

    def symbolize(self, reports):
        """Fill missing function names in place; inline chains become extra frames.

        hs_err frames keep the name HotSpot printed; when this machine has the same
        module (addr2line names the same outer function at that offset) the functions
        inlined there are added above it, so an hs_err and a crash record of one fault
        get the same frames."""
        wanted = {}     # path -> set of offsets
        plan = []       # (rep, index, path, lookup, what)
        for rep in reports:
            for i, fr in enumerate(rep.frames):
                what = self._needs(fr, i, rep.kind)
                if not what:
                    continue
                path = self._resolve(rep, fr.module)
                if not path:
                    continue
                look = self._lookup_offset(fr, rep.kind)
                plan.append((rep, i, path, look, what))
                wanted.setdefault(path, set()).add(look)
        for path, offs in wanted.items():
            self._fill_cache(path, offs)
        by_rep = {}
        for rep, i, path, look, what in plan:
            key = self.module_key(path)
            chain = self.cache.get(key, {}).get('0x%x' % look) if key else None
            if what == 'inline':
                fr = rep.frames[i]
                if not chain or len(chain) < 2 or \
                        self._outer_name(chain[-1][0]) != self._outer_name(fr.function):
                    continue        # nothing inlined here, or not the module that crashed
                chain = chain[:-1] + [[fr.function, chain[-1][1]]]
            if chain:
                by_rep.setdefault(id(rep), (rep, {}))[1][i] = chain
        for rep, chains in by_rep.values():
            new = []
            for i, fr in enumerate(rep.frames):
                chain = chains.get(i)
                if not chain:
                    if self._needs(fr, i, rep.kind) == 'name' and fr.function:
                        fr.function = None      # unreliable +0x0 name, no better one
                    new.append(fr)
                    continue
                # a chain may name one function twice in a row (DWARF artifact)
                chain = [c for j, c in enumerate(chain) if j == 0 or c[0] != chain[j - 1][0]]
                for k, (func, src) in enumerate(chain):
                    new.append(Frame(module=fr.module, offset=fr.offset, function=func,
                                     kind=fr.kind, inlined=k < len(chain) - 1, source=src,
                                     is_return=fr.is_return,
                                     func_off=fr.func_off if k == len(chain) - 1 else None))
            rep.frames = new[:512]

    def _fill_cache(self, path, offsets):
        key = self.module_key(path)
        if not key:
            return
        known = self.cache.setdefault(key, {})
        todo = sorted(o for o in offsets if '0x%x' % o not in known)
        if not todo or not self.tool:
            return
        for i in range(0, len(todo), BATCH):
            chunk = todo[i:i + BATCH]
            res = self._run(path, chunk)
            if res is None:
                return
            for o in chunk:
                known['0x%x' % o] = res.get(o, [])
            self.dirty = True

    def _run(self, path, offsets):
        argv = [self.tool, '-f', '-C', '-i', '-a', '-e', path] + ['0x%x' % o for o in offsets]
        self.calls += 1
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            self.errors.append('%s: %s' % (path, e))
            return None
        if proc.returncode != 0:
            self.errors.append('%s: addr2line exit %d' % (path, proc.returncode))
            return None
        out = {}
        cur = None
        lines = proc.stdout.decode('utf-8', 'replace').splitlines()
        j = 0
        while j < len(lines):
            line = lines[j].strip()
            if line.startswith('0x') and all(c in '0123456789abcdefABCDEFx' for c in line):
                cur = int(line, 16)
                out[cur] = []
                j += 1
                continue
            func = line
            src = lines[j + 1].strip() if j + 1 < len(lines) else '??:0'
            j += 2
            if cur is None or func in ('??', ''):
                continue
            out[cur].append([func[:1024], None if src.startswith('??') else src[:512]])
        return out
