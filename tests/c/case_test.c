/* Case format: round trips, total decoding, strict validation, text errors. */
#include <stdlib.h>
#include <string.h>
#include "arch.h"
#include "case.h"
#include "tap.h"

static const char *sample =
    "# every kind, region and entry at least once\n"
    "asgf-case 1\n"
    "entry run_with_iterator_from_frame\n"
    "mode thread\n"
    "options include_non_java_frames,end_on_first_java_frame\n"
    "worker 3\n"
    "depth 2048\n"
    "flags rewind,method_info\n"
    "mut sp delta -0x40\n"
    "mut fp abs 0x0\n"
    "mut pc region code_cache 0x1234\n"
    "mut sp region own_stack 0x10\n"
    "mut fp region other_stack 0x2000\n"
    "mut pc region libjvm_text 0x8b1234\n"
    "mut fp region java_heap 0x100\n"
    "mut sp region guard_page 0x0\n"
    "mut fp region null_page 0x10\n"
    "mut pc region unmapped 0x0\n"
    "mut sp region misaligned 0x3\n"
    "mut fp region noncanonical 0xdeadbeef\n";

static int same(const struct case_prog *a, const struct case_prog *b)
{
    if (a->entry != b->entry || a->mode != b->mode || a->options != b->options || a->worker != b->worker ||
        a->depth != b->depth || a->flags != b->flags || a->nmut != b->nmut)
        return 0;
    for (int i = 0; i < a->nmut; i++)
        if (a->mut[i].reg != b->mut[i].reg || a->mut[i].kind != b->mut[i].kind || a->mut[i].value != b->mut[i].value ||
            (a->mut[i].kind == MUT_REGION && a->mut[i].region != b->mut[i].region))
            return 0;
    return 1;
}

static void text_round_trip(void)
{
    struct case_prog p, q, r;
    char err[256];
    int rc = case_parse_text(sample, &p, err, sizeof err);
    CHECK(rc == 0, "sample text parses (%s)", rc ? err : "ok");
    CHECK(p.nmut == 12 && p.mut[0].value == -0x40 && p.mut[2].region == REGION_CODE_CACHE, "sample fields parsed");
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len = case_encode(&p, bytes);
    size_t off;
    const char *why;
    CHECK(case_validate(bytes, len, &off, &why) == 0, "encoded sample validates");
    case_decode(bytes, len, arch_reg_count(), &q);
    CHECK(same(&p, &q), "text -> bytes -> program is the identity");
    char *printed;
    size_t plen;
    FILE *f = open_memstream(&printed, &plen);
    case_print(f, &q);
    fclose(f);
    rc = case_parse_text(printed, &r, err, sizeof err);
    CHECK(rc == 0 && same(&q, &r), "bytes -> text -> program is the identity");
    free(printed);
}

static void random_programs_round_trip(void)
{
    srand(7);
    int bad = 0;
    for (int n = 0; n < 20000; n++) {
        struct case_prog p = {0}, q;
        p.entry = (uint8_t)(rand() % ENTRY__COUNT), p.mode = (uint8_t)(rand() % MODE__COUNT);
        p.options = (uint8_t)(rand() & 3), p.worker = (uint8_t)rand(), p.depth = (uint16_t)rand();
        p.flags = (uint8_t)(rand() & CASE_FLAG__MASK), p.nmut = rand() % (CASE_MAX_MUTATIONS + 1);
        for (int i = 0; i < p.nmut; i++) {
            p.mut[i].reg = (uint8_t)(rand() % arch_reg_count());
            p.mut[i].kind = (uint8_t)(rand() % MUT__COUNT);
            p.mut[i].region = (uint8_t)(rand() % REGION__COUNT);
            p.mut[i].value = (int64_t)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand());
        }
        uint8_t bytes[CASE_MAX_SIZE];
        size_t len = case_encode(&p, bytes), off;
        const char *why;
        case_decode(bytes, len, arch_reg_count(), &q);
        if (case_validate(bytes, len, &off, &why) || !same(&p, &q)) bad++;
    }
    CHECK(bad == 0, "20000 random programs survive encode/validate/decode (%d differ)", bad);
}

static void every_byte_string_decodes(void)
{
    srand(11);
    int bad = 0;
    uint8_t buf[400];
    for (int n = 0; n < 200000; n++) {
        size_t len = (size_t)(rand() % (int)sizeof buf);
        for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rand();
        if (n % 3 == 0 && len >= 5) memcpy(buf, "ASGF\1", 5); /* half with a real header */
        struct case_prog p;
        case_decode(buf, len, arch_reg_count(), &p);
        int ok = p.entry < ENTRY__COUNT && p.mode < MODE__COUNT && p.options <= 3 && p.nmut >= 0 &&
                 p.nmut <= CASE_MAX_MUTATIONS && (p.flags & ~CASE_FLAG__MASK) == 0;
        for (int i = 0; ok && i < p.nmut; i++)
            ok = p.mut[i].reg < arch_reg_count() && p.mut[i].kind < MUT__COUNT && p.mut[i].region < REGION__COUNT;
        bad += !ok;
    }
    CHECK(bad == 0, "200000 random byte strings each decode to a valid program (%d did not)", bad);
}

static void expect_invalid(const uint8_t *buf, size_t len, size_t want_off, const char *what)
{
    size_t off = 12345;
    const char *why = "";
    int rc = case_validate(buf, len, &off, &why);
    CHECK(rc == -1 && off == want_off, "%s rejected at offset %zu (got %zu: %s)", what, want_off, off, why);
}

static void strict_validation(void)
{
    uint8_t ok[CASE_MAX_SIZE + 12] = "ASGF\1\0\0\0";
    expect_invalid(ok, 0, 0, "empty file");
    expect_invalid(ok, 5, 5, "truncated header");
    uint8_t magic[16] = "ASGX\1";
    expect_invalid(magic, 16, 3, "bad magic");
    uint8_t ver[16] = "ASGF\2";
    expect_invalid(ver, 16, 4, "wrong version");
    expect_invalid(ok, 12, 12, "truncated global section");
    expect_invalid(ok, 16 + 12 + 5, 28, "truncated second record");
    expect_invalid(ok, CASE_MAX_SIZE + 12, CASE_MAX_SIZE, "17 records");
    size_t off;
    const char *why;
    CHECK(case_validate(ok, 16, &off, &why) == 0, "header + global section alone is a valid case");
}

static void text_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "1:1: empty case text"},
        {"asgf-case 2\n", "1:11: unsupported version"},
        {"entry run_with_iterator\n", "1:1: expected 'asgf-case 1' first"},
        {"asgf-case 1\nentry walk\n", "2:7: unknown entry 'walk'"},
        {"asgf-case 1\nmut xyz abs 1\n", "2:5: unknown register 'xyz'"},
        {"asgf-case 1\nmut sp region moon 1\n", "2:15: unknown region 'moon'"},
        {"asgf-case 1\nmut sp abs -1\n", "2:12: negative number not allowed"},
        {"asgf-case 1\nmut sp delta 12z\n", "2:14: bad number '12z'"},
        {"asgf-case 1\nworker 256\n", "2:8: worker 256 out of range"},
        {"asgf-case 1\nmode signal extra\n", "2:13: unexpected 'extra'"},
        {"asgf-case 1\ncolour blue\n", "2:1: unknown key 'colour'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct case_prog p;
        char err[256] = "";
        int rc = case_parse_text(cases[i].text, &p, err, sizeof err);
        CHECK(rc == -1 && strstr(err, cases[i].want), "text error '%s' (got '%s')", cases[i].want, err);
    }
}

int main(void)
{
    text_round_trip();
    random_programs_round_trip();
    every_byte_string_decodes();
    strict_validation();
    text_errors();
    return TAP_DONE();
}
