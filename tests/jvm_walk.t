#!/usr/bin/env bash
# Backend agct on a live JVM: the walk of the current thread matches JVMTI
# GetStackTrace; walks in a signal handler of a thread running JIT code.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
run_tap walk "$JAVA" $PROBE=api=agct,out=$d $PROBE_CP Probe walk
run_tap spin "$JAVA" $PROBE=api=agct,out=$d $PROBE_CP Probe spin
run_tap thread "$JAVA" $PROBE=api=agct,out=$d $PROBE_CP Probe thread
tap_done
