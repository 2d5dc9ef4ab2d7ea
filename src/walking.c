/* Which thread is walking for us now (see walking.h). */
#include "walking.h"

/* initial-exec: read from signal handlers, which must not allocate TLS */
static __thread int depth __attribute__((tls_model("initial-exec")));

void walking_begin(void) { depth++; }
void walking_end(void) { depth--; }
int walking_now(void) { return depth > 0; }
