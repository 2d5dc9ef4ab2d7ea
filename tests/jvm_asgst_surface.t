#!/usr/bin/env bash
# The whole ASGST surface on the stand-in provider (tests/jvm/fake_proto.c):
#  - every function of the prototype header, listed here from the header
#    itself, is bound, or is one of the two the newest snapshot may leave
#    out and reported absent-optional; the binding knows no other names;
#  - a short campaign (queue mode with its lifecycle operations, then
#    signal mode with method info, over the class-unloading workload)
#    calls every bound entry point at least once, without a framework
#    crash, and every sample reaches the API.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
header_functions="Capabilities RunWithIterator RunWithIteratorFromFrame RewindIterator NextFrame State ThreadState
  MethodToJMethodID JMethodIDToMethod GetMethodInfo GetMethodIdNum GetMethodLineNumberTable GetMethodLineNumber
  GetClassInfo GetClassIdNum GetClass JClassToClass ClassToJClass RegisterClassUnloadHandler
  DeregisterClassUnloadHandler RegisterQueue DeregisterQueue SetOnQueueProcessingStart SetOnQueueProcessingEnd
  Enqueue GetEnqueuableElement GetQueueElement GetQueueSizeInfo ResizeQueue RegisterFrameMark MoveFrameMark
  GetFrameMarkStackPointer RemoveFrameMark"
optional="GetMethodLineNumber DeregisterClassUnloadHandler"

check_binding() { # LIB PREFIX: every header function bound or optional-and-absent
  local lib=$1 pfx=$2 bad="" n=0
  LD_PRELOAD=$PWD/$BUILD/tests/$lib "$JAVA" $PROBE=api=asgst,out=$d $PROBE_CP Probe walk > "$d/$lib.out" 2>&1
  for f in $header_functions; do
    n=$((n + 1))
    state=$(sed -n "s/^api: entry $pfx$f //p" "$d/$lib.out")
    case " $optional " in *" $f "*) [ "$state" = bound ] || [ "$state" = absent-optional ] || bad="$bad $f($state)" ;;
      *) [ "$state" = bound ] || bad="$bad $f(${state:-not listed})" ;; esac
  done
  extra=$(sed -n "s/^api: entry $pfx\([A-Za-z]*\) .*/\1/p" "$d/$lib.out" | while read -r f; do
    case " $(echo $header_functions) " in *" $f "*) ;; *) echo "$f" ;; esac; done | tr '\n' ' ')
  [ -z "$bad" ] && [ -z "$extra" ] && [ "$n" -eq 33 ]
  ok $? "$lib: all $n header functions bound or optional-and-absent (wrong:${bad:- none}; unknown: ${extra:-none})"
}
check_binding libfake_proto.so ASGST_
check_binding libfake_proto_newest.so JFRLL_
grep -c "absent-optional" "$d/libfake_proto_newest.so.out" | grep -qx 2
ok $? "the newest snapshot's shape: exactly the two optional entry points reported absent-optional"

# The campaign: two short runs, counts summed from their summary.json.
run_leg() { # NAME AGENT_OPTS
  LD_PRELOAD=$PWD/$BUILD/tests/libfake_proto.so run_stress "$d/$1" "api=asgst,$2" classload 4 2
}
run_leg queue "mode=queue,mutate=random,seed=3"; rc_q=$?
run_leg signal "mode=signal,mutate=random,seed=4"; rc_s=$?
[ $rc_q -eq 0 ] && [ $rc_s -eq 0 ] && ! ls "$d"/*/hs_err* > /dev/null 2>&1
ok $? "both legs exit 0 without an hs_err file (queue $rc_q, signal $rc_s)"
python3 - "$d/queue/summary.json" "$d/signal/summary.json" "$header_functions" > "$d/calls" 2>&1 <<'PY'
import json, sys
total = {}
for p in sys.argv[1:3]:
    for k, v in json.load(open(p))['api_calls'].items(): total[k] = total.get(k, 0) + v
zero = [f for f in sys.argv[3].split() if not total.get(f)]
print('zero:', ' '.join(zero) or 'none')
print('calls:', ' '.join('%s=%d' % kv for kv in sorted(total.items())))
PY
grep -q "^zero: none$" "$d/calls"; ok $? "every bound entry point was called ($(head -1 "$d/calls"))"
grep "^calls:" "$d/calls" | sed 's/^/# /'
for leg in queue signal; do
  pct=$(json_field "$d/$leg/summary.json" reached_api_pct)
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 95 else 1)" "$pct"
  ok $? "$leg leg: $pct% of samples reached the API (target >= 95%)"
done
grep -q '"unload_events"\|unload events [1-9]' "$d/queue/log"; ok $? "the class-unload handler saw unloads: $(grep -o 'unload events [0-9]* ([0-9]* methods' "$d/queue/log")"
tap_done
