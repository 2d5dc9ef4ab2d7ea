#!/usr/bin/env bash
# Crash protection covers every call the framework makes into the VM. The
# stand-in provider's fault knob (tests/jvm/fault_knob.h) plants a fault in
# every entry point, in every context the framework calls it from (signal
# handler, plain thread, iterator callback after a rewind, an error or the
# end, nested walk, queue handler, processing and frame-mark handlers), and
# each harness runs in rounds that share the knob's log: the first call of
# each pair faults once, and a pair that faulted is left alone in the next
# round, so the calls behind it (a RegisterQueue that faulted leaves no queue
# to process) get their turn. Every harness must live through every round,
# catch exactly the faults planted, count each once, and in the end have met
# a fault in every pair it called.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
fake=$PWD/$BUILD/tests/libfake_proto.so
secs=${MATRIX_SECONDS:-4}
rounds=${MATRIX_ROUNDS:-4}

# matrix NAME EXPECTED-STATUS GUARD-SOURCE PAIRS-NEEDED -- CMD...: the rounds
# of one harness. GUARD-SOURCE: "log" (the harness's stats line), "summary"
# (the agent's summary.json) or "none" (several processes).
matrix() {
  local name=$1 want=$2 guard=$3 need=$4
  shift 5
  local log="$d/$name.knob" round=0 lines="" missing=x called=0 before=-1
  : > "$log"
  # Another round while pairs are left without a fault, or the last round
  # reached new ones (whose own followers may wait behind them).
  while { [ -n "$missing" ] || [ "$called" -gt "$before" ]; } && [ $round -lt "$rounds" ]; do
    before=$called
    round=$((round + 1))
    local o="$d/$name-$round" rc g=()
    mkdir -p "$o"
    cp "$log" "$o.before"
    ASGF_FAKE_FAULT='*@*:1:1' ASGF_FAKE_FAULT_LOG="$log" OUT="$o" "$@" > "$o.log" 2>&1
    rc=$?
    local rec="$o/records"; [ -d "$rec" ] || rec="$o"
    case $guard in
      log) g=(--guard-caught "$(sed -n 's/^asgf: guard: caught \([0-9]*\) .*/\1/p' "$o.log" | tail -1)") ;;
      summary) g=(--guard-caught "$(json_field "$o/summary.json" guard_caught)") ;;
    esac
    lines=$(python3 tests/jvm/fault_matrix.py "$fake" "$log" "$o.before" "$rec" "${g[@]}" 2>&1)
    local st=$?
    # A stress run's status says whether it met faults at all: a round whose
    # pairs all had theirs planted in earlier rounds may meet none and end clean.
    local w=$want
    [ "$want" = 1 ] && [ "$(echo "$lines" | sed -n '1s/.*faults counted in all \([0-9]*\),.*/\1/p')" = 0 ] && w=0
    [ "$rc" = "$w" ]; ok $? "$name, round $round: the harness lived (exit $rc, want $w)"
    echo "$lines" | sed -n '1p;/^FAIL/p;/^Traceback/,$p' | sed 's/^/# /'
    [ $st = 0 ]; ok $? "$name, round $round: every planted fault caught and counted once"
    missing=$(echo "$lines" | sed -n 's/^missing: *//p')
    called=$(echo "$lines" | sed -n 's/^pairs: //p' | wc -w)
  done
  local pairs=" $(echo "$lines" | sed -n 's/^pairs: //p') " p absent=""
  echo "# $name: $(echo $pairs | wc -w) entry/context pairs called in $round rounds"
  [ -z "$missing" ]; ok $? "$name: a fault was planted in every pair it called${missing:+ (not in: $missing)}"
  for p in $need; do case $pairs in *" $p "*) ;; *) absent="$absent $p" ;; esac; done
  [ -z "$absent" ]; ok $? "$name: calls the VM where it must${absent:+ (never called:$absent)}"
}

libfuzzer() { ASGF_API=asgst LD_PRELOAD=$fake fuzz/run-libfuzzer --duration "$secs" --keep-going --out "$OUT" "$@"; }
agent() { LD_PRELOAD=$fake stress/run --scenario spin --time "${secs}s" --out "$OUT" --agent "api=asgst,interval=100us,stats=0,$1"; }

replay() { ASGF_API=asgst LD_PRELOAD=$fake fuzz/replay -n 40 --record-dir "$OUT" "$BUILD/fuzz/seeds"; }
afl() { ASGF_API=asgst AFL_PRELOAD=$fake fuzz/run-afl --duration "$((secs + 4))" --keep-going --out "$OUT"; }

fuzz_pairs="RunWithIterator@signal RunWithIterator@thread NextFrame@callback NextFrame@rewound_failed NextFrame@queue
  GetMethodInfo@callback Enqueue@signal RegisterQueue@thread RegisterClassUnloadHandler@thread Capabilities@thread"
matrix libfuzzer 0 log "$fuzz_pairs" -- libfuzzer
ASGF_BATCH=1 matrix libfuzzer-unbatched 0 log "$fuzz_pairs" -- libfuzzer
matrix libfuzzer-asan 0 log "RunWithIterator@signal NextFrame@queue" -- libfuzzer --asan
matrix replay 0 log "RunWithIterator@signal NextFrame@callback NextFrame@queue" -- replay
matrix afl 0 none "RunWithIterator@signal NextFrame@callback" -- afl
matrix agent-signal 1 summary "RunWithIterator@signal NextFrame@callback Capabilities@thread" -- agent mode=signal
matrix agent-queue 1 summary "Enqueue@signal NextFrame@queue NextFrame@mark NextFrame@processing RegisterQueue@thread
  DeregisterQueue@thread RemoveFrameMark@thread MoveFrameMark@queue GetQueueElement@signal" -- agent mode=queue,queue_ops=all
matrix agent-thread 1 summary "RunWithIterator@thread Enqueue@thread NextFrame@queue" -- agent mode=thread
tap_done
