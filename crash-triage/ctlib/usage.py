"""The command line parser every tool here uses: a usage error is one line under the
usage, named by the tool, and exit status 2."""
import argparse
import os
import re
import sys

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        m = re.match(r'argument (?:\S+/)?(\S+): expected one argument$', message)
        if m:
            # argparse reads '--budget -5m' as an option with no value and says only that
            message += " (a value that starts with '-' is read as an option: write %s=VALUE)" % m.group(1)
        sys.stderr.write('%s: error: %s\n' % (os.path.basename(self.prog), message))
        sys.exit(EXIT_USAGE)
