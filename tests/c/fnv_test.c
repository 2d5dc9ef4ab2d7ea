/*
 * FNV-1a (src/fnv.h) against the published 64-bit test vectors (the FNV
 * authors' test suite: "", "a", "foobar"), byte by byte and in one call.
 */
#include <string.h>
#include "fnv.h"
#include "tap.h"

static void vector(const char *s, uint64_t want)
{
    uint64_t whole = fnv1a(FNV1A_BASIS, s, strlen(s)), bytes = FNV1A_BASIS;
    for (const char *p = s; *p; p++) bytes = fnv1a_byte(bytes, (uint8_t)*p);
    CHECK(whole == want && bytes == want, "FNV-1a 64 of \"%s\" is 0x%016llx (got 0x%016llx)", s,
       (unsigned long long)want, (unsigned long long)whole);
}

int main(void)
{
    CHECK(FNV1A_BASIS == 0xcbf29ce484222325ULL, "offset basis 14695981039346656037 (0xcbf29ce484222325)");
    vector("", 0xcbf29ce484222325ULL);
    vector("a", 0xaf63dc4c8601ec8cULL);
    vector("foobar", 0x85944171f73967e8ULL);
    return TAP_DONE();
}
