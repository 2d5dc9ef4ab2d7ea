/*
 * casetool: read and write case files by hand.
 *   casetool decode FILE...        strict check, then print each case as text
 *   casetool encode TEXT -o OUT    build a case file (version 2) from its text form
 *   casetool check FILE...         strict check only
 *   casetool codes                 the stable code tables this build reads and writes
 *   casetool fuzzdecode FILE...    what the fuzzers' total decoder makes of any
 *                                  bytes, no check (a "# dropped N" line says how
 *                                  many out-of-range fields and records it left out)
 * Errors name the file and the byte offset (binary) or line:column (text);
 * exit 1 on bad input, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch.h"
#include "case.h"

static int usage(void)
{
    fprintf(stderr, "usage: casetool decode FILE... | casetool check FILE... | casetool encode TEXT -o OUT | "
                    "casetool fuzzdecode FILE... | casetool codes\n");
    return 2;
}

/* Reads at most max bytes; sets *truncated if the file is longer. */
static long read_file(const char *path, char *buf, long max, int *too_long)
{
    /* O_NONBLOCK: a FIFO or device given by mistake is refused, not waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: not a regular file\n", path);
        close(fd);
        return -1;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        close(fd);
        return -1;
    }
    long n = (long)fread(buf, 1, (size_t)max, f);
    *too_long = n == max && fgetc(f) != EOF;
    fclose(f);
    return n;
}

static int check_one(const char *path, int print)
{
    uint8_t buf[CASE_MAX_SIZE + 1];
    int too_long;
    long n = read_file(path, (char *)buf, sizeof buf, &too_long);
    if (n < 0) return 1;
    size_t off;
    const char *err;
    if (too_long) n = sizeof buf; /* let the validator name the first byte past the limit */
    if (case_validate(buf, (size_t)n, &off, &err)) {
        fprintf(stderr, "%s: offset %zu: %s\n", path, off, err);
        return 1;
    }
    if (print) {
        struct case_prog p;
        case_decode(buf, (size_t)n, arch_reg_count(), &p);
        if (print > 1) printf("# %s\n", path);
        case_print(stdout, &p);
    }
    return 0;
}

static int fuzzdecode_one(const char *path, int name_it)
{
    static uint8_t buf[65536];
    int too_long;
    long n = read_file(path, (char *)buf, sizeof buf, &too_long);
    if (n < 0) return 1;
    struct case_prog p;
    case_decode(buf, (size_t)n, arch_reg_count(), &p);
    if (name_it) printf("# %s\n", path);
    if (p.dropped) printf("# dropped %d out-of-range fields or records\n", p.dropped);
    case_print(stdout, &p);
    return 0;
}

/* One line per code: table, code (bit value for options and flags), name. */
static int codes(void)
{
    for (int i = 0; i < ENTRY__COUNT; i++)
        printf("entry %d %s%s\n", i, case_entry_name(i), case_entry_walks(i) ? " walks" : "");
    for (int i = 0; i < MODE__COUNT; i++) printf("mode %d %s\n", i, case_mode_name(i));
    for (int i = 0; case_option_name(i); i++) printf("option %d %s\n", 1 << i, case_option_name(i));
    for (int i = 0; case_flag_name(i); i++) printf("flag %d %s\n", 1 << i, case_flag_name(i));
    for (int i = 0; i < CASE_REC__COUNT; i++) printf("record %d %s\n", i, case_record_name(i));
    for (int i = 0; i < MUT__COUNT; i++) printf("kind %d %s\n", i, case_kind_name(i));
    for (int i = 0; i < REGION__COUNT; i++) printf("region %d %s\n", i, case_region_name(i));
    for (int i = 0; i < arch_reg_count(); i++) printf("register %d %s\n", i, arch_reg_name(i));
    for (int i = 0; i < QOP__COUNT; i++)
        printf("qop %d %s %s\n", i, case_qop_name(i), case_qop_at_handshake(i) ? "handshake" : "signal");
    for (int i = 0; i < CASE_STK_ANCHORS; i++) printf("anchor %d %s\n", i, case_anchor_name(i));
    return 0;
}

static int encode(const char *in, const char *out)
{
    static char text[65536];
    int too_long;
    long n = read_file(in, text, sizeof text - 1, &too_long);
    if (n < 0) return 1;
    if (too_long) {
        fprintf(stderr, "%s: offset %zu: text case larger than %zu bytes\n", in, sizeof text - 1, sizeof text - 1);
        return 1;
    }
    text[n] = 0;
    if ((long)strlen(text) != n) {
        fprintf(stderr, "%s: offset %zu: NUL byte in a text case\n", in, strlen(text));
        return 1;
    }
    struct case_prog p;
    char err[256];
    if (case_parse_text(text, &p, err, sizeof err)) {
        fprintf(stderr, "%s:%s\n", in, err);
        return 1;
    }
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len = case_encode(&p, bytes);
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "%s: %s\n", out, strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "codes")) return codes();
    if (argc < 3) return usage();
    if (!strcmp(argv[1], "encode")) {
        if (argc != 5 || strcmp(argv[3], "-o")) return usage();
        return encode(argv[2], argv[4]);
    }
    if (!strcmp(argv[1], "fuzzdecode")) {
        int rc = 0;
        for (int i = 2; i < argc; i++) rc |= fuzzdecode_one(argv[i], argc > 3);
        return rc;
    }
    int print = !strcmp(argv[1], "decode") ? (argc > 3 ? 2 : 1) : 0;
    if (!print && strcmp(argv[1], "check")) {
        fprintf(stderr, "casetool: unknown command '%s'\n", argv[1]);
        return usage();
    }
    int rc = 0;
    for (int i = 2; i < argc; i++) rc |= check_one(argv[i], print);
    return rc;
}
