"""The JDK a report came from: its home, version string and libjvm build-id, read from
the libjvm path in the report's frames or library list. A bucket keeps the first
member's, so that repro, minimize and writeup run it on the same VM by default and
can say when that VM is gone or was rebuilt."""
import os

from .symbolize import elf_build_id

_cache = {}


def _version(home):
    """JAVA_RUNTIME_VERSION (else JAVA_VERSION) of the home's release file, or None."""
    try:
        with open(os.path.join(home, 'release'), encoding='utf-8', errors='replace') as f:
            kv = dict(l.strip().split('=', 1) for l in f if '=' in l)
    except OSError:
        return None
    v = kv.get('JAVA_RUNTIME_VERSION') or kv.get('JAVA_VERSION')
    return v.strip('"') if v else None


def identity(home):
    """{'home', 'version', 'build_id'} of a JDK home as it is on disk now."""
    if home not in _cache:
        libjvm = os.path.join(home, 'lib', 'server', 'libjvm.so')
        _cache[home] = {'home': home, 'version': _version(home),
                        'build_id': elf_build_id(libjvm) if os.path.isfile(libjvm) else None}
    return _cache[home]


def of_report(rep):
    """The JDK of a report, or None when it names no libjvm path."""
    paths = [f.module for f in rep.frames if f.module] + list(rep.module_paths.values())
    for p in paths:
        if p.endswith('/lib/server/libjvm.so') and os.path.isabs(p):
            home = p[:-len('/lib/server/libjvm.so')]
            if os.path.isdir(home):
                return identity(home)
            return {'home': home, 'version': None, 'build_id': None}
    return None


def check(found):
    """Why the JDK a bucket was found on cannot be used here (gone, or rebuilt), or None."""
    if not found or not found.get('home'):
        return None
    home = found['home']
    if not os.access(os.path.join(home, 'bin', 'java'), os.X_OK):
        return 'it was found on the JDK at %s%s, which is not here' % (
            home, ' (%s)' % found['version'] if found.get('version') else '')
    now = identity(home)
    if found.get('build_id') and now.get('build_id') and now['build_id'] != found['build_id']:
        return ('it was found on the JDK at %s with libjvm build-id %s; that libjvm is now %s (another build)'
                % (home, found['build_id'], now['build_id']))
    return None
