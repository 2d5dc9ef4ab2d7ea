/* mutate=corpus:<dir>: replay saved cases (fuzzer finds, reproducers). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corpus_cases.h"
#include "arch.h"

#define MAX_CASES 4096

struct loaded {
    struct case_prog prog;
};

static struct loaded *cases;
static int n_cases;

int corpus_count(void) { return n_cases; }

/* Notes kept beside cases (how to replay, what bug) are not cases. */
static int is_note(const char *name)
{
    size_t n = strlen(name);
    return (n > 3 && !strcmp(name + n - 3, ".md")) || (n > 4 && !strcmp(name + n - 4, ".txt"));
}

/* Loads every regular file of dir that is a valid case, skipping notes
 * (*.md, *.txt); any other file that is not a case is an error naming it
 * and the offset (a corpus must be clean). */
int corpus_load(const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "corpus directory %s cannot be opened", dir);
        return -1;
    }
    cases = calloc(MAX_CASES, sizeof *cases);
    struct dirent *e;
    int rc = 0;
    while (cases && rc == 0 && n_cases < MAX_CASES && (e = readdir(d))) {
        if (e->d_name[0] == '.' || is_note(e->d_name)) continue;
        char path[768];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t buf[CASE_MAX_SIZE + 1];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        size_t off;
        const char *why;
        if (case_validate(buf, len, &off, &why)) {
            snprintf(err, errlen, "corpus file %s: offset %zu: %s", path, off, why);
            rc = -1;
            break;
        }
        case_decode(buf, len, arch_reg_count(), &cases[n_cases++].prog);
    }
    closedir(d);
    if (rc == 0 && n_cases == 0) {
        snprintf(err, errlen, "corpus directory %s holds no case files", dir);
        rc = -1;
    }
    return rc;
}

void corpus_pick(uint64_t r, struct case_prog *p) { *p = cases[r % (uint64_t)n_cases].prog; }
