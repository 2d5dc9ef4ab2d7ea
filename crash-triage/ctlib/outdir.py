"""The output directory: whose it is, one writer at a time, and files that are
either whole or absent.

- A marker file (.asgf-triage) says the directory is triage output. A
  directory that is neither empty nor ours (no marker and no earlier
  index.json) is refused unless --force: the user's own files there would be
  overwritten or mixed with buckets.
- .triage.lock: one triage at a time; a second one waits for the first.
- Every file is written to NAME.tmp and renamed over NAME once written whole,
  so a full disk or a kill leaves the previous version, never an empty or
  half file. Leftover .tmp files of an interrupted run are removed at the
  start of the next one."""
import errno
import fcntl
import os

MARKER = '.asgf-triage'
LOCK = '.triage.lock'
TMP = '.tmp'
# What an earlier triage (before markers existed) leaves: adopted as ours.
OURS = ('index.json', 'buckets', 'report.json', MARKER, LOCK, 'symcache.json', 'replays',
        'report.md', 'report.html')
SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class OutDirError(Exception):
    """An output directory that cannot be used: a usage error (exit 2)."""


def prepare(out, force=False):
    """Create or adopt out; raise OutDirError when it is not a directory or holds
    files that are not ours (unless force)."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise OutDirError("--out '%s' exists and is not a directory" % out)
    if os.path.isdir(out):
        names = sorted(os.listdir(out))
        foreign = [n for n in names if n not in OURS and not n.endswith(TMP)]
        if foreign and MARKER not in names and 'index.json' not in names and not force:
            raise OutDirError("--out '%s' is not empty and not a triage output directory (it holds %s); "
                              "give an empty or new directory, or --force to write there anyway"
                              % (out, ', '.join("'%s'" % n for n in foreign[:3]) +
                                 (' and %d more' % (len(foreign) - 3) if len(foreign) > 3 else '')))
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        if e.errno in SPACE:
            raise
        raise OutDirError("--out '%s': %s" % (out, e.strerror or e))


def lock(out, say=None):
    """Hold the directory's lock until the process exits (the file stays open), then
    mark the directory as ours. The marker is written under the lock: written before
    it, its .tmp could be removed by the clean_tmp of a run that holds the lock."""
    try:
        f = open(os.path.join(out, LOCK), 'a')
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if say:
                say('triage: waiting for the other triage of %s' % out)
            fcntl.flock(f, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(out, MARKER)):
            write_atomic(os.path.join(out, MARKER), 'crash-triage output directory\n')
    except OSError as e:
        if e.errno in SPACE:
            raise
        raise OutDirError("--out '%s': %s" % (out, e.strerror or e))
    return f


def clean_tmp(out):
    """Remove the .tmp files an interrupted or out-of-space run left (with the lock held)."""
    removed = 0
    for root, dirs, files in os.walk(out):
        dirs[:] = [d for d in dirs if d != 'replays']
        for n in files:
            if n.endswith(TMP):
                try:
                    os.remove(os.path.join(root, n))
                    removed += 1
                except OSError:
                    pass
    return removed


def write_atomic(path, data, tmp=None):
    """Write str or bytes to path through a temporary (default path.tmp) and a rename.
    On any error the temporary is removed and the OSError (with its filename) raised;
    path keeps its previous content."""
    tmp = tmp or path + TMP
    mode = 'wb' if isinstance(data, (bytes, bytearray)) else 'w'
    try:
        with open(tmp, mode, **({} if mode == 'wb' else {'encoding': 'utf-8'})) as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        if not e.filename:
            e.filename = path
        raise


def copy_atomic(src, dst, limit=64 << 20):
    with open(src, 'rb') as f:
        data = f.read(limit)
    write_atomic(dst, data)
