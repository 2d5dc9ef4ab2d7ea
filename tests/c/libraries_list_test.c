/*
 * record_note_libraries writes DIR/libraries: each shared object mapped now,
 * with the build-id it was loaded with after a tab. A process with more
 * mappings than the regions snapshot holds must get no list at all, not one
 * cut short (triage would take a library left out for one not loaded).
 *
 *   libraries_list_test DIR
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "record.h"
#include "tap.h"

/* Whether DIR/libraries has a line for libc with a build-id. */
static int libc_line_has_id(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    regex_t re;
    regcomp(&re, "^/.*/libc\\.so\\.6\t[0-9a-f]{40}$", REG_EXTENDED | REG_NOSUB);
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        found = !regexec(&re, line, 0, NULL, 0);
    }
    regfree(&re);
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/libraries", argv[1]);
    CHECK(record_note_libraries(argv[1]) == 0 && access(path, R_OK) == 0, "the list is written");
    CHECK(libc_line_has_id(path), "libc's line gives its path, a tab and its 40-digit build-id");
    /* Thousands of mappings (protections alternate, so none merge): more than
     * the snapshot's 4096. */
    long page = sysconf(_SC_PAGESIZE);
    int n = 0;
    for (; n < 5000; n++) {
        char *p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) break;
        mprotect(p + page, (size_t)page, PROT_NONE);
    }
    CHECK(n == 5000, "5000 two-part mappings made (%d)", n);
    CHECK(record_note_libraries(argv[1]) == 0 && access(path, F_OK) && errno == ENOENT,
          "with more mappings than the snapshot holds, no list (the earlier one is removed)");
    return TAP_DONE();
}
