/* mutate=corpus:<dir>: replay saved cases (fuzzer finds, reproducers). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "corpus_cases.h"
#include "arch.h"

#define MAX_CASES 4096

struct loaded {
    struct case_prog prog;
};

static struct loaded *cases;
static int n_cases;

int corpus_count(void) { return n_cases; }

static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && !strcmp(name + n - k, suffix);
}

/* Loads every regular file of dir that is a case (binary, or text as
 * corpus/FORMAT.md writes it), skipping notes (*.md, *.txt that are no
 * text case); any other file that is not a case is an error naming it and
 * the offset or line (a corpus must be clean), and so is a corpus larger
 * than the agent holds: a silent cut would drop cases unseen. */
int corpus_load(const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "corpus directory %s cannot be opened", dir);
        return -1;
    }
    cases = calloc(MAX_CASES, sizeof *cases);
    char *text = malloc(CASE_TEXT_MAX + 1);
    if (!cases || !text) {
        snprintf(err, errlen, "corpus directory %s: out of memory", dir);
        free(text), closedir(d);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        /* Notes kept beside cases (how to replay, what bug) are not cases; a
         * .txt file is one only when it is a text case. */
        if (e->d_name[0] == '.' || ends_with(e->d_name, ".md")) continue;
        char path[768];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) || S_ISDIR(st.st_mode)) continue;
        if (!S_ISREG(st.st_mode)) { /* a FIFO would block the VM's start */
            snprintf(err, errlen, "corpus file %s: not a regular file", path);
            rc = -1;
            break;
        }
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t len = fread(text, 1, CASE_TEXT_MAX + 1, f); /* one byte past the limit names a file over it */
        fclose(f);
        size_t n = len < CASE_TEXT_MAX ? len : CASE_TEXT_MAX;
        text[n] = 0;
        int is_text = case_is_text(text, n);
        if (ends_with(e->d_name, ".txt") && !is_text) continue;
        if (n_cases == MAX_CASES) {
            snprintf(err, errlen, "corpus directory %s holds more than %d cases, the most the agent replays: "
                                  "split it, or pick the cases to replay (ci/corpus-merge)", dir, MAX_CASES);
            rc = -1;
            break;
        }
        struct case_prog *p = &cases[n_cases].prog;
        size_t off;
        const char *why;
        char terr[256];
        if (is_text) {
            if (len > CASE_TEXT_MAX || case_parse_text(text, p, terr, sizeof terr)) {
                snprintf(err, errlen, "corpus file %s: %s", path, len > CASE_TEXT_MAX ? "text case over 64 KiB" : terr);
                rc = -1;
                break;
            }
        } else if (case_validate((const uint8_t *)text, len, &off, &why)) {
            snprintf(err, errlen, "corpus file %s: offset %zu: %s", path, off, why);
            rc = -1;
            break;
        } else {
            case_decode((const uint8_t *)text, len, arch_reg_count(), p);
        }
        n_cases++;
    }
    closedir(d);
    free(text);
    if (rc == 0 && n_cases == 0) {
        snprintf(err, errlen, "corpus directory %s holds no case files", dir);
        rc = -1;
    }
    return rc;
}

void corpus_pick(uint64_t r, struct case_prog *p) { *p = cases[r % (uint64_t)n_cases].prog; }
