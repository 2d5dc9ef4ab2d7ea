# Sourced by fuzz/run-libfuzzer: keeps the corpus libFuzzer writes in memory
# while it runs, and on disk between runs.
#
# Why: libFuzzer writes a file for each input it keeps (NEW) and for each
# smaller input that replaces one (REDUCE, which also removes the old file),
# from its fuzzing thread, between two inputs. With the structure-aware
# mutations a fresh run does about 3,000 REDUCEs in its first 500k inputs
# (a few seconds), then a few a second. On the ext4 disks of our 2-core
# machines a create costs 0.15-1.1 ms and an unlink 0.1 ms (docs/figures.md,
# 2026-11-27 10:55), so a short run (a smoke job, a bench run) spent a
# quarter of its time on them. In tmpfs they cost microseconds.
#
# How: stage_open copies DIR into a new directory under $ASGF_STAGE_ROOT
# (default /dev/shm) and libFuzzer works there. stage_sync mirrors it back:
# files new to DIR are copied, and files libFuzzer removed since the last
# sync are removed from DIR (never files others put in DIR meanwhile).
# run-libfuzzer syncs every $ASGF_STAGE_SYNC_S seconds (default 60) and at
# the end. A run killed with SIGKILL leaves its staged directory behind;
# the next run on the same DIR copies in what it holds, then removes it.
#
# A run sees only its staged copy: files other processes add to DIR while it
# runs reach it at its next start, not through libFuzzer's -reload. Runs that
# share one corpus directory live want ASGF_CORPUS_STAGE=0.
#
# Crashing inputs are not staged: -artifact_prefix and the crash records
# stay on disk, written by the harness before or during the fault.
#
# ASGF_CORPUS_STAGE: auto (default: stage unless DIR is already in memory
# or there is no writable $ASGF_STAGE_ROOT), 1 (stage, or fail), 0 (never).

staged=""      # the staged directory (corpus/ in it is libFuzzer's), "" when not staging
stage_target=""
stage_every=60 # seconds between syncs, from ASGF_STAGE_SYNC_S (stage_check)

# stage_check: the option's value, or exit 2 naming it.
stage_check() {
  case ${ASGF_CORPUS_STAGE:-auto} in 0 | 1 | auto) ;; *) die "ASGF_CORPUS_STAGE wants 0, 1 or auto, got '$ASGF_CORPUS_STAGE'" ;; esac
  case ${ASGF_STAGE_SYNC_S:-60} in '' | *[!0-9]* | 0) die "ASGF_STAGE_SYNC_S wants seconds >= 1, got '$ASGF_STAGE_SYNC_S'" ;; esac
  stage_every=${ASGF_STAGE_SYNC_S:-60}
}

# stage_open DIR: sets $staged (and returns 0) when DIR is to be staged.
stage_open() {
  local dir=$1 mode=${ASGF_CORPUS_STAGE:-auto} root=${ASGF_STAGE_ROOT:-/dev/shm}
  staged="" stage_target=$dir
  [ "$mode" = 0 ] && return 1
  if [ "$mode" = auto ]; then
    [ "$(stat -f -c %T "$dir" 2>/dev/null)" = tmpfs ] && return 1
    [ -d "$root" ] && [ -w "$root" ] || return 1
  fi
  stage_recover "$root" "$dir"
  staged=$(mktemp -d "$root/asgf-corpus.XXXXXX" 2>/dev/null) || {
    staged=""
    [ "$mode" = 1 ] && die "ASGF_CORPUS_STAGE=1: cannot create a directory in '$root'"
    return 1
  }
  printf '%s\n%s\n' "$$" "$dir" >"$staged/owner"
  mkdir "$staged/corpus" &&
    stage_list "$dir" >"$staged/synced" &&
    (cd "$dir" && xargs -r -d '\n' cp -p -t "$staged/corpus" -- <"$staged/synced") || {
    rm -rf "$staged"
    staged=""
    [ "$mode" = 1 ] && die "ASGF_CORPUS_STAGE=1: cannot copy '$dir' into '$root'"
    return 1
  }
}

# stage_sync: mirrors the staged corpus into its DIR ($staged/synced lists
# what the two held in common at the last sync).
stage_sync() {
  [ -n "$staged" ] || return 0
  local now=$staged/listing
  stage_list "$staged/corpus" >"$now" || return 1
  # A file libFuzzer is still writing may be copied short; any bytes are an
  # input, so a short copy costs nothing but the one input.
  # While libFuzzer runs, a listed file may be gone (REDUCE) before it is
  # copied: not an error here; stage_close checks the last copy.
  stage_copy_new "$staged/corpus" "$stage_target" "$now"
  comm -23 "$staged/synced" "$now" | (cd "$stage_target" && xargs -r -d '\n' rm -f --)
  mv "$now" "$staged/synced"
}

# stage_close: the last sync, then the staged directory goes, unless a
# file of it did not reach DIR (a full disk): then it stays for the next run
# on DIR to recover.
stage_close() {
  [ -n "$staged" ] || return 0
  stage_sync || return 1
  stage_all_in "$staged/corpus" "$stage_target" || return 1
  rm -rf "$staged"
  staged=""
}

# stage_list DIR: the names of DIR's files, sorted.
stage_list() { (cd "$1" && find . -maxdepth 1 -type f -printf '%f\n' | sort); }

# stage_copy_new SRC DST LISTING: copies the files LISTING names (SRC's, as
# stage_list gives them) that DST lacks. Silent about files gone meanwhile;
# stage_all_in is the check.
stage_copy_new() {
  comm -13 <(stage_list "$2") "$3" | (cd "$1" && xargs -r -d '\n' cp -p -t "$2" -- 2>/dev/null)
}

# stage_all_in SRC DST: every file of SRC is in DST.
stage_all_in() { [ -z "$(comm -13 <(stage_list "$2") <(stage_list "$1") | head -1)" ]; }

# stage_recover ROOT DIR: staged directories of DIR whose run is gone
# (killed before its last sync): their files join DIR, then they go; one
# whose files did not all arrive stays for a later run.
stage_recover() {
  local root=$1 dir=$2 d pid owner
  for d in "$root"/asgf-corpus.*; do
    [ -f "$d/owner" ] || continue
    { read -r pid && read -r owner; } <"$d/owner" || continue
    [ "$owner" = "$dir" ] || continue
    kill -0 "$pid" 2>/dev/null && continue
    [ -d "$d/corpus" ] || continue
    stage_copy_new "$d/corpus" "$dir" <(stage_list "$d/corpus")
    if ! stage_all_in "$d/corpus" "$dir"; then
      echo "$(basename "$0"): could not recover all of $d into $dir; it stays" >&2
      continue
    fi
    echo "$(basename "$0"): recovered the corpus of an earlier run killed before its last sync ($d)" >&2
    rm -rf "$d"
  done
}
