/* Case format: round trips, total decoding, strict validation, the version 1
 * compatibility path, version 2 range checks, text errors. */
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
    uint8_t buf[CASE_MAX_SIZE + 100];
    for (int n = 0; n < 200000; n++) {
        size_t len = (size_t)(rand() % (n % 2 ? 400 : (int)sizeof buf));
        for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rand();
        if (n % 3 == 0 && len >= 5) memcpy(buf, "ASGF\1", 5); /* a third with a version 1 header */
        if (n % 3 == 1 && len >= 5) memcpy(buf, "ASGF\2", 5); /* a third with a version 2 header */
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
    uint8_t ok[CASE_V1_MAX_SIZE + 12] = "ASGF\1\0\0\0";
    expect_invalid(ok, 0, 0, "empty file");
    expect_invalid(ok, 5, 5, "truncated header");
    uint8_t magic[16] = "ASGX\1";
    expect_invalid(magic, 16, 3, "bad magic");
    uint8_t ver[16] = "ASGF\3";
    expect_invalid(ver, 16, 4, "wrong version");
    expect_invalid(ok, 12, 12, "truncated global section");
    expect_invalid(ok, 16 + 12 + 5, 28, "v1: truncated second record");
    expect_invalid(ok, CASE_V1_MAX_SIZE + 12, CASE_V1_MAX_SIZE, "v1: 17 records");
    size_t off;
    const char *why;
    CHECK(case_validate(ok, 16, &off, &why) == 0, "header + global section alone is a valid case");
    ok[8] = 200, ok[16] = 200, ok[17] = 9, ok[19] = 7;
    CHECK(case_validate(ok, 28, &off, &why) == 0, "v1: codes are not checked (entry 200, register 200, kind 9)");
}

/* Version 1 files keep their meaning: every code modulo the table size of
 * version 1, whatever the tables hold now. */
static void version1_compatibility(void)
{
    static const uint8_t v1[] = {'A', 'S', 'G', 'F', 1, 0, 0, 0,
                                 201, 7, 0xff, 9, 0x2c, 0x01, 0xff, 0,          /* entry, mode, options, worker, depth, flags */
                                 20, 5, 13, 0, 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  /* reg 20, kind 5, region 13 */
                                 1, 2, 3, 9, 0x00, 0x04, 0, 0, 0, 0, 0, 0};                    /* reserved byte 9 */
    size_t off;
    const char *why;
    struct case_prog p;
    CHECK(case_validate(v1, sizeof v1, &off, &why) == 0, "a version 1 file with out-of-range codes is valid");
    case_decode(v1, sizeof v1, 17, &p);
    CHECK(p.entry == 201 % 4 && p.mode == 7 % 3 && p.options == 3 && p.worker == 9 && p.depth == 300 && p.flags == 3,
          "v1 global section: entry 201 -> %d, mode 7 -> %d, options 0xff -> %d, flags 0xff -> %d", p.entry, p.mode,
          p.options, p.flags);
    CHECK(p.nmut == 2 && p.mut[0].reg == 20 % 17 && p.mut[0].kind == 5 % 3 && p.mut[0].region == 13 % 11 &&
              p.mut[0].value == -16 && p.mut[1].reg == 1 && p.mut[1].kind == 2 && p.mut[1].region == 3 &&
              p.mut[1].value == 0x400 && p.dropped == 0,
          "v1 records: register, kind and region modulo 17, 3, 11; reserved byte ignored; nothing dropped");
    uint8_t headerless[CASE_GLOBAL_SIZE + 17 * CASE_RECORD_SIZE];
    memset(headerless, 0, sizeof headerless);
    headerless[0] = 6;
    case_decode(headerless, sizeof headerless, 17, &p);
    CHECK(p.entry == 2 && p.nmut == 16, "bytes without the magic decode as a version 1 body (entry 6 -> 2, 16 records)");
    uint8_t bytes[CASE_MAX_SIZE];
    size_t len = case_encode(&p, bytes);
    CHECK(bytes[4] == CASE_VERSION && case_validate(bytes, len, &off, &why) == 0,
          "a decoded v1 program encodes to a valid version %d case", CASE_VERSION);
}

/* Version 2: a code outside its table is an error naming its byte (strict)
 * or a dropped, counted field or record (total); never wrapped. */
static void version2_codes(void)
{
    uint8_t base[16 + 3 * 12] = {'A', 'S', 'G', 'F', 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 1, 1, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0,    /* mut sp delta 8 */
                                 0, 2, 9, 0, 1, 0, 0, 0, 0, 0, 0, 0,    /* mut pc region noncanonical 1 */
                                 2, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0};   /* mut fp abs 7 */
    size_t off;
    const char *why;
    CHECK(case_validate(base, sizeof base, &off, &why) == 0, "v2 base case is valid");
    static const struct {
        size_t at;
        uint8_t value;
        const char *what;
    } bad[] = {
        {5, 1, "reserved header byte"}, {8, ENTRY__COUNT, "entry"}, {9, MODE__COUNT, "mode"},
        {10, 4, "option bit"}, {14, 4, "flag bit"}, {15, 1, "reserved global byte"},
        {28, 200, "register"}, {29, MUT__COUNT, "mutation kind"}, {30, REGION__COUNT, "region"},
        {18, 1, "region byte of a delta record"}, {31, CASE_REC__COUNT, "record type"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t b[sizeof base];
        memcpy(b, base, sizeof b);
        b[bad[i].at] = bad[i].value;
        off = 0;
        int rc = case_validate(b, sizeof b, &off, &why);
        CHECK(rc == -1 && off == bad[i].at, "v2 strict: out-of-range %s rejected at offset %zu (got %zu: %s)",
              bad[i].what, bad[i].at, off, rc ? why : "accepted");
        struct case_prog p;
        case_decode(b, sizeof b, arch_reg_count(), &p);
        int record = bad[i].at >= 16, reserved = bad[i].at == 5 || bad[i].at == 15; /* no meaning: ignored */
        CHECK(p.dropped == !reserved && p.nmut == (record ? 2 : 3) &&
                  p.entry < ENTRY__COUNT && p.mode < MODE__COUNT && !(p.options & ~CASE_OPTION__MASK) &&
                  !(p.flags & ~CASE_FLAG__MASK),
              "v2 total: the %s is neutralized, counted unless reserved, the other records kept (dropped %d, %d records)",
              bad[i].what, p.dropped, p.nmut);
    }
    uint8_t big[CASE_MAX_SIZE + 1];
    memcpy(big, base, 16);
    expect_invalid(big, 16 + 12 + 5, 28, "v2: truncated record head");
    for (size_t i = 16; i + 12 <= sizeof big; i += 12) memcpy(big + i, base + 16, 12);
    expect_invalid(big, 16 + 33 * 12, 16 + 32 * 12, "v2: 33 mut records (at most 32)");
    expect_invalid(big, sizeof big, CASE_MAX_SIZE, "v2: larger than 1024 bytes");
    struct case_prog p;
    case_decode(big, 16 + 33 * 12, arch_reg_count(), &p);
    CHECK(p.nmut == CASE_MAX_MUTATIONS && p.dropped == 1, "v2 total: the 33rd mut record is dropped and counted");
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

/* Record type qop: text and binary round trip, strict and total readers. */
static void qop_records(void)
{
    struct case_prog p, q;
    char err[200];
    int rc = case_parse_text("asgf-case 1\nentry enqueue\nmode queue\nmut sp delta -0x8\n"
                             "qop resize -1\nqop mark_move -2\nqop enqueue_foreign 3\n", &p, err, sizeof err);
    CHECK(rc == 0 && p.nqop == 3 && p.qop[0].op == QOP_RESIZE && p.qop[0].value == -1 && p.qop[1].op == QOP_MARK_MOVE &&
              p.nmut == 1,
          "qop lines parse (%s)", rc ? err : "ok");
    uint8_t b[CASE_MAX_SIZE];
    size_t len = case_encode(&p, b), off = 0;
    const char *why = "";
    case_decode(b, len, arch_reg_count(), &q);
    CHECK(case_validate(b, len, &off, &why) == 0 && q.nqop == 3 && q.qop[2].op == QOP_ENQUEUE_FOREIGN &&
              q.qop[2].value == 3 && q.qop[1].value == -2,
          "qop records round-trip through the binary form");
    CHECK(case_qop_at_handshake(QOP_MARK_MOVE) && !case_qop_at_handshake(QOP_RESIZE), "where each op runs");
    size_t at = len - 2 * CASE_RECORD_SIZE; /* the second qop record */
    b[at] = QOP__COUNT;
    expect_invalid(b, len, at, "a qop record with an unknown operation");
    case_decode(b, len, arch_reg_count(), &q);
    CHECK(q.nqop == 2 && q.dropped == 1, "the total decoder drops it and counts it (nqop %d, dropped %d)", q.nqop,
          q.dropped);
    rc = case_parse_text("asgf-case 1\nqop fly 0\n", &p, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "unknown queue operation 'fly'"), "an unknown op in text is named: %s", err);
}

/* Record type stk: payload words, anchors, offsets; strict and total readers. */
static void stk_records(void)
{
    struct case_prog p, q;
    char err[200];
    int rc = case_parse_text("asgf-case 1\nstk ret1 +0 region code_blob 0x10040\n"
                             "stk fp -56 delta 0x8 -0x10 0x18\nmut fp region image 0\n", &p, err, sizeof err);
    CHECK(rc == 0 && p.nstk == 2 && p.stk[0].anchor == STK_RET1 && p.stk[0].region == REGION_CODE_BLOB &&
              p.stk[0].nwords == 1 && p.stk[1].offset == -56 && p.stk[1].nwords == 3 && p.stk[1].words[1] == -0x10,
          "stk lines parse (%s)", rc ? err : "ok");
    uint8_t b[CASE_MAX_SIZE];
    size_t len = case_encode(&p, b), off = 0;
    const char *why = "";
    case_decode(b, len, arch_reg_count(), &q);
    CHECK(case_validate(b, len, &off, &why) == 0 && q.nstk == 2 && q.stk[1].words[2] == 0x18 &&
              q.stk[1].anchor == STK_FP && q.stk[1].offset == -56 && q.nmut == 1,
          "stk records round-trip through the binary form (%s)", why);
    CHECK(len == CASE_HEADER_SIZE + CASE_GLOBAL_SIZE + 3 * CASE_RECORD_SIZE + 4 * CASE_WORD_SIZE,
          "the payload words follow their head (%zu bytes)", len);
    /* the second stk record: after the mut record and the first stk record with its word */
    size_t at = CASE_HEADER_SIZE + CASE_GLOBAL_SIZE + 2 * CASE_RECORD_SIZE + CASE_WORD_SIZE;
    b[at + 4] = 0x0c; /* offset -56 -> not a multiple of 8 */
    expect_invalid(b, len, at + 4, "a stk offset that is not a multiple of 8");
    case_decode(b, len, arch_reg_count(), &q);
    CHECK(q.nstk == 1 && q.dropped == 1, "the total decoder drops it and counts it (nstk %d, dropped %d)", q.nstk,
          q.dropped);
    case_encode(&p, b);
    b[at + 8] = CASE_STK_ANCHORS;
    expect_invalid(b, len, at + 8, "an unknown stk anchor");
    case_encode(&p, b);
    b[at] = CASE_STK_MAX_WORDS + 1;
    expect_invalid(b, len, at, "a stk word count over the limit");
    case_encode(&p, b);
    b[at] = 0;
    expect_invalid(b, len, at, "a stk record without words");
    rc = case_parse_text("asgf-case 1\nstk fp +12 abs 1\n", &p, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "not a multiple of 8"), "a bad offset in text is named: %s", err);
    rc = case_parse_text("asgf-case 1\nstk fp9 +8 abs 1\n", &p, err, sizeof err);
    CHECK(rc == -1 && strstr(err, "unknown stk anchor 'fp9'"), "an unknown anchor in text is named: %s", err);
}

/* Every record type, every field: for the one-pass reader against the two. */
static int same_all(const struct case_prog *a, const struct case_prog *b)
{
    if (!same(a, b) || a->dropped != b->dropped || a->nqop != b->nqop || a->nstk != b->nstk) return 0;
    for (int i = 0; i < a->nqop; i++)
        if (a->qop[i].op != b->qop[i].op || a->qop[i].value != b->qop[i].value) return 0;
    for (int i = 0; i < a->nstk; i++) {
        const struct case_stack_patch *x = &a->stk[i], *y = &b->stk[i];
        if (x->anchor != y->anchor || x->kind != y->kind || x->region != y->region || x->nwords != y->nwords ||
            x->offset != y->offset || memcmp(x->words, y->words, (size_t)x->nwords * sizeof x->words[0]))
            return 0;
    }
    return 1;
}

/* case_validate_decode's program is case_decode's for every file it
 * accepts, whatever the program held before (filled with junk here).
 * Inputs: random version 2 programs of all three record types, then a byte
 * changed or the end cut; and version 1 files of up to 16 records. (Its
 * answer and offset are case_validate's own: case_validate calls it.) */
static void one_pass_agrees(void)
{
    srand(13);
    int bad = 0, valid = 0, valid_v1 = 0;
    for (int n = 0; n < 60000; n++) {
        uint8_t bytes[CASE_MAX_SIZE];
        size_t len;
        if (n % 6 == 5) {
            uint8_t v1[CASE_V1_MAX_SIZE] = "ASGF\1\0\0\0";
            len = CASE_HEADER_SIZE + CASE_GLOBAL_SIZE + (size_t)(rand() % (CASE_V1_MAX_RECORDS + 1)) * CASE_RECORD_SIZE;
            for (size_t i = CASE_HEADER_SIZE; i < len; i++) v1[i] = (uint8_t)rand();
            memcpy(bytes, v1, len);
        } else {
            struct case_prog p = {0};
            p.entry = (uint8_t)(rand() % ENTRY__COUNT), p.mode = (uint8_t)(rand() % MODE__COUNT);
            p.flags = (uint8_t)(rand() & CASE_FLAG__MASK), p.depth = (uint16_t)rand();
            p.nmut = rand() % 6, p.nqop = rand() % 4, p.nstk = rand() % 3;
            for (int i = 0; i < p.nmut; i++)
                p.mut[i] = (struct case_mutation){(uint8_t)(rand() % arch_reg_count()), (uint8_t)(rand() % MUT__COUNT),
                                                  (uint8_t)(rand() % REGION__COUNT), rand()};
            for (int i = 0; i < p.nqop; i++)
                p.qop[i] = (struct case_qop){(uint8_t)(rand() % QOP__COUNT), rand() - RAND_MAX / 2};
            for (int i = 0; i < p.nstk; i++) {
                struct case_stack_patch *s = &p.stk[i];
                s->anchor = (uint8_t)(rand() % CASE_STK_ANCHORS), s->kind = (uint8_t)(rand() % MUT__COUNT);
                s->region = s->kind == MUT_REGION ? (uint8_t)(rand() % REGION__COUNT) : 0;
                s->nwords = (uint8_t)(1 + rand() % CASE_STK_MAX_WORDS), s->offset = 8 * (rand() % 64 - 32);
                for (int w = 0; w < s->nwords; w++) s->words[w] = rand();
            }
            len = case_encode(&p, bytes);
            if (n % 3 == 1) bytes[(size_t)rand() % len] = (uint8_t)rand();
            if (n % 3 == 2) len = (size_t)rand() % (len + 1);
        }
        size_t off;
        const char *why;
        struct case_prog one, two;
        memset(&one, 0x5a, sizeof one);
        if (case_validate_decode(bytes, len, &one, &off, &why)) continue;
        valid++, valid_v1 += bytes[4] == CASE_VERSION_1;
        memset(&two, 0xa5, sizeof two);
        case_decode(bytes, len, arch_reg_count(), &two);
        bad += !same_all(&one, &two);
    }
    CHECK(bad == 0 && valid > 10000 && valid_v1 > 5000,
          "one-pass check and decode gives case_decode's program for each of %d valid inputs, %d of them version 1 "
          "(%d differ)", valid, valid_v1, bad);
}

/* A program past 1024 bytes: case_encode_kept writes what fits and cuts the
 * program to it, so the program run is the one the bytes hold. */
static void encode_kept_cuts(void)
{
    struct case_prog p = {0}, q;
    p.nstk = CASE_MAX_STK;
    for (int i = 0; i < p.nstk; i++) {
        p.stk[i].nwords = CASE_STK_MAX_WORDS;
        for (int w = 0; w < CASE_STK_MAX_WORDS; w++) p.stk[i].words[w] = i * 100 + w;
    }
    p.nmut = 1, p.mut[0].reg = 1, p.mut[0].kind = MUT_DELTA, p.mut[0].value = 8;
    uint8_t bytes[CASE_MAX_SIZE];
    size_t need = case_encoded_size(&p), len = case_encode_kept(&p, bytes);
    case_decode(bytes, len, arch_reg_count(), &q);
    CHECK(need > CASE_MAX_SIZE && len <= CASE_MAX_SIZE && p.nstk == CASE_MAX_STK - 1 && p.nmut == 1 && same_all(&p, &q),
          "case_encode_kept cuts a %zu-byte program to the %zu bytes written (%d stk records kept)", need, len, p.nstk);
}

int main(void)
{
    text_round_trip();
    random_programs_round_trip();
    every_byte_string_decodes();
    strict_validation();
    version1_compatibility();
    version2_codes();
    text_errors();
    qop_records();
    stk_records();
    one_pass_agrees();
    encode_kept_cuts();
    return TAP_DONE();
}
