#!/usr/bin/env bash
# Bad agent options stop the VM at start with a message naming the option; a
# mutate=corpus directory loads text cases, skips notes, says its count, and is refused
# past what the agent holds.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
mkdir -p "$d/corpus-bad" && printf 'ASGF\001\0\0\0\0\0\0\0\0\0\0\0\0\0\0' > "$d/corpus-bad/trunc.case"
check_bad() {  # OPTS WANTED-TEXT
  "$JAVA" "-agentpath:$AGENT=out=$d,$1" -version > "$d/out" 2>&1; rc=$?
  [ $rc -ne 0 ] && grep -qF -- "$2" "$d/out"
  ok $? "'$1' refused (exit $rc): $(grep -m1 'asgf:' "$d/out")"
}
check_bad "interval=abc" 'option 2 "interval=abc": not a duration: "abc"'
check_bad "interval=10parsec" 'unknown unit in duration'
check_bad "interval=100ns" 'interval below 1us'
check_bad "mode=sideways" 'option 2 "mode=sideways": expected signal, thread or queue, got "sideways"'
check_bad "api=jfr" 'expected auto, asgst or agct, got "jfr"'
check_bad "api=asgst" 'exports neither ASGST_RunWithIterator nor JFRLL_RunWithIterator'
check_bad "mutate=everything" 'expected none, random, near, blind, forge or corpus:<dir>'
check_bad "mutate=corpus:" 'expected none, random, near, blind, forge or corpus:<dir>'
check_bad "jvmti_walk=2" 'option 2 "jvmti_walk=2": expected 0/1/true/false/on/off'
check_bad "mutate=corpus:$d/nowhere" "corpus directory $d/nowhere cannot be opened"
check_bad "mutate=corpus:$d/corpus-bad" "corpus file $d/corpus-bad/trunc.case: offset 16: truncated mutation record"
# A corpus with a text case and notes: the text case loads, the notes are skipped, the count
# is said; a corpus past what the agent holds is refused, not cut short unseen.
mkdir -p "$d/corpus-mixed"
cp corpus/seeds/00-signal-plain.txt "$d/corpus-mixed/"
printf 'ASGF\002\0\0\0\0\0\0\0\0\0\0\0' > "$d/corpus-mixed/plain.case"
printf '# how to replay\n' > "$d/corpus-mixed/README.md"; printf 'notes\n' > "$d/corpus-mixed/notes.txt"
"$JAVA" "-agentpath:$AGENT=out=$d/mixed,mutate=corpus:$d/corpus-mixed,stats=0" -version > "$d/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -qF "asgf: mutate=corpus: 2 cases from $d/corpus-mixed" "$d/out"
ok $? "a text case and a binary case load, the notes are skipped, the count is said ($(grep -m1 'mutate=corpus' "$d/out"))"
printf 'asgf-case 1\nmut rax frobnicate 1\n' > "$d/corpus-mixed/bad.txt"
check_bad "mutate=corpus:$d/corpus-mixed" "corpus file $d/corpus-mixed/bad.txt: 2:"
rm "$d/corpus-mixed/bad.txt"
mkdir -p "$d/corpus-big"
for i in $(seq 0 4096); do cp "$d/corpus-mixed/plain.case" "$d/corpus-big/$i.case"; done
check_bad "mutate=corpus:$d/corpus-big" "holds more than 4096 cases"
mkdir -p "$d/corpus-fifo" && cp "$d/corpus-mixed/plain.case" "$d/corpus-fifo/" && mkfifo "$d/corpus-fifo/pipe"
check_bad "mutate=corpus:$d/corpus-fifo" "corpus file $d/corpus-fifo/pipe: not a regular file"
check_bad "oracle_rules=$d" 'option 2 "oracle_rules" does not apply without oracle=1'
check_bad "oracle=1,oracle_rules=$d" "oracle_rules=$d: not a regular file"
check_bad "oracle_graph=1" 'option 2 "oracle_graph" does not apply without oracle=1'
check_bad "test_plant" 'option 2 "test_plant": missing number'
check_bad "queue_ops=resize+info" 'option 2 "queue_ops": with the default mode=signal only info or none apply'
"$JAVA" "-agentpath:$AGENT=out=$d,quiet=1,queue_ops=none,interval=1ms" -version > "$d/out" 2>&1
ok $? "queue_ops=none is taken in signal mode (it turns off the method_info samples)"
check_bad "seed=-4" 'out of range'
check_bad "protect=maybe" 'expected 0/1/true/false/on/off, got "maybe"'
check_bad "depth=0" 'option 2 "depth=0": out of range'
check_bad "depth=4096" 'out of range'
check_bad "queue_size=0" 'out of range'
check_bad "colour=blue" 'option 2 "colour=blue": unknown option "colour"'
check_bad "mode=signal,,seed=1" 'option 3 "": empty option name'
check_bad "stats=soon" 'not a duration'
check_bad "stats=99999999999999999999999" 'duration too long'
check_bad "duration=18446744073709551617s" 'duration too long'
"$JAVA" "-agentpath:$AGENT=out=$d,colour=blue" -version 2>&1 | grep -q "interval *sampling interval"
ok $? "the refusal lists the valid options"
"$JAVA" "-agentpath:$AGENT=out=$d,quiet=1,interval=1ms" -version > "$d/out" 2>&1
ok $? "good options start the VM"
# threads= takes patterns joined by '|': a thread matching any one is walked.
walked_with() {  # GLOB DIR -> threads_walked of a 3 s spin run
  mkdir -p "$2"
  "$JAVA" "-agentpath:$AGENT=out=$2,threads=$1,stats=0" -Dasgst.stress.native="$BUILD/lib/libstressnative.so" \
    -cp "$BUILD/stress/classes" asgstfuzz.stress.Main --scenario spin --threads 2 --duration 3s --quiet > "$2.log" 2>&1
  json_field "$2/summary.json" threads_walked
}
either=$(walked_with 'nobody-*|asgst-worker-*' "$d/g1") neither=$(walked_with 'nobody-*|none-*' "$d/g2")
[ "$either" = 2 ] && [ "$neither" = 0 ]
ok $? "threads='nobody-*|asgst-worker-*' walks the 2 workers ($either), threads='nobody-*|none-*' none ($neither)"
tap_done
