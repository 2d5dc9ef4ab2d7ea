"""The JDK a report came from: its home, version string and libjvm build-id, read from
the libjvm path in the report's frames or library list. A bucket keeps the first
member's, so that repro, minimize and writeup run it on the same VM by default and
can say when that VM is gone or was rebuilt. A crash record names the libjvm's build-id
as it ran; when the file there is another build now, that recorded id is the one kept."""
import glob
import os
import shutil

from .symbolize import elf_build_id

JDK_HANDLES = '/opt/asgf-jdk'    # ci/install-jdk's handles of JDKs in a root
_cache = {}


def handle_of(root, home):
    """The ci/install-jdk handle that runs the JDK at home inside root (a record's sysroot),
    or None: a report from a root names the root's own path, which on this host may be
    nothing, or another JDK."""
    want = os.path.realpath(root + home + '/lib')
    # ci/install-jdk puts a handle beside its root (--root DIR: DIR/../jdkNN), by default here
    places = [JDK_HANDLES, os.path.dirname(os.path.realpath(root))]
    for h in sorted({h for p in places for h in glob.glob(os.path.join(p, 'jdk*'))}):
        try:
            with open(os.path.join(h, 'asgf-root')) as f:
                r = f.read().strip()
        except OSError:
            continue
        if os.path.realpath(r) == os.path.realpath(root) and os.path.realpath(os.path.join(h, 'lib')) == want:
            return h
    return None


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
            root = rep.extra.get('sysroot')
            if root:
                # the path is the root's: the JDK is the handle that runs it, when one is here
                handle = handle_of(root, home)
                if not handle:
                    return {'home': home, 'version': None, 'build_id': rep.extra.get('build_ids', {}).get(p),
                            'sysroot': root}
                home = handle
            return _ran(home, rep.extra.get('build_ids', {}).get(p))
    return None


def _ran(home, then):
    """The JDK record of home for a run whose libjvm had build-id `then` (None: unknown)."""
    now = identity(home) if os.path.isdir(home) else {'home': home, 'version': None, 'build_id': None}
    if then and then != now['build_id']:
        # rebuilt (or gone) since: the version on disk is not the one that ran
        return {'home': home, 'version': None, 'build_id': then}
    return now


def resolve(found):
    """A bucket's JDK record as it stands now: one from a root that no handle ran when the
    bucket was made gets the handle installed since."""
    if found and found.get('sysroot') and found.get('home'):
        handle = handle_of(found['sysroot'], found['home'])
        if handle:
            return _ran(handle, found.get('build_id'))
    return found


def check(found):
    """Why the JDK a bucket was found on cannot be used here (gone, or rebuilt), or None."""
    if not found or not found.get('home'):
        return None
    home = found['home']
    if found.get('sysroot'):
        return ('it was found on the JDK at %s inside the root %s, and no ci/install-jdk handle here (%s/jdk*) '
                'runs it' % (home, found['sysroot'], JDK_HANDLES))
    if not os.access(os.path.join(home, 'bin', 'java'), os.X_OK):
        return 'it was found on the JDK at %s%s, which is not here' % (
            home, ' (%s)' % found['version'] if found.get('version') else '')
    now = identity(home)
    if found.get('build_id') and now.get('build_id') and now['build_id'] != found['build_id']:
        return ('it was found on the JDK at %s with libjvm build-id %s; that libjvm is now %s (another build)'
                % (home, found['build_id'], now['build_id']))
    return None


def path_java_home():
    """The JDK home of the java on PATH (java's directory's parent, links resolved), or None."""
    java = shutil.which('java')
    return os.path.dirname(os.path.dirname(os.path.realpath(java))) if java else None


def home_problem(home, needs_libjvm=True):
    """Why home is no JDK the tools can run (no bin/java; for the replay tool, which loads
    it itself, no libjvm), or None. A ci/install-jdk handle (asgf-root) keeps its libjvm in
    a root."""
    if not os.path.isdir(home):
        return "'%s' is not a directory" % home
    if not os.access(os.path.join(home, 'bin', 'java'), os.X_OK):
        below = [s for s in ('images/jdk', 'jdk') if os.access(os.path.join(home, s, 'bin', 'java'), os.X_OK)]
        return "'%s' has no bin/java%s" % (home, ' (an OpenJDK build directory? its JDK is %s)'
                                           % os.path.join(home, below[0]) if below else '')
    if needs_libjvm and not (os.path.isfile(os.path.join(home, 'lib', 'server', 'libjvm.so'))
                             or os.path.isfile(os.path.join(home, 'asgf-root'))):
        return "'%s' has no lib/server/libjvm.so" % home
    return None
