"""Parser for the crash records our core writes (docs/crash-record.md)."""
import re

from .model import (Frame, NotAReport, Report, MAX_CASE, MAX_FRAMES, bounded_lines, decode,
                    parse_int)

MAGIC = 'ASGF-RECORD'
SUPPORTED = 1
HEX_RE = re.compile(r'^[0-9a-fA-F]*$')


def parse_taint(val):
    """'OP KEY' of a record's tainted line or a tainted-PID.txt file, or None."""
    parts = val.split()
    if len(parts) == 2 and len(parts[1]) == 16 and HEX_RE.match(parts[1]) and len(parts[0]) <= 80:
        return '%s %s' % (parts[0], parts[1].lower())
    return None


def detect(head_text):
    return head_text.startswith(MAGIC + ' ')


def parse_location(text):
    """'MODULE+0xOFF' or '?' -> (module, offset)."""
    text = text.strip()
    if text in ('', '?'):
        return None, None
    mod, sep, off = text.rpartition('+0x')
    if not sep or not mod:
        return None, None
    o = parse_int(off, 16)
    if o is None:
        return None, None
    return mod, o


def java_name(sig):
    """'Ljava/lang/Thread;.run()V' -> 'java.lang.Thread.run()V'."""
    if sig.startswith('L') and ';.' in sig:
        cls, _, rest = sig[1:].partition(';.')
        return cls.replace('/', '.') + '.' + rest
    return sig


def mismatch_report(rep):
    """An oracle record (docs/crash-record.md, "Mismatch records"): its bucket is the kind
    of difference and the first frame that differs, as its key is; a record of the
    consistency check names the wrong shape instead (one shape at any method is one cause)."""
    rep.signal = 'MISMATCH-' + rep.extra['mismatch'].upper()
    if rep.extra.get('shape'):
        rep.frames = [Frame(function=rep.extra['shape'], kind='J')]
    else:
        rep.frames = [Frame(function=java_name(rep.extra.get('method', '?')), kind='J')]


# What a write record's `write:` line names (docs/crash-record.md, "Write records"): the
# place the walk stored into, as the bucket's one frame.
WRITE_PLACES = {'frame': 'walked_thread_frame', 'context': 'walked_thread_context'}
WRITE_SIGNAL = 'LIVE-STORE'


def write_report(rep):
    """A write record: the walk stored into the walked thread's live state. Its bucket is
    the place, as its key is: which frame slot varies with the stack, the cause does not."""
    rep.signal = WRITE_SIGNAL
    rep.frames = [Frame(function=WRITE_PLACES[rep.extra['write']], kind='?')]


def parse(data, path):
    # The case line may be long: keep up to 2*MAX_CASE hex digits of it.
    text = decode(data)
    lines = bounded_lines(text, max_line=2 * MAX_CASE + 16)
    if not lines or not lines[0].startswith(MAGIC + ' '):
        raise NotAReport("no '%s' magic on the first line" % MAGIC)
    version = parse_int(lines[0][len(MAGIC) + 1:].strip())
    if version is None:
        raise NotAReport('bad record version: %r' % lines[0][:40])
    rep = Report(kind='record', path=path)
    rep.extra['version'] = version
    if version > SUPPORTED:
        rep.flag('newer-version')
    complete = False
    body = lines[1:]
    # A file cut mid-line: the last line has no newline and is not END.
    if not text.endswith('\n') and body and body[-1].strip() != 'END':
        body = body[:-1]
        rep.flag('truncated')
    for line in body:
        if line.strip() == 'END':
            complete = True
            break
        key, sep, val = line.partition(':')
        if not sep:
            rep.flag('corrupted')
            continue
        key = key.strip()
        val = val.strip()
        if len(key) > 64:
            rep.flag('corrupted')
            continue
        if key == 'pid':
            rep.pid = parse_int(val)
        elif key == 'tid':
            rep.tid = parse_int(val)
        elif key == 'thread':
            rep.thread = None if val == '?' else val[:256]
        elif key == 'time_ns':
            ns = parse_int(val)
            if ns is not None and 0 <= ns < (1 << 63):
                rep.time = ns / 1e9
        elif key == 'key':
            if HEX_RE.match(val) and 0 < len(val) <= 32:
                rep.extra['key'] = val.lower()
            else:
                rep.flag('corrupted')
        elif key in ('backend', 'entry', 'mode'):
            rep.extra[key] = val[:64]
        elif key == 'sysroot':
            if val.startswith('/'):
                rep.extra['sysroot'] = val[:256]
        elif key == 'signal':
            parts = val.split()
            if parts:
                rep.signo = parse_int(parts[0])
                rep.signal = parts[1][:32] if len(parts) > 1 else 'SIG%s' % parts[0][:8]
        elif key == 'si_code':
            rep.si_code = parse_int(val)
        elif key == 'si_addr':
            rep.si_addr = parse_int(val, 16) if val.startswith('0x') else parse_int(val)
        elif key == 'pc':
            parts = val.split(None, 1)
            rep.extra['pc'] = parts[0][:20] if parts else None
            rep.extra['pc_location'] = parse_location(parts[1] if len(parts) > 1 else '?')
        elif key == 'frame':
            parts = val.split(None, 2)
            if len(parts) < 2 or parse_int(parts[0]) is None:
                rep.flag('corrupted')
                continue
            mod, off = parse_location(parts[2] if len(parts) > 2 else '?')
            if len(rep.frames) >= MAX_FRAMES:
                rep.flag('frames-capped')
                continue
            idx = parse_int(parts[0])
            rep.frames.append(Frame(module=mod, offset=off, kind='N',
                                    is_return=idx > 0, source=None))
        elif key == 'case':
            if val and HEX_RE.match(val) and len(val) % 2 == 0:
                rep.case = bytes.fromhex(val[:2 * MAX_CASE])
            elif val:
                rep.flag('bad-case')
        elif key == 'tainted':
            taint = parse_taint(val)
            if taint:
                rep.extra['tainted'] = taint
            else:
                rep.flag('corrupted')
        elif key == 'build_id':
            path, _, bid = val.rpartition(' ')
            if path.startswith('/') and bid and HEX_RE.match(bid) and len(bid) <= 128:
                ids = rep.extra.setdefault('build_ids', {})
                if len(ids) < 16:
                    ids[path[:4096]] = bid.lower()
            else:
                rep.flag('corrupted')
        elif key in ('mismatch', 'method', 'shape'):     # the oracle's mismatch records
            rep.extra[key] = val[:1024]
        elif key == 'write':                             # the live-frame watch's records
            if val in WRITE_PLACES:
                rep.extra['write'] = val
            else:
                rep.flag('corrupted')
        elif key == 'first_store':
            rep.extra['first_store'] = val[:80]
        # unknown keys are ignored, as the format says
    if not complete:
        rep.flag('truncated')
    if 'mismatch' in rep.extra:
        mismatch_report(rep)
    elif 'write' in rep.extra:
        write_report(rep)
    if not rep.frames and rep.extra.get('pc_location', (None, None))[0]:
        mod, off = rep.extra['pc_location']        # cut before the first frame line
        rep.frames.append(Frame(module=mod, offset=off, kind='N'))
    rep.extra.pop('pc_location', None)
    if rep.signal is None:
        rep.signal = 'UNKNOWN'
        rep.flag('corrupted')
    if not rep.frames:
        rep.flag('corrupted')
    return rep
