"""Checks before a campaign: a usable VM, and the build the plan needs (make)."""
import glob
import os
import re
import shutil
import subprocess

from .util import UsageError
from ctlib import jdk  # noqa: E402  (on the path: util puts it there)


class NotRunnable(Exception):
    """The campaign cannot run here (bad JAVA_HOME, failed build): exit 3."""


def default_java_home():
    return jdk.path_java_home() or ''


def check_java(java_home, what='JAVA_HOME'):
    """Returns the VM's version line, or raises NotRunnable saying why.
    what: how the user gave java_home (JAVA_HOME, --base), for the message."""
    if not java_home:
        raise NotRunnable('no JAVA_HOME given and no java on PATH')
    java = os.path.join(java_home, 'bin', 'java')
    why = jdk.home_problem(java_home, needs_libjvm=False)
    if why:
        raise NotRunnable('%s %s' % (what, why))
    try:
        p = subprocess.run([java, '-Xshare:auto', '-version'], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise NotRunnable("%s '%s': %s -version failed: %s" % (what, java_home, java, e))
    text = p.stdout.decode('utf-8', 'replace').strip()
    if p.returncode != 0:
        raise NotRunnable("%s '%s': java -version exited %d: %s"
                          % (what, java_home, p.returncode, text.splitlines()[-1] if text else ''))
    lines = [l for l in text.splitlines() if l.strip()]
    return ' / '.join(lines[:2])


def build_jdk(java_home):
    """A JDK to build with: the VM under test if it has headers, else the
    JDK on PATH (the agent only needs jni.h/jvmti.h, which are stable). Not
    a JDK ci/install-jdk put in a root (asgf-root): its libjvm needs the
    root's newer C library, so binaries linked against it do not link here;
    the tools run it in its root whatever they were built with."""
    def usable(jdk):
        return (os.path.isfile(os.path.join(jdk, 'include', 'jni.h'))
                and not os.path.isfile(os.path.join(jdk, 'asgf-root')))
    if usable(java_home):
        return java_home
    javac = shutil.which('javac')
    candidates = [os.path.dirname(os.path.dirname(os.path.realpath(javac)))] if javac else []
    candidates += sorted(glob.glob('/usr/lib/jvm/*'))
    for jdk in candidates:
        if usable(jdk):
            return jdk
    return java_home


STRESS_FILES = ('build/stress/classes.stamp', 'build/lib/libstressnative.so', 'build/lib/libasgfagent.so')


def _run_make(argv, env, log):
    with open(log, 'ab') as f:
        f.write(('$ %s\n' % ' '.join(argv)).encode())
        f.flush()
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        f.write(p.stdout)
    return p.returncode, p.stdout


def _make(root, jdk, target, log):
    env = dict(os.environ, JAVA_HOME=jdk)
    env.pop('MAKEFLAGS', None)
    env.pop('MAKELEVEL', None)
    rc, text = _run_make(['make', '-C', root, target], env, log)
    if rc and target == 'fuzz-build' and b"No rule to make target 'fuzz-build'" in text:
        # The top-level Makefile does not include the fuzz fragment (yet).
        rc, text = _run_make(['make', '-C', root, '-f', 'Makefile', '-f', 'fuzz/fuzz.mk', target], env, log)
    return rc == 0


def build(root, specs, java_home, log, do_build=True):
    """Makes what the specs need. Returns (specs that can run, warnings).
    Raises NotRunnable when the stress build is needed and fails."""
    kinds = {s['kind'] for s in specs}
    warnings = []
    jdk = build_jdk(java_home)
    if 'stress' in kinds:
        if do_build and not _make(root, jdk, 'all', log):
            raise NotRunnable('make all failed (see %s)' % log)
        missing = [f for f in STRESS_FILES if not os.path.exists(os.path.join(root, f))]
        if missing:
            raise NotRunnable('missing %s: run make' % ', '.join(missing))
    fuzz_kinds = kinds & {'libfuzzer', 'afl'}
    drop = set()
    if fuzz_kinds:
        ok = (not do_build) or _make(root, jdk, 'fuzz-build', log)
        if not ok:
            warnings.append('make fuzz-build failed (see %s)' % log)
        need = {'libfuzzer': ['build/fuzz/asgf-libfuzzer', 'fuzz/run-libfuzzer'],
                'afl': ['build/fuzz/asgf-afl', 'build/fuzz/libasgf-afl-post.so', 'fuzz/run-afl']}
        if any(s['kind'] == 'libfuzzer' and s['params'].get('asan') == '1' for s in specs):
            need['libfuzzer'].append('build/fuzz/asgf-libfuzzer-asan')
        for k in sorted(fuzz_kinds):
            missing = [f for f in need[k] if not os.path.exists(os.path.join(root, f))]
            if k == 'afl' and not shutil.which('afl-fuzz'):
                missing.append('afl-fuzz (package afl++)')
            if missing:
                drop.add(k)
                warnings.append('%s jobs dropped from the plan: missing %s' % (k, ', '.join(missing)))
    kept = [s for s in specs if s['kind'] not in drop]
    if not kept:
        raise NotRunnable('no job of the plan can run: ' + '; '.join(warnings))
    return kept, warnings


# Workloads that need a newer VM than the oldest supported (11); the scenario
# itself skips on an older one (stress/java/asgstfuzz/stress/VThreadsScenario.java), so a job made
# of nothing else would sample an idle VM for its whole time.
SCENARIO_MIN_FEATURE = {'vthreads': 21}


def java_feature(version_line):
    """The feature release (11, 17, 21...) of a check_java line, or None."""
    m = re.search(r'version "(\d+)(?:\.(\d+))?', version_line or '')
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def drop_too_new(specs, version_line):
    """(specs whose workload this VM can run, warnings): a job whose every scenario needs a
    newer VM is left out, and said so."""
    feature = java_feature(version_line)
    if feature is None:
        return specs, []
    kept, dropped = [], {}
    for s in specs:
        names = [n for n in s['params'].get('scenario', '').split(',') if n]
        need = min((SCENARIO_MIN_FEATURE.get(n, 0) for n in names), default=0)
        if need > feature:
            dropped.setdefault(s['section'], []).append((s['params']['scenario'], need))
        else:
            kept.append(s)
    warnings = ['[%s]: %d job%s dropped from the plan: scenario %s needs JDK %d+, this is JDK %d'
                % (sec, len(js), '' if len(js) == 1 else 's', ' and '.join(sorted({j[0] for j in js})),
                   min(j[1] for j in js), feature)
                for sec, js in dropped.items()]
    if not kept:
        raise NotRunnable('no job of the plan can run: ' + '; '.join(warnings))
    return kept, warnings


def check_hosts_file(path):
    if not os.path.isfile(path):
        raise UsageError("--sshloginfile '%s' does not exist" % path)
    with open(path, encoding='utf-8') as f:
        hosts = [l.strip() for l in f if l.strip() and not l.lstrip().startswith('#')]
    if not hosts:
        raise UsageError("--sshloginfile '%s' names no host" % path)
    return hosts
