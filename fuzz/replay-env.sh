# Sourced by fuzz/run-libfuzzer, fuzz/run-afl and ci/job. write_replay_env FILE
# writes the harness settings of the run about to start (every ASGF_* variable
# but ASGF_OUT, one NAME=VALUE a line) where crash-triage looks for them when it
# replays a crash artifact of this run: in the artifact's directory or up to
# three above it (crash-triage/README.md, "replay.env"). Without them a replay
# runs with triage's environment, which is not the fuzzer's.
write_replay_env() {
  {
    echo "# harness settings of a fuzzer run, for replays of its crash artifacts (crash-triage/README.md)"
    env | grep '^ASGF_[A-Z0-9_]*=' | grep -v '^ASGF_OUT=' | LC_ALL=C sort
  } >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"
}
