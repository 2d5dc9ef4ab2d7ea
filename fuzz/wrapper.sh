# Shared by fuzz/run-libfuzzer, fuzz/run-afl, fuzz/replay and fuzz/bench
# (sourced, not run). Sets $here (repository root), $self (the calling
# script) and $build (absolute), and puts $JAVA_HOME's libjvm first: the
# binaries carry the build's JDK as RUNPATH, and since the JVM is created
# through JNI any HotSpot JDK 11+ can stand in at run time.
here=$(cd "$(dirname "$0")/.." && pwd)
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
build=${BUILD:-$here/build}
[ "${build#/}" != "$build" ] || build=$here/$build
# A JDK handle from ci/install-jdk (asgf-root beside bin/) lives in a root of a
# newer Debian: the binaries run there ("${in_jdk[@]}" prefixes their command
# lines), with the libjvm path as the root sees it.
in_jdk=()
# No JAVA_HOME: the java on PATH, as crash-triage/repro and stress/run take it,
# so that the tools that call us and we run the same VM; one that is no JDK
# image of 11+ (a JDK 8, a version manager's shim) leaves the build's JDK.
path_java_home=""
if [ -z "${JAVA_HOME:-}" ] && command -v java >/dev/null 2>&1; then
  path_java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  if [ -f "$path_java_home/lib/server/libjvm.so" ]; then
    JAVA_HOME=$path_java_home
    export JAVA_HOME
  fi
fi
# --help reads no JDK: it must work whatever JAVA_HOME says.
asking_help=0
case " $* " in *" -h "* | *" --help "*) asking_help=1 ;; esac
if [ -n "${JAVA_HOME:-}" ] && [ -f "$JAVA_HOME/asgf-root" ] && [ -x "$JAVA_HOME/asgf-root-run" ]; then
  jdk_root=$(cat "$JAVA_HOME/asgf-root")
  jdk_lib=$(readlink -f "$JAVA_HOME/lib")
  export LD_LIBRARY_PATH=${jdk_lib#"$jdk_root"}/server${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  in_jdk=("$JAVA_HOME/asgf-root-run" "$jdk_root")
elif [ -n "${JAVA_HOME:-}" ] && [ -f "$JAVA_HOME/lib/server/libjvm.so" ]; then
  export LD_LIBRARY_PATH=$JAVA_HOME/lib/server${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
elif [ -n "${JAVA_HOME:-}" ] && [ $asking_help = 0 ]; then
  # Else the binaries' RUNPATH would load the build's JDK in its place, and
  # the run would look like one on the JDK asked for.
  hint=""
  for sub in images/jdk jdk; do
    [ -f "$JAVA_HOME/$sub/lib/server/libjvm.so" ] && hint=" (an OpenJDK build directory? its JDK is $JAVA_HOME/$sub)" && break
  done
  case $JAVA_HOME in */bin | */bin/) hint=" (the JDK itself is ${JAVA_HOME%/bin*})" ;; esac
  echo "$(basename "$0"): JAVA_HOME '$JAVA_HOME' has no lib/server/libjvm.so$hint" >&2
  exit 2
elif [ -z "${JAVA_HOME:-}" ] && [ $asking_help = 0 ]; then
  why="no java on PATH"
  [ -n "$path_java_home" ] && why="the java on PATH ($path_java_home) has no lib/server/libjvm.so"
  echo "$(basename "$0"): no JAVA_HOME, and $why: running the JDK this build was made with" >&2
fi

# jdk_label: the first line of -version of the JDK the harness runs on (for
# a benchmark's header: the java on PATH may be another one).
jdk_label() {
  if [ -n "${JAVA_HOME:-}" ]; then "$JAVA_HOME/bin/java" -version 2>&1 | head -1
  else echo "the JDK this build was made with"
  fi
}
# die MESSAGE: usage error, exit 2, named after the calling script.
die() { echo "$(basename "$0"): $*" >&2; exit 2; }
# usage [STATUS]: the calling script's header comment; exits STATUS (default 2).
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$self" >&2; exit "${1:-2}"; }
# seconds D: N, Ns, Nm or Nh in seconds; fails on anything else.
seconds() {
  [[ $1 =~ ^([0-9]+)([smh]?)$ ]] || return 1
  local n=${BASH_REMATCH[1]}
  case ${BASH_REMATCH[2]} in h) echo $((n * 3600)) ;; m) echo $((n * 60)) ;; *) echo "$n" ;; esac
}
# afl_machine_env: what afl-fuzz needs on these machines whatever its target
# (fuzz/run-afl; fuzz/bench's protocol ceiling).
afl_machine_env() {
  export AFL_SKIP_CPUFREQ=1                      # no cpufreq governor to check in a VM/container
  export AFL_NO_AFFINITY=1                       # else AFL pins the whole JVM, every thread, to one core
  export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 # core_pattern is not ours to change
}
# For the benchmarks (fuzz/bench, fuzz/bench-walker):
# lf_rate LOG: libFuzzer's "Done N runs in S second(s)" as N/S.
lf_rate() { sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$1" | awk '$2 > 0 { printf "%d", $1 / $2 }'; }
# median: of the numbers on stdin, "none" for none.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "none"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
