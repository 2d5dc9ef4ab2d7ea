"""Known VM bugs that ship with the repository: one list per VM build in
ci/known/, the buckets the framework finds on that build as it is (the
census's confirmed root causes and what pre-merge runs of the unmodified
build met), so that a first pre-merge of an unpatched build says "known N,
new 0". A list names its build in header comments:

    # vm-version: 17.0.21.1+2-1-deb12u1-Debian
    # libjvm-build-id: 4f1c...

and matches a JDK whose libjvm has that GNU build-id or, failing that, whose
java.vm.version is that string (a rebuild of the same source). A third
header, `# debug-info: yes|no`, says whether libjvm's line tables were there
when the list was made: with them triage names inlined functions, and so
titles (and signatures) differ from those a host without them gives; a
mismatch is said with the list. The rest of the file is a --known list: one
signature or exact title per line."""
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'crash-triage'))
from ctlib.symbolize import elf_build_id, has_line_tables  # noqa: E402
from ctlib.report import KNOWN_DIR, known_headers as headers, shipped_known_lists  # noqa: E402



def vm_identity(java_home):
    """(java.vm.version or None, libjvm build-id or None) of a JDK."""
    version = None
    try:
        p = subprocess.run([os.path.join(java_home, 'bin', 'java'), '-XshowSettings:properties', '-version'],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        m = re.search(r'^\s*java\.vm\.version = (\S+)\s*$', p.stderr.decode('utf-8', 'replace'), re.M)
        version = m.group(1) if m else None
    except (OSError, subprocess.SubprocessError):
        pass
    libjvm = os.path.join(java_home, 'lib', 'server', 'libjvm.so')
    return version, elf_build_id(libjvm) if os.path.exists(libjvm) else None


def debug_info(java_home):
    """'yes' when triage on this host can see libjvm's inlined functions, else 'no'."""
    return 'yes' if has_line_tables(os.path.join(java_home, 'lib', 'server', 'libjvm.so')) else 'no'


def debug_note(path, java_home):
    """What a list made with (or without) libjvm's debug info means on this host, or ''."""
    made, here = headers(path).get('debug-info'), debug_info(java_home)
    if made not in ('yes', 'no') or made == here:
        return ''
    if made == 'yes':
        return ('; WARNING: the list was made with libjvm\'s debug info and this host has none, so titles '
                'that name inlined functions differ and those known bugs will count as new: install the '
                'JDK\'s debug symbols (Debian: its -dbg package, as make deps does)')
    return ('; WARNING: the list was made without libjvm\'s debug info and this host has it, so titles '
            'name inlined functions the list does not and those known bugs will count as new')


def _show(path):
    """A list's path as the user reads it: relative to the checkout when inside it."""
    repo = os.path.dirname(HERE)
    return os.path.relpath(path, repo) if path.startswith(repo + os.sep) else path


def given(path, java_home):
    """One line on a list the user named with --known: which VM build it was made for, when its
    header says, and WARNING when that is not this JDK's (the buckets it lists would be another
    build's, so they would count as new here and this build's known ones too)."""
    try:
        h = headers(path)
    except (OSError, ValueError) as e:      # unreadable or not UTF-8: load_known says it again, fatally
        return 'known list %s (given; its header cannot be read: %s)' % (path, e)
    made_version, made_id = h.get('vm-version'), h.get('libjvm-build-id')
    if not made_version and not made_id:
        return 'known list %s (given; it names no VM build, so it is not checked against this one)' % path
    version, build_id = vm_identity(java_home)
    if made_id and made_id == build_id:
        return 'known list %s (given; made for this libjvm, build-id %s)%s' % (
            path, build_id, debug_note(path, java_home))
    if made_version and made_version == version:
        return 'known list %s (given; made for java.vm.version %s, another build of it)%s' % (
            path, version, debug_note(path, java_home))
    return ('known list %s (given); WARNING: it was made for java.vm.version %s (libjvm build-id %s), '
            'and this JDK is %s (build-id %s): its bugs are another build\'s, and this build\'s known ones '
            'will count as new' % (path, made_version or '?', made_id or '?', version or '?', build_id or '?'))


def find(java_home, directory=KNOWN_DIR):
    """(path or None, one line saying which list and why, or why none)."""
    version, build_id = vm_identity(java_home)
    by_id = shipped_known_lists({build_id}, directory)
    if by_id:
        return by_id[0], 'known list %s (libjvm build-id %s)%s' % (_show(by_id[0]), build_id,
                                                                   debug_note(by_id[0], java_home))
    by_version = next((p for p in sorted(glob.glob(os.path.join(directory, '*.known')))
                       if version and headers(p).get('vm-version') == version), None)
    if by_version:
        return by_version, ('known list %s (java.vm.version %s; its build-id %s is not this libjvm\'s %s: '
                            'the same version, another build)%s' % (
                                _show(by_version), version,
                                headers(by_version).get('libjvm-build-id', '?'), build_id or '?',
                                debug_note(by_version, java_home)))
    return None, ('no known list ships for this VM (java.vm.version %s, libjvm build-id %s): every bucket '
                  'counts as new; ci/known/ has lists for %s' % (
                      version or '?', build_id or '?',
                      ', '.join(headers(p).get('vm-version', os.path.basename(p))
                                for p in sorted(glob.glob(os.path.join(directory, '*.known')))) or 'none'))
