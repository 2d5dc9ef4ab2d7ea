/* The callback gate (see callback_gate.h). */
#include <stdatomic.h>
#include <time.h>
#include "callback_gate.h"

static _Atomic int closed, inside;

int gate_enter(void)
{
    atomic_fetch_add(&inside, 1);
    if (!atomic_load(&closed)) return 1;
    atomic_fetch_sub(&inside, 1);
    return 0;
}

void gate_leave(void) { atomic_fetch_sub(&inside, 1); }

void gate_close(void)
{
    atomic_store(&closed, 1);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 500 && atomic_load(&inside); i++) nanosleep(&ms, NULL);
}
