"""Checked-in reproducers (corpus/reproducers/NAME.case with NAME.md): the verify: line
that says how a case brings its root cause back, and the JDKs of this machine by major
version. Read by crash-triage/verify-reproducers and crash-triage/repro.

  verify: case=NAME.case jdk=17 build=17.0.21.1+2-1-deb12u1-Debian via=stress time=10s expect=TITLE-OR-SIG

(key=value words; expect= runs to the end of the line, so a title may hold blanks). jdk is a
major version; build, when given, the build the case was found on (the JDK's
JAVA_RUNTIME_VERSION): of two JDKs of one major version, that one runs it; via, scenario,
time, agent (extra agent options) and api are crash-triage/repro's; jvm= holds the JVM
flags the case was found under and stress= the workload's stress/run options (repro
--stress-args), each joined by commas."""
import glob
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEYS = ('case', 'jdk', 'build', 'via', 'scenario', 'time', 'expect', 'agent', 'api', 'jvm', 'stress')
from .jdk import JDK_HANDLES, identity  # noqa: E402,F401 (repro names JDK_HANDLES)
from .reproduce import InputError, seconds_of  # noqa: E402


class BadLine(Exception):
    pass


def parse_verify(md_path):
    """The verify: lines of one .md -> [dict]; BadLine names the file and line."""
    out = []
    with open(md_path, encoding='utf-8', errors='replace') as f:
        for no, line in enumerate(f, 1):
            m = re.match(r'^verify:\s*(.*)$', line.rstrip('\n'))
            if not m:
                continue
            text, spec = m.group(1), {}
            ex = re.search(r'(?:^|\s)expect=(.*)$', text)
            if ex:
                spec['expect'] = ex.group(1).strip()
                text = text[:ex.start()]
            for word in text.split():
                k, sep, v = word.partition('=')
                if not sep or k not in KEYS:
                    raise BadLine('%s:%d: unknown word %r (keys: %s)' % (md_path, no, word, ', '.join(KEYS)))
                if k in spec:
                    raise BadLine('%s:%d: %s given twice' % (md_path, no, k))
                spec[k] = v
            for k in ('case', 'jdk', 'expect'):
                if not spec.get(k):
                    raise BadLine('%s:%d: %s= is missing' % (md_path, no, k))
            spec['case'] = os.path.join(os.path.dirname(md_path), spec['case'])
            if not os.path.isfile(spec['case']):
                raise BadLine('%s:%d: case %s does not exist' % (md_path, no, spec['case']))
            if spec.get('via', 'stress') not in ('stress', 'replay'):
                raise BadLine('%s:%d: via= wants stress or replay' % (md_path, no))
            if 'time' in spec:
                try:
                    seconds_of(spec['time'])   # repro's own reading of it
                except InputError:
                    raise BadLine('%s:%d: time= wants a duration such as 10s or 2m, got %r'
                                  % (md_path, no, spec['time']))
            if not spec['jdk'].isdigit():
                raise BadLine('%s:%d: jdk= wants a major version such as 17, got %r' % (md_path, no, spec['jdk']))
            if 'build' in spec and not build_fits(spec['jdk'], spec['build']):
                raise BadLine('%s:%d: build= wants a build of JDK %s such as %s.0.1+2, got %r'
                              % (md_path, no, spec['jdk'], spec['jdk'], spec['build']))
            spec['where'] = '%s:%d' % (os.path.relpath(md_path, REPO), no)
            spec['md'] = md_path
            out.append(spec)
    return out


def build_fits(major, build):
    """Whether build (a JAVA_RUNTIME_VERSION) can stand in a verify: line of JDK major."""
    return bool(re.fullmatch(r'%s(?:[.+-][0-9A-Za-z.+_-]*)?' % re.escape(major), build or ''))


def words(spec, key):
    """A comma-joined key (jvm=, stress=) as the blank-separated option value repro takes, or None."""
    return ' '.join(spec[key].split(',')) if spec.get(key) else None


def java_version_text(home):
    """What `java -version` of a JDK prints, or '' when it does not run."""
    try:
        r = subprocess.run([os.path.join(home, 'bin', 'java'), '-version'], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ''
    return r.stdout or ''


def jdk_version_line(home):
    """The first line of `java -version`, or ''."""
    text = java_version_text(home)
    return text.splitlines()[0].strip() if text else ''


def jdk_major(home):
    m = re.search(r'version "(\d+)', java_version_text(home))
    return m.group(1) if m else None


def find_jdks(paths):
    """{major version: [home, ...]} of the JDKs at paths, in their order (none given: the
    system's JDKs, then the handles ci/install-jdk made for JDKs in a root)."""
    if not paths:
        paths = sorted(p for p in glob.glob('/usr/lib/jvm/*') if os.path.isfile(os.path.join(p, 'bin', 'javac'))
                       and not os.path.islink(p))
        paths += sorted(glob.glob(os.path.join(JDK_HANDLES, 'jdk*')))
    jdks = {}
    for p in paths:
        major, home = jdk_major(p), os.path.realpath(p)
        if major and home not in jdks.get(major, []):
            jdks.setdefault(major, []).append(home)
    return jdks


def jdk_for(spec, jdks):
    """(home, note) of the JDK a reproducer runs on, of those find_jdks gave: of its major
    version, the one of its build= when that is here, else the first. note is None, or says
    the build differs from the one the case was found on (a case is relative to the VM's
    code: a miss on another build says less). (None, None) when none has its major version."""
    homes = jdks.get(spec['jdk']) or []
    if not homes:
        return None, None
    for h in homes:
        if not build_note(spec, h):
            return h, None
    return homes[0], build_note(spec, homes[0])


def build_note(spec, home):
    """None when the JDK at home is the build the reproducer names (or it names none), else
    a phrase saying both builds."""
    want, have = spec.get('build'), identity(home)['version']
    if not want or have == want:
        return None
    return 'found on build %s; %s is %s' % (want, home, have or 'of no known build')


def for_case(path):
    """The verify: spec of a reproducer given as its .md, or as a .case with a NAME.md beside
    it naming that case; None for any other file."""
    if path.endswith('.md'):
        specs = parse_verify(path)
        if not specs:
            raise BadLine('%s: no verify: line, so repro cannot tell how to run it: this note gives its '
                          'own commands (a test hook, a fuzzer artifact); or give repro its case file' % path)
        return specs[0]
    md = os.path.splitext(path)[0] + '.md'
    if os.path.isfile(md):
        for spec in parse_verify(md):
            if os.path.realpath(spec['case']) == os.path.realpath(path):
                return spec
    return None
