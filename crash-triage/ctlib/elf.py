"""The header tables of an ELF64 little-endian file, read without any tool: what the
symbolizer (sections: build-id, names) and the trampoline check (program segments)
need to know about a module."""
import struct

# which table: (offset of its file position in the ELF header, of entry size and count,
# smallest entry size, largest count)
_TABLES = {'sections': (0x28, 0x3a, 64, 4096), 'segments': (0x20, 0x36, 56, 256)}


def header_table(f, which):
    """The entries of an open file's section or program header table ('sections' or
    'segments') as bytes each, with the header's section-name index; None when it is no
    ELF64 little-endian file or the table's size is implausible."""
    off_at, size_at, min_size, max_count = _TABLES[which]
    h = f.read(64)
    if len(h) < 64 or h[:4] != b'\x7fELF' or h[4] != 2 or h[5] != 1:
        return None
    table_off, = struct.unpack_from('<Q', h, off_at)
    entsize, count = struct.unpack_from('<HH', h, size_at)
    strndx, = struct.unpack_from('<H', h, 0x3e)
    if entsize < min_size or entsize > 256 * 4 or count == 0 or count > max_count:
        return None
    f.seek(table_off)
    table = f.read(entsize * count)
    entries = [table[i * entsize:(i + 1) * entsize] for i in range(count)]
    return [e for e in entries if len(e) >= min_size], strndx
