/* Byte globs (see glob.h). */
#include <stddef.h>
#include "glob.h"

int glob_match(const char *pattern, const char *s)
{
    const char *p = pattern, *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            resume = s;
        } else if (*p && (*p == '?' || *p == *s)) {
            p++, s++;
        } else if (star) {
            p = star;
            s = ++resume;
        } else {
            return 0;
        }
    }
    while (*p == '*') p++;
    return !*p;
}
