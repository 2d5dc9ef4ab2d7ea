/*
 * The case format: the bytes every fuzzer input, corpus entry and replay
 * uses. Defined once: the code tables are in case_codes.h, the layout and
 * the readers here and in case.c, one file per record type
 * (case_rec_<name>.c); corpus/FORMAT.md documents it for people.
 *
 *   header   8 bytes  "ASGF", version, 3 reserved bytes
 *   global   8 bytes  entry, mode, options, worker, depth (u16 LE), flags, reserved
 *   records  each a 12-byte head, byte 3 its type (version 2), then the
 *            type's payload words (8 bytes each, count in the head)
 *
 * Versions. case_encode writes version 2, whose codes are stable: a value
 * outside a table is an error (strict) or is dropped and counted (fuzzing),
 * never wrapped onto another value. Version 1 files (byte 3 of a record
 * reserved, every record a register mutation, at most 16) are still read
 * exactly as they always were, codes taken modulo their table size, so
 * saved corpus entries and reproducers keep their meaning.
 *
 * Two readers:
 *   case_validate() is strict: header, structure and (version 2) every
 *     code, naming the byte offset of the first problem. Tools and
 *     harnesses call it first, so every input they run (and so every saved
 *     crash) is a well-formed file.
 *   case_validate_decode() is both in one pass, for the harnesses' hot
 *     path: the strict check, and for a well-formed file the program
 *     case_decode() gives.
 *   case_decode() is total: any byte string yields a valid program. A
 *     short tail is zero-padded; bytes without the magic are read as a
 *     headerless version 1 body. In version 2, an out-of-range entry or mode
 *     becomes 0, unknown option and flag bits are cleared, a record with an
 *     out-of-range code or unknown type is skipped; each counts in
 *     case_prog.dropped.
 * Both are handler-safe (no allocation, no libc beyond memcpy/memset).
 */
#ifndef ASGF_CASE_H
#define ASGF_CASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CASE_MAGIC "ASGF"
#define CASE_VERSION 2   /* what case_encode writes */
#define CASE_VERSION_1 1 /* still read: codes modulo their table size */
#define CASE_HEADER_SIZE 8
#define CASE_GLOBAL_SIZE 8
#define CASE_RECORD_SIZE 12 /* a record head; version 1 records are heads only */
#define CASE_WORD_SIZE 8    /* a payload word */
#define CASE_V1_MAX_RECORDS 16
#define CASE_V1_MAX_SIZE (CASE_HEADER_SIZE + CASE_GLOBAL_SIZE + CASE_V1_MAX_RECORDS * CASE_RECORD_SIZE)
/* Version 2 bounds. A file is at most CASE_MAX_SIZE bytes (every buffer
 * that holds case bytes has this size); a program holds at most
 * CASE_MAX_MUTATIONS mut records. */
#define CASE_MAX_SIZE 1024
#define CASE_MAX_MUTATIONS 32
#define CASE_MAX_QOPS 16
#define CASE_MAX_STK 8        /* stk records in one program */
#define CASE_STK_MAX_WORDS 16 /* payload words of one stk record (case_codes.h) */
#define CASE_STK_ANCHORS 8    /* enum case_stk_anchor */
#define CASE_IMAGE_SIZE 8192  /* bytes of stack top a stk case copies and forges */

enum case_entry {
#define CASE_ENTRY(code, name, id, walks) id = code,
#include "case_codes.h"
};
enum case_mode {
#define CASE_MODE(code, name, id) id = code,
#include "case_codes.h"
};
enum case_record_type {
#define CASE_RECORD(type, name, id, count_byte, max_words) id = type,
#include "case_codes.h"
};
enum mut_kind {
#define CASE_KIND(code, name, id) id = code,
#include "case_codes.h"
};
enum region_id {
#define CASE_REGION(code, name, id) id = code,
#include "case_codes.h"
};
enum case_qop_code {
#define CASE_QOP(code, name, id, handshake) id = code,
#include "case_codes.h"
};
/* Options (global byte 2) are ASGST_Options bits. */
enum case_option {
#define CASE_OPTION(bit, name, id) id = bit,
#include "case_codes.h"
};
/* Case flags (global byte 5). */
enum case_flag {
#define CASE_FLAG(bit, name, id) id = bit,
#include "case_codes.h"
};
/* Table sizes: how many lines each table has (its codes are 0..n-1). */
enum {
    ENTRY__COUNT = 0
#define CASE_ENTRY(code, name, id, walks) +1
#include "case_codes.h"
    , MODE__COUNT = 0
#define CASE_MODE(code, name, id) +1
#include "case_codes.h"
    , CASE_REC__COUNT = 0
#define CASE_RECORD(type, name, id, count_byte, max_words) +1
#include "case_codes.h"
    , QOP__COUNT = 0
#define CASE_QOP(code, name, id, handshake) +1
#include "case_codes.h"
    , MUT__COUNT = 0
#define CASE_KIND(code, name, id) +1
#include "case_codes.h"
    , REGION__COUNT = 0
#define CASE_REGION(code, name, id) +1
#include "case_codes.h"
    , CASE_OPTION__MASK = 0
#define CASE_OPTION(bit, name, id) | bit
#include "case_codes.h"
    , CASE_FLAG__MASK = 0
#define CASE_FLAG(bit, name, id) | bit
#include "case_codes.h"
};

/* Record type mut (0): one register of the context copy. */
struct case_mutation {
    uint8_t reg;    /* logical register, see arch.h: 0 pc, 1 sp, 2 fp, then GPRs */
    uint8_t kind;   /* enum mut_kind */
    uint8_t region; /* enum region_id, for MUT_REGION; 0 otherwise */
    int64_t value;
};

/* Record type qop (1): one queue or frame-mark operation (case_codes.h). */
struct case_qop {
    uint8_t op;     /* enum case_qop_code */
    int64_t value;  /* its argument */
};

/* Record type stk (2): words written into the forged copy of the stack top
 * (src/stack_image.c), at anchor + offset, offset + 8, ... Each word is
 * read by kind as a mut record's value is: abs, delta from the word the
 * copy holds there, or a pointer into a region. */
enum case_stk_anchor {
    STK_SP,   /* the context's sp */
    STK_FP,   /* the context's fp, when it points into the copy */
    STK_FP2,  /* the saved fp at fp, when the chain stays in the copy */
    STK_FP3,  /* one more link up */
    STK_RET1, /* the first word above sp that holds a code address (code
                 cache or libjvm): a return-address slot, found without
                 frame pointers, which compiled Java frames do not keep */
    STK_RET2, STK_RET3, STK_RET4,
};
struct case_stack_patch {
    uint8_t anchor; /* enum case_stk_anchor */
    uint8_t kind;   /* enum mut_kind */
    uint8_t region; /* enum region_id, for MUT_REGION; 0 otherwise */
    uint8_t nwords; /* 1..CASE_STK_MAX_WORDS */
    int32_t offset; /* bytes from the anchor, a multiple of 8 */
    int64_t words[CASE_STK_MAX_WORDS];
};

struct case_prog {
    uint8_t entry;   /* enum case_entry */
    uint8_t mode;    /* enum case_mode */
    uint8_t options; /* enum case_option bits */
    uint8_t worker;  /* target worker index, taken modulo the harness's workers */
    uint16_t depth;  /* frames to request; 0 = backend default */
    uint8_t flags;   /* enum case_flag */
    int dropped;     /* case_decode, version 2: out-of-range fields and records neutralized */
    /* One array per record type, in the order of the file. Records of
     * different types do not depend on each other's order. The counts sit
     * with the header, on the first cache line: a held target reads them
     * for every case the fuzzer thread has just decoded on another CPU,
     * and apart, two of them cost two more lines moving each way a case,
     * even in a case without such records. */
    int nmut, nqop, nstk;
    struct case_mutation mut[CASE_MAX_MUTATIONS];
    struct case_qop qop[CASE_MAX_QOPS];
    struct case_stack_patch stk[CASE_MAX_STK];
};

/* Strict check. Returns 0 if well-formed; else -1 with *err_offset set to
 * the first bad byte offset and *err pointing to a static message. */
int case_validate(const uint8_t *buf, size_t len, size_t *err_offset, const char **err);

/* case_validate, and when it returns 0, *out as case_decode(buf, len,
 * arch_reg_count(), out) leaves it. On -1, *out is unspecified. */
int case_validate_decode(const uint8_t *buf, size_t len, struct case_prog *out, size_t *err_offset,
                         const char **err);

/* Total decode; never fails. nregs: how many logical registers the
 * architecture has (arch_reg_count()). */
void case_decode(const uint8_t *buf, size_t len, int nregs, struct case_prog *out);

/* Canonical encoding, version 2; returns the size (<= CASE_MAX_SIZE;
 * records that would not fit are left out). */
size_t case_encode(const struct case_prog *p, uint8_t out[CASE_MAX_SIZE]);
/* The size case_encode would need to hold every record (> CASE_MAX_SIZE:
 * some would be left out; the text reader refuses such a program). */
size_t case_encoded_size(const struct case_prog *p);
/* [handler-safe] case_encode, and p cut back to the records the bytes
 * hold when some did not fit: what runs is then what a crash record keeps. */
size_t case_encode_kept(struct case_prog *p, uint8_t out[CASE_MAX_SIZE]);

/* The name and code tables below are [handler-safe]: constant lookups. */
const char *case_entry_name(int entry);
const char *case_mode_name(int mode);
const char *case_kind_name(int kind);
const char *case_region_name(int region);
const char *case_record_name(int type);
/* Name of option or flag bit i (bit value 1 << i); NULL past the last. */
const char *case_option_name(int i);
const char *case_flag_name(int i);
/* Whether an entry walks a stack (its raw code is the VM's answer), or
 * is a queue entry answering an ASGST code. */
int case_entry_walks(int entry);
/* qop codes: name, parse (-1 if unknown), whether done at the handshake. */
const char *case_qop_name(int op);
/* stk anchors: "sp", "fp", "fp2", "fp3", "ret1".."ret4"; parse gives -1 if unknown. */
const char *case_anchor_name(int anchor);
int case_anchor_parse(const char *s);
int case_qop_parse(const char *s);
int case_qop_at_handshake(int op);
int case_entry_parse(const char *s);
int case_mode_parse(const char *s);
int case_kind_parse(const char *s);
int case_region_parse(const char *s);

/* [handler-safe] Little-endian 64-bit words, as every multi-byte field of
 * the format is stored. */
static inline uint64_t case_get_le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}
static inline void case_put_le64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

/* ---- record types ----
 * A record type is one line in case_codes.h (CASE_RECORD) and one file,
 * src/case_rec_<name>.c, defining `const struct case_record_handler
 * case_rec_<name>`; case.c and case_text.c reach every type through it. */
struct case_text;
struct case_record_handler {
    /* [handler-safe] Reads one record (head, then nwords payload words) into
     * p. Returns 0, or -1 with *bad (offset in the record) and *why when a
     * code is out of range or p has no room: case_validate reports it,
     * case_decode skips the record and counts it. version 1 records reach
     * this only for type mut, with codes already reduced modulo their table. */
    int (*decode)(const uint8_t *rec, int nwords, int nregs, struct case_prog *p, size_t *bad, const char **why);
    /* How many records of this type p holds. */
    int (*count)(const struct case_prog *p);
    /* [handler-safe] Writes record i (head with the type byte, then its
     * words) to out, which has room for CASE_MAX_SIZE bytes; returns the size. */
    size_t (*encode)(const struct case_prog *p, int i, uint8_t *out);
    /* Text form, not handler-safe: prints record i as one line starting with
     * the type's name; parses the rest of such a line (see case_text_*). */
    void (*print)(FILE *f, const struct case_prog *p, int i);
    int (*parse)(struct case_text *t, struct case_prog *p);
};
#define CASE_RECORD(type, name, id, count_byte, max_words) extern const struct case_record_handler case_rec_##name;
#include "case_codes.h"
/* The handler of a type by its code or its name (the text key); NULL if none. */
const struct case_record_handler *case_record_handler(int type);
const struct case_record_handler *case_record_by_name(const char *name);

/* ---- text form (case_text.c), not handler-safe ---- */
/* Prints p as text. */
void case_print(FILE *f, const struct case_prog *p);
/* Parses text; returns 0, or -1 with "LINE:COL: message" in err. */
int case_parse_text(const char *text, struct case_prog *out, char *err, size_t errlen);
/* The longest text form the readers take (replay, the agent's corpus). */
#define CASE_TEXT_MAX 65536
/* 1 when the n bytes at buf (buf[n] == 0) are the text form: no binary
 * magic, no NUL, an "asgf-case" line (after comments). */
int case_is_text(const char *buf, size_t n);

/* For record parsers: the next blank-separated word of the line (empty at
 * the end), its position for messages, an error at a position, a number. */
const char *case_text_word(struct case_text *t, char *buf, size_t len);
int case_text_fail(struct case_text *t, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int case_text_number(struct case_text *t, const char *at, const char *w, int allow_neg, int64_t *out);

#endif
