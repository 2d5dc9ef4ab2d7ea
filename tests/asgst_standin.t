#!/usr/bin/env bash
# The stand-in provider behaves as the prototype where the framework relies
# on it (tests/c/fake_proto_test.c names each behaviour).
cd "$(dirname "$0")/.." && . tests/lib.sh
run_tap fake_proto_test "$BUILD/tests/fake_proto_test" "$PWD/$BUILD/tests/libfake_proto.so"
tap_done
