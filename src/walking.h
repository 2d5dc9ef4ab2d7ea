/*
 * Which thread is walking for us now. Walker coverage counts a block only
 * when the thread that reached it is one of our walks, not the VM's own
 * work (a GC scanning frames, a deoptimization): guard_run marks its call
 * whether protection is on or off, and the walks made outside it (the
 * oracle's, the queue's JVMTI one) mark themselves.
 */
#ifndef ASGF_WALKING_H
#define ASGF_WALKING_H

/* [handler-safe] The calling thread starts and ends a walk of ours (they
 * nest). */
void walking_begin(void);
void walking_end(void);
/* [handler-safe] 1 while the calling thread is inside one. */
int walking_now(void);

#endif
