#!/usr/bin/env bash
# Regenerates the hs_err fixtures in crash-triage/testdata by crashing real
# JVMs on this machine (OpenJDK 17 and Temurin 25).  Builds into $BUILD
# (default /tmp/crashgen), copies each hs_err file to testdata/<name> and
# then lets the test runner write the TITLE/FRAME headers (review them!).
#
#   crash-triage/testdata-gen/gen.sh [--only NAME-GLOB]
#
# Notes measured on this machine:
#  - -XX:ErrorHandlerTest is a develop flag: product builds (both JDKs here)
#    refuse it, so internal-error fixtures come from -XX:AbortVMOnException
#    (fatal) and -XX:+CrashOnOutOfMemoryError instead.
#  - abort() in a JNI native gives no hs_err (HotSpot has no SIGABRT
#    handler), so there is no such fixture.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
td=$(cd "$here/../testdata" 2>/dev/null && pwd || { mkdir -p "$here/../testdata"; cd "$here/../testdata" && pwd; })
BUILD=${BUILD:-/tmp/crashgen}
J17=${J17:-/usr/lib/jvm/java-17-openjdk-amd64}
J25=${J25:-/usr/lib/jvm/temurin-25-jdk-amd64}
only=${2:-*}
[ "${1:-}" = "--only" ] || only='*'

mkdir -p "$BUILD"
gcc -O1 -g -fPIC -shared -fno-omit-frame-pointer -I"$J17/include" -I"$J17/include/linux" \
    -o "$BUILD/libcrashgen.so" "$here/crashgen.c" -ldl -lpthread
"$J17/bin/javac" -nowarn --release 17 -d "$BUILD" "$here/CrashGen.java" 2>/dev/null

# run NAME JDK [JVM options...] -- MODE ARG THREAD DEPTH
run() {
    local name=$1 jdk=$2; shift 2
    # shellcheck disable=SC2254
    case $name in $only) ;; *) return 0 ;; esac
    local opts=() ; while [ "$1" != "--" ]; do opts+=("$1"); shift; done; shift
    local d="$BUILD/runs/$name"
    rm -rf "$d"; mkdir -p "$d"
    (cd "$d" && timeout 120 "$jdk/bin/java" -Xmx64m -XX:+UseSerialGC -XX:-UsePerfData \
        -XX:-CreateCoredumpOnCrash -XX:ErrorFile="$d/hs_err_pid%p.log" \
        -Djava.library.path="$BUILD" -cp "$BUILD" "${opts[@]}" \
        CrashGen "$1" "$2" "$3" "$4" "$d" >"$d/stdout.txt" 2>&1) || true
    local f; f=$(ls "$d"/hs_err_pid*.log 2>/dev/null | head -1)
    if [ -z "$f" ]; then echo "gen: $name produced no hs_err" >&2; return 0; fi
    local size; size=$(stat -c %s "$f")
    if [ "$size" -gt 300000 ]; then
        # Keep the report, drop the two biggest inventory sections.
        python3 - "$f" "$td/$name" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
out, skip = ['NOTE: Dynamic libraries and Environment Variables sections dropped by gen.sh (file > 300 KB)\n\n'], False
for line in open(src, 'rb').read().decode('utf-8', 'replace').splitlines(True):
    if line.startswith(('Dynamic libraries:', 'Environment Variables:')):
        skip = True
        out.append(line.rstrip('\n') + ' [section dropped by gen.sh: file > 300 KB]\n')
        continue
    if skip and line.strip() == '':
        skip = False
    if not skip:
        out.append(line)
open(dst, 'w').write(''.join(out))
PY
    else
        cp "$f" "$td/$name"
    fi
    # the JVM's console output is a negative case (header copy, not a report)
    case $name in hs_err-17-jni-null-1|hs_err-25-unsafe-put-1)
        cp "$d/stdout.txt" "$td/neg-console-${name#hs_err-}" ;;
    esac
    # keep the harness-style in-flight case file next to the fixture
    for c in "$d"/inflight-*.case; do [ -e "$c" ] && cp "$c" "$td/$name.inflight.case"; done
    echo "gen: $name <- $(basename "$f") ($size bytes)"
}

DIAG=-XX:+UnlockDiagnosticVMOptions
run hs_err-17-unsafe-put-1   "$J17" -- unsafe-put 0x10 worker-1 1
run hs_err-17-unsafe-put-2   "$J17" -- unsafe-put 0x48 sampler-target-7 4
run hs_err-17-unsafe-put-3   "$J17" -Xint -- unsafe-put 0x1000 pool-2-thread-3 7
run hs_err-17-unsafe-get-1   "$J17" -- unsafe-get 0xdead0000 worker-2 2
run hs_err-17-unsafe-get-2   "$J17" -- unsafe-get 0x8 reader 5
run hs_err-17-jni-null-1     "$J17" -- jni-null 0 native-1 1
run hs_err-17-jni-null-2     "$J17" -- jni-null 0x18 native-2 6
run hs_err-17-jni-bus-1      "$J17" -- jni-bus 0x100 mapper 2
run hs_err-17-agct-frames-1  "$J17" -- agct-frames 0x10 agct-direct-1 1
run hs_err-17-agct-frames-2  "$J17" -- agct-frames 0x28 agct-direct-2 3
run hs_err-17-agct-signal-1  "$J17" -- agct-signal 0x10 agct-signal-1 2
run hs_err-17-fatal-exception-1 "$J17" $DIAG -XX:AbortVMOnException=java.lang.IllegalStateException -- abort-on-exception 1 thrower 2
run hs_err-17-oom-1          "$J17" -XX:+CrashOnOutOfMemoryError -Xmx16m -- oom 1 allocator 1
run hs_err-25-unsafe-put-1   "$J25" -- unsafe-put 0x10 worker-1 2
run hs_err-25-unsafe-put-2   "$J25" -- unsafe-put 0x20 worker-9 5
run hs_err-25-jni-null-1     "$J25" -- jni-null 0 native-1 2
run hs_err-25-agct-frames-1  "$J25" -- agct-frames 0x10 agct-direct-1 2
run hs_err-25-agct-signal-1  "$J25" -- agct-signal 0x30 agct-signal-1 1
run hs_err-25-fatal-exception-1 "$J25" $DIAG -XX:AbortVMOnException=java.lang.IllegalStateException -- abort-on-exception 1 thrower 3
run hs_err-25-oom-1          "$J25" -XX:+CrashOnOutOfMemoryError -Xmx16m -- oom 1 allocator 1

# A truncated copy: the process "died" while writing (cut inside Native frames).
src="$td/hs_err-17-unsafe-put-2"
if [ -f "$src" ] && { [ "$only" = '*' ] || [ "$only" = hs_err-17-unsafe-put-2 ]; }; then
    python3 - "$src" "$td/hs_err-17-unsafe-put-truncated" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
i = data.find(b'Native frames:')
j = data.find(b'\n', data.find(b'\n', data.find(b'\n', i) + 1) + 1)   # keep two frame lines
open(sys.argv[2], 'wb').write(data[:j + 1] + data[j + 1:j + 20])     # and a partial third
PY
    echo "gen: hs_err-17-unsafe-put-truncated (cut copy of hs_err-17-unsafe-put-2)"
fi

echo "gen: now run: crash-triage/run-testdata --update   (then review the headers)"
