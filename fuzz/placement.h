/*
 * Where the fuzzer thread and the JVM's threads run, chosen by measuring.
 *
 * Every case is a round trip between the fuzzer thread and a worker held in
 * its signal handler. With a core each and nothing else busy, the two hand
 * cases back and forth across cores (spread). When other work keeps the
 * cores busy, a side that sleeps is woken onto a core where that work runs
 * and waits for its slice to end, so the rate collapses; confined to one
 * core, the two take turns, and the side that sleeps hands the core
 * straight to the other (together). On the project's 2-core machine
 * (docs/figures.md): alone, spread is about twice together; beside a
 * nice-19 stress JVM, together is about eight times spread.
 *
 * So the harness measures the rate in the placement it has, tries the other
 * one for a short window now and then, and moves when the other is clearly
 * faster. A trial that loses doubles the time to the next one, so a steady
 * machine pays well under 1 % for them. Off with fewer than two CPUs
 * allowed (a campaign job pinned to one) and with ASGF_PIN.
 *
 * Not handler-safe; the fuzzer thread only.
 */
#ifndef ASGF_FUZZ_PLACEMENT_H
#define ASGF_FUZZ_PLACEMENT_H

#include <stddef.h>

enum placement_mode { PLACEMENT_AUTO, PLACEMENT_SPREAD, PLACEMENT_TOGETHER, PLACEMENT_OFF };

/* "auto" | "spread" | "together" -> mode; -1 for anything else. */
int placement_parse(const char *s);

/* Starts in `m` (AUTO starts spread). spread_spin_ns: the hand-off's spin
 * while spread; together it spins 0 (a spinner would hold the one core its
 * peer needs), signals by timer, together_gap_ns ahead, and holds a batch
 * up to together_hold_ns (target_set_shared_cpu). Falls back to OFF when
 * fewer than two CPUs are allowed. */
void placement_start(enum placement_mode m, long long spread_spin_ns, long long together_gap_ns,
                     long long together_hold_ns);

/* After every case the fuzzer thread ran. */
void placement_tick(void);

/* The mode placement_start settled on: "auto", "together", "off (...)". */
const char *placement_name(void);

/* "auto, spread now; 4 trials, 0 moves; cases spread 100 %, together 0 %". */
void placement_describe(char *buf, size_t len);

#endif
