/*
 * The case format: the bytes every fuzzer input, corpus entry and replay
 * uses. Defined once, here; corpus/FORMAT.md documents it for people.
 *
 *   header   8 bytes  "ASGF", version (1), 3 reserved bytes
 *   global   8 bytes  entry, mode, options, worker, depth (u16 LE), flags, reserved
 *   records  12 bytes each, at most CASE_MAX_MUTATIONS:
 *                     register, kind, region, reserved, value (i64 LE)
 *
 * Two readers:
 *   case_validate() is strict: it checks the header and the record
 *     structure and names the byte offset of the first problem. Tools and
 *     harnesses call it first, so every input they run (and so every saved
 *     crash) is a well-formed file.
 *   case_decode() is total: any byte string yields a valid program. Field
 *     values are taken modulo their range, a short tail is zero-padded, a
 *     missing or damaged header is treated as absent. Fuzzer mutations of
 *     the body therefore never produce an unusable program.
 * Both are handler-safe (no allocation, no libc beyond memcpy/memset).
 */
#ifndef ASGF_CASE_H
#define ASGF_CASE_H

#include <stddef.h>
#include <stdint.h>

#define CASE_MAGIC "ASGF"
#define CASE_VERSION 1
#define CASE_HEADER_SIZE 8
#define CASE_GLOBAL_SIZE 8
#define CASE_RECORD_SIZE 12
#define CASE_MAX_MUTATIONS 16
#define CASE_MAX_SIZE (CASE_HEADER_SIZE + CASE_GLOBAL_SIZE + CASE_MAX_MUTATIONS * CASE_RECORD_SIZE)

enum case_entry {
    ENTRY_RUN_WITH_ITERATOR,
    ENTRY_RUN_WITH_ITERATOR_FROM_FRAME,
    ENTRY_ENQUEUE,
    ENTRY_GET_ENQUEUABLE_ELEMENT,
    ENTRY__COUNT
};

enum case_mode { MODE_SIGNAL, MODE_THREAD, MODE_QUEUE, MODE__COUNT };

enum mut_kind {
    MUT_ABS,    /* register := value */
    MUT_DELTA,  /* register := real value + value */
    MUT_REGION, /* register := an address in a named region, value = offset */
    MUT__COUNT
};

enum region_id {
    REGION_OWN_STACK,   /* this thread's stack, offset from the real sp upward */
    REGION_OTHER_STACK, /* another registered thread's stack */
    REGION_CODE_CACHE,  /* JIT code (anonymous executable mapping) */
    REGION_LIBJVM_TEXT, /* libjvm.so's executable mapping */
    REGION_JAVA_HEAP,   /* the Java heap */
    REGION_GUARD_PAGE,  /* the low end of this thread's stack: HotSpot guard zones */
    REGION_NULL_PAGE,   /* [0, 4096) */
    REGION_UNMAPPED,    /* a hole in the address space */
    REGION_MISALIGNED,  /* real value + 1..7 */
    REGION_NONCANONICAL,/* above the user address space (x86_64: bit 47 set) */
    REGION_NMETHOD_TAIL,/* just past a real compiled method's instructions: its stubs
                           (exception and deopt handlers) */
    REGION__COUNT
};

/* Case flags (global byte 5). Unknown bits are ignored. */
enum case_flag {
    CASE_FLAG_REWIND = 1,      /* walk, RewindIterator, walk again */
    CASE_FLAG_METHOD_INFO = 2, /* call GetMethodInfo/GetClass on each frame */
    CASE_FLAG__MASK = 3
};

struct case_mutation {
    uint8_t reg;    /* logical register, see arch.h: 0 pc, 1 sp, 2 fp, then GPRs */
    uint8_t kind;   /* enum mut_kind */
    uint8_t region; /* enum region_id, for MUT_REGION */
    int64_t value;
};

struct case_prog {
    uint8_t entry;   /* enum case_entry */
    uint8_t mode;    /* enum case_mode */
    uint8_t options; /* ASGST_Options bits (1, 2) */
    uint8_t worker;  /* target worker index, taken modulo the harness's workers */
    uint16_t depth;  /* frames to request; 0 = backend default */
    uint8_t flags;   /* enum case_flag */
    int nmut;
    struct case_mutation mut[CASE_MAX_MUTATIONS];
};

/* Strict check. Returns 0 if well-formed; else -1 with *err_offset set to
 * the first bad byte offset and *err pointing to a static message. */
int case_validate(const uint8_t *buf, size_t len, size_t *err_offset, const char **err);

/* Total decode; never fails. nregs: how many logical registers the
 * architecture has (arch_reg_count()). */
void case_decode(const uint8_t *buf, size_t len, int nregs, struct case_prog *out);

/* Canonical encoding; returns the size (<= CASE_MAX_SIZE). */
size_t case_encode(const struct case_prog *p, uint8_t out[CASE_MAX_SIZE]);

const char *case_entry_name(int entry);
const char *case_mode_name(int mode);
const char *case_kind_name(int kind);
const char *case_region_name(int region);
int case_entry_parse(const char *s);
int case_mode_parse(const char *s);
int case_kind_parse(const char *s);
int case_region_parse(const char *s);

/* Text form (case_text.c): not handler-safe. */
#include <stdio.h>
/* Prints p as text. */
void case_print(FILE *f, const struct case_prog *p);
/* Parses text; returns 0, or -1 with "LINE:COL: message" in err. */
int case_parse_text(const char *text, struct case_prog *out, char *err, size_t errlen);

#endif
