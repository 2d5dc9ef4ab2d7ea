/*
 * The gate every callback the VM makes into us passes (the agent's
 * SIGPROF handler, queue, processing and frame-mark handlers): once the VM
 * is dying its threads and code go away under a running callback, so the
 * gate closes at VMDeath and waits, briefly, for the callbacks inside.
 */
#ifndef ASGF_CALLBACK_GATE_H
#define ASGF_CALLBACK_GATE_H

/* [handler-safe] 1: go on (call gate_leave after); 0: closed, return at once. */
int gate_enter(void);
/* [handler-safe] */
void gate_leave(void);
/* Closes the gate and waits up to 500 ms for the callbacks still inside. */
void gate_close(void);

#endif
