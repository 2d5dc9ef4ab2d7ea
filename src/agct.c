/* AsyncGetCallTrace resolution and result-code names. */
#include <dlfcn.h>
#include "agct.h"

agct_fn agct_resolve(void) { return (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"); }

const char *agct_code_name(int code)
{
    static const char *const names[] = {
        "no_java_frame",          /*  0 */
        "no_class_load",          /* -1 */
        "gc_active",              /* -2 */
        "unknown_not_java",       /* -3 */
        "not_walkable_not_java",  /* -4 */
        "unknown_java",           /* -5 */
        "not_walkable_java",      /* -6 */
        "unknown_state",          /* -7 */
        "thread_exit",            /* -8 */
        "deopt",                  /* -9 */
        "safepoint",              /* -10 */
    };
    if (code > 0) return "frames";
    if (code < AGCT_CODE_MIN) return "unknown_code";
    return names[-code];
}
