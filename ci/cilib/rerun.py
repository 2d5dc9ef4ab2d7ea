"""The command that runs a campaign attempt's input again, from what the attempt kept: its
`cmd` file (ci/job writes it) and, for a fuzzer attempt, its harness settings (replay.env,
which triage's own replays read too)."""
import os
import re
import shlex

from . import util  # noqa: F401  (puts crash-triage on the path)
from ctlib import parse_fuzzer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_cmd(attempt_dir):
    """The attempt's cmd file as lines, or None when it has none."""
    path = os.path.join(attempt_dir, 'cmd') if attempt_dir else ''
    if not os.path.isfile(path):
        return None
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read().strip().splitlines()


def is_fuzzer(lines):
    """A fuzzer attempt's cmd starts with its harness settings (export lines); a stress
    job's is the stress/run command alone."""
    return bool(lines) and lines[0].startswith('export ')


def replay_env(attempt_dir):
    """The attempt's harness settings as NAME=VALUE words for a shell line ([] if unreadable)."""
    try:
        settings = parse_fuzzer.replay_env(os.path.join(attempt_dir, 'cmd'))[0]
    except parse_fuzzer.BadSettings:
        settings = {}
    return ['%s=%s' % (k, shlex.quote(v)) for k, v in sorted(settings.items())]


def java_home(lines):
    """The VM a fuzzer attempt ran on, from its cmd file's export line; None in a cmd file
    written before ci/job wrote one."""
    for line in lines or []:
        if line.startswith('export JAVA_HOME='):
            try:
                words = shlex.split(line[len('export '):])
            except ValueError:
                return None
            return words[0].split('=', 1)[1] if words else None
    return None


def replay(env, case, runs, home=None):
    """fuzz/replay of one case, `runs` times, with the harness settings `env`, on the VM at
    home (else the JAVA_HOME of whoever runs the line, which need not be the one that ran)."""
    vm = ['JAVA_HOME=%s' % shlex.quote(home)] if home else []
    return ' '.join(vm + env + [os.path.join(ROOT, 'fuzz', 'replay'), '-n', str(runs), shlex.quote(case)])


def stress(lines, out_name):
    """A stress attempt's command again: the same workload, options and seed, into out_name."""
    return re.sub(r'--out \S+', '--out %s' % out_name, lines[-1], count=1)
