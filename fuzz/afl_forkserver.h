/*
 * Our side of AFL++'s fork-server protocol, without SIGSTOP.
 *
 * AFL++'s own persistent loop (__AFL_LOOP) ends every input with
 * raise(SIGSTOP) and is resumed with SIGCONT: for a JVM that stops and
 * restarts all of its ~15 threads per input, several times slower than
 * this server (docs/figures.md).
 *
 * The process afl-fuzz starts stays single-threaded and is the server: it
 * answers afl-fuzz's hello, and on an input with no live child forks a
 * child that creates the JVM. From then on the child itself speaks on the
 * fork-server descriptors, one exchange per input, while the server waits
 * for it to die: a relay through the server cost two more cross-process
 * wake-ups per input. The child reads the test case from AFL++'s shared
 * memory, which both inherit. A page shared by the two says where the child
 * is in an exchange; when it dies (our abort on a caught fault, HotSpot's
 * abort, afl-fuzz's SIGKILL on a timeout), the server sends what afl-fuzz
 * is still owed, the death status included, so AFL++ files crashes and
 * hangs as usual; the next input forks a new child.
 *
 * Protocol: AFL++ 4.x fork-server messages, 4 bytes each on fds 198 (from
 * afl-fuzz) and 199 (to afl-fuzz): hello with options (shared-memory test
 * cases, map size), then per input: afl-fuzz sends "previous run timed
 * out", we send the child's pid, then its status (a "stopped" status while
 * the child lives on, as AFL++'s runtime sends in persistent mode).
 */
#ifndef ASGF_AFL_FORKSERVER_H
#define ASGF_AFL_FORKSERVER_H

#include <stddef.h>
#include <stdint.h>

/* In the process afl-fuzz started: 0 when not run by afl-fuzz (fd 199 is
 * not open: the caller reads one input from stdin); otherwise serves
 * afl-fuzz and returns 1 only in a new child, which then starts its JVM
 * and calls aflfs_child_loop (or exits non-zero if it cannot start). In
 * the server it never returns: it exits when afl-fuzz goes away, or with
 * status 3 and a message when a child dies before it is ready. */
int aflfs_serve(void);

/* Child: tells the server it is ready, runs the input the server took,
 * then takes afl-fuzz's requests itself and runs each through run (the
 * bytes are AFL++'s shared memory, valid during the call) until `quota`
 * have run or afl-fuzz has gone; then returns and the caller exits.
 * The loop itself is not instrumented, so only run's edges land in each
 * input's coverage map. */
void aflfs_child_loop(long quota, void (*run)(const uint8_t *buf, size_t len, void *arg), void *arg);

#endif
