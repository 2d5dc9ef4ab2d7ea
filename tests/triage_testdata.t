#!/usr/bin/env bash
# crash-triage: every testdata file parses to the title in its header (syzkaller style).
cd "$(dirname "$0")/.." || exit 1
crash-triage/run-testdata
