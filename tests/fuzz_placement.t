#!/usr/bin/env bash
# Where the harness runs its threads (fuzz/placement.h), on a live JVM:
# - ASGF_PLACEMENT=together confines every thread of the process to one CPU
#   while cases run, and the cases still run;
# - spread leaves them on every CPU the process was given;
# - auto says which placement it ended in and how many trials it made;
# - a process given one CPU (a campaign job) does not place at all;
# - a bad value is refused by name.
# Which placement auto picks depends on the machine's load, so no check here
# asserts it; fuzz/bench measures it.
cd "$(dirname "$0")/.." && . tests/lib.sh
make_scratch
export ASGF_WARMUP_MS=100

ncpu=$(nproc)
# cpus_of PID: the distinct Cpus_allowed_list values of its threads, one per line.
cpus_of() { cat /proc/"$1"/task/*/status 2>/dev/null | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' | sort -u; }
# run_and_look NAME ENV...: a 6 s libFuzzer run; the threads' CPUs 4 s in go to $d/NAME.cpus.
run_and_look() {
    local name=$1; shift
    env "$@" fuzz/run-libfuzzer --duration 6s --keep-going --out "$d/$name" > "$d/$name.log" 2>&1 &
    local pid=$! lf
    for _ in $(seq 100); do grep -q 'asgf: JVM up' "$d/$name.log" 2>/dev/null && break; sleep 0.2; done
    sleep 2
    # The wrapper stays as the parent while the corpus is staged: look at the
    # newest process of this run's command line, the harness itself.
    lf=$(pgrep -n -f -- "-artifact_prefix=$d/$name/crashes/")
    cpus_of "${lf:-$pid}" > "$d/$name.cpus"
    wait $pid
}
ran() { grep -q '^Done [1-9][0-9]* runs' "$d/$1.log" && ! ls "$d/$1"/records/hs_err* > /dev/null 2>&1; }

if [ "$ncpu" -lt 2 ]; then
    skip "placement" "one CPU: the harness never places"
else
    all=$(cpus_of $$)
    run_and_look together ASGF_PLACEMENT=together
    [ "$(wc -l < "$d/together.cpus")" = 1 ] && grep -qx '[0-9][0-9]*' "$d/together.cpus"
    ok $? "together: every thread of the JVM on one CPU while cases run ($(tr '\n' ' ' < "$d/together.cpus"))"
    ran together && grep -q '^asgf: placement: together, together now; 0 trials' "$d/together.log"
    ok $? "together: the cases ran, no VM crash, and the exit line says where they ran"

    run_and_look spread ASGF_PLACEMENT=spread
    [ "$(cat "$d/spread.cpus")" = "$all" ]
    ok $? "spread: the threads keep every CPU the process had ($(tr '\n' ' ' < "$d/spread.cpus") against $all)"
    ran spread && grep -q '^asgf: placement: spread, spread now; 0 trials, 0 moves; cases spread 100 %' "$d/spread.log"
    ok $? "spread: the cases ran, no VM crash, none of them anywhere else, and no trials"

    run_and_look auto
    ran auto && grep -Eq '^asgf: placement: auto, (spread|together) now; [0-9]+ trials, [0-9]+ moves; cases spread [0-9]+ %, together [0-9]+ %' "$d/auto.log"
    ok $? "auto (the default): the exit line says where it ended and how it got there ($(grep '^asgf: placement' "$d/auto.log"))"

    taskset -c 0 fuzz/run-libfuzzer --runs 500 --keep-going --out "$d/one" > "$d/one.log" 2>&1
    grep -q '^asgf: placement: off (fewer than 2 CPUs allowed' "$d/one.log"
    ok $? "a process given one CPU does not place its threads"
fi

ASGF_PLACEMENT=sideways fuzz/run-libfuzzer --runs 10 --out "$d/bad" > "$d/bad.log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'ASGF_PLACEMENT: expected auto, spread or together, got "sideways"' "$d/bad.log"
ok $? "a bad ASGF_PLACEMENT is refused by name (exit $rc)"
tap_done
