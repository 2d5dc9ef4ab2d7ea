# Sourced by fuzz/run-libfuzzer, fuzz/run-afl and ci/job. write_replay_env FILE
# writes the harness settings of the run about to start (every ASGF_* variable
# but those that do not change what a case does: ASGF_OUT, the campaign's file
# of armed walker blocks (an output, written once), and the wrappers' own corpus
# staging and root entry, which the harness skips too (fuzz/harness.c);
# one NAME=VALUE a line) where crash-triage looks for them when it
# replays a crash artifact of this run: in the artifact's directory or up to
# three above it (crash-triage/README.md, "replay.env"). Without them a replay
# runs with triage's environment, which is not the fuzzer's.
#
# What was preloaded into the harness is a setting too: a VM build or a
# stand-in provider injected with LD_PRELOAD, or with AFL_PRELOAD, which
# afl-fuzz gives its target alone (triage's own environment never has it).
# It goes in as ASGF_PRELOAD, which fuzz/replay preloads.
replay_env_now() {
  local pre=${LD_PRELOAD:-}
  [ -n "${AFL_PRELOAD:-}" ] && pre=${pre:+$pre:}$AFL_PRELOAD
  { env | grep '^ASGF_[A-Z0-9_]*=' | grep -Ev '^ASGF_(OUT|PRELOAD|CORPUS_STAGE|STAGE_[A-Z0-9_]*|IN_JDK_ROOT|SYSROOT|WALKER_BLOCKS)='
    [ -n "$pre" ] && echo "ASGF_PRELOAD=$pre"
  } | LC_ALL=C sort
}

#
# The same settings again leave the file as it was: triage takes a replay.env
# newer than a record the harness wrote for a later run's, and a run into the
# same --out with the same settings must not orphan the records already there.
write_replay_env() {
  {
    echo "# harness settings of a fuzzer run, for replays of its crash artifacts (crash-triage/README.md)"
    replay_env_now
  } >"$1.tmp.$$" || return
  if cmp -s "$1.tmp.$$" "$1"; then rm -f "$1.tmp.$$"; else mv -f "$1.tmp.$$" "$1"; fi
}

# replay_env_differs FILE: FILE, an earlier run's replay.env, holds other
# settings than this run's. Its artifacts must then keep it (pin_replay_env)
# before this run writes its own over it, or their replays would take the
# new settings.
replay_env_differs() {
  [ -f "$1" ] && [ "$(grep '^ASGF_' "$1")" != "$(replay_env_now)" ]
}

# pin_replay_env FILE DIR: DIR, which holds an earlier run's artifacts, gets a
# copy of FILE (that run's settings) unless it has its own: triage looks in an
# artifact's own directory first.
pin_replay_env() {
  [ -f "$2/replay.env" ] && return 0
  cp "$1" "$2/replay.env.tmp.$$" && mv -f "$2/replay.env.tmp.$$" "$2/replay.env"
}
