"""The command line parser every tool here uses: a usage error is one line under the
usage, named by the tool, and exit status 2."""
import argparse
import os
import re
import sys

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message):
        self.print_usage(sys.stderr)
        m = re.match(r'argument (\S+): expected one argument$', message)
        if m:
            # argparse reads '--budget -5m' as an option with no value and says only that
            names, words = m.group(1).split('/'), getattr(self, '_words', [])
            if any(w in names and i + 1 < len(words) and words[i + 1].startswith('-') for i, w in enumerate(words)):
                message += (" (a value that starts with '-' is read as an option: write %s=VALUE)"
                            % names[-1])
        sys.stderr.write('%s: error: %s\n' % (os.path.basename(self.prog), message))
        sys.exit(EXIT_USAGE)
