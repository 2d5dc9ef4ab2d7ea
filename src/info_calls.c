/* Fuzzed method/class info calls (see info_calls.h). */
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include "info_calls.h"

#define STALE_RING 64
#define STALE_RECENT 8
#define SMALL_BUF 256
/* The longest answer the VM can give: a Symbol is at most 65535 bytes and a
 * line number table at most 65535 entries. The "huge" length variant hands
 * these shared scratch buffers over with INT_MAX as their length, so the
 * VM may write as much as it likes without the framework overflowing its
 * own memory; the contents are never read. */
static char huge_chars[65536 + 1];
static ASGST_MethodLineNumberEntry huge_lines[65536];
/* A forged handle points here: readable, full of non-canonical "pointers". */
#define A4 0x4141414141414141ULL, 0x4141414141414141ULL, 0x4141414141414141ULL, 0x4141414141414141ULL
static const uint64_t forged_block[16] = {A4, A4, A4, A4};

static ASGST_Method _Atomic stale[STALE_RING];
static _Atomic unsigned stale_next;
static _Atomic unsigned long long n_handle[INFO_HANDLE__COUNT], n_length[INFO_LEN__COUNT], n_stale_missing;
static _Atomic unsigned long long n_unload, n_unloaded_methods, n_redefined, n_roundtrips, n_mismatch;

static void bump(_Atomic unsigned long long *c) { atomic_fetch_add_explicit(c, 1, memory_order_relaxed); }

/* [handler-safe] */
static uint64_t next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* [handler-safe] */
static ASGST_Method pick_handle(ASGST_Method m, uint64_t r, int *variant)
{
    /* Mostly valid: a profiler's calls are, and the other variants fault
     * on the prototype every time. */
    unsigned v = r % 10;
    *variant = v < 6 ? INFO_VALID : v < 8 ? INFO_STALE : v < 9 ? INFO_FORGED : INFO_NULL;
    switch (*variant) {
    case INFO_STALE: {
        /* One of the last 8 methods unloaded: what a profiler still
         * holding handles from just before the unload would pass. */
        unsigned n = atomic_load_explicit(&stale_next, memory_order_relaxed);
        unsigned back = (unsigned)((r >> 8) % (n < STALE_RECENT ? n : STALE_RECENT));
        ASGST_Method s = n ? atomic_load_explicit(&stale[(n - 1 - back) % STALE_RING], memory_order_relaxed) : NULL;
        if (s) return s;
        bump(&n_stale_missing);
        *variant = INFO_VALID;
        return m;
    }
    case INFO_FORGED:
        switch ((r >> 8) % 3) {
        case 0: return (ASGST_Method)forged_block;
        case 1: return (ASGST_Method)((uintptr_t)m + 8); /* interior of a real one */
        default: return (ASGST_Method)(uintptr_t)0x1000;
        }
    case INFO_NULL: return NULL;
    default: return m;
    }
}

/* [handler-safe] Sets the buffer and length of one string field. */
static void string_arg(int variant, char *small, jint exact, char **buf, jint *len)
{
    *buf = small;
    switch (variant) {
    case INFO_LEN_NEGATIVE: *len = -1; break;
    case INFO_LEN_ZERO: *len = 0; break;
    case INFO_LEN_ONE: *len = 1; break;
    case INFO_LEN_EXACT: *len = exact > 0 && exact < SMALL_BUF ? exact + 1 : SMALL_BUF; break;
    default: *buf = huge_chars, *len = INT_MAX; break;
    }
}

void info_calls_method(const struct api *api, ASGST_Method m, int bci, uint64_t seed)
{
    uint64_t s = seed;
    int hv;
    ASGST_Method h = pick_handle(m, next(&s), &hv);
    int lv = (int)(next(&s) % INFO_LEN__COUNT);
    bump(&n_handle[hv]);
    bump(&n_length[lv]);
    char name[SMALL_BUF], sig[SMALL_BUF], gen[SMALL_BUF];
    ASGST_MethodInfo mi;
    jint exact_name = 0, exact_sig = 0, exact_gen = 0;
    if (api->get_method_info) {
        if (lv == INFO_LEN_EXACT) { /* learn the lengths first, as a profiler sizing its buffers would */
            memset(&mi, 0, sizeof mi);
            mi.method_name = name, mi.method_name_length = SMALL_BUF;
            mi.signature = sig, mi.signature_length = SMALL_BUF;
            mi.generic_signature = gen, mi.generic_signature_length = SMALL_BUF;
            api->get_method_info(h, &mi);
            exact_name = mi.method_name_length, exact_sig = mi.signature_length;
            exact_gen = mi.generic_signature_length;
        }
        memset(&mi, 0, sizeof mi);
        string_arg(lv, name, exact_name, &mi.method_name, &mi.method_name_length);
        string_arg(lv, sig, exact_sig, &mi.signature, &mi.signature_length);
        string_arg(lv, gen, exact_gen, &mi.generic_signature, &mi.generic_signature_length);
        api->get_method_info(h, &mi);
    }
    if (api->get_method_id_num) (void)api->get_method_id_num(h);
    if (api->get_method_line_number_table) {
        ASGST_MethodLineNumberEntry lines[16];
        int n = api->get_method_line_number_table(h, lines, 16);
        switch (lv) {
        case INFO_LEN_NEGATIVE: api->get_method_line_number_table(h, lines, -1); break;
        case INFO_LEN_ZERO: api->get_method_line_number_table(h, lines, 0); break;
        case INFO_LEN_ONE: api->get_method_line_number_table(h, lines, 1); break;
        case INFO_LEN_EXACT: api->get_method_line_number_table(h, lines, n > 0 && n <= 16 ? n : 16); break;
        default: api->get_method_line_number_table(h, huge_lines, INT_MAX); break;
        }
    }
    if (api->get_method_line_number) {
        static const jint odd_bci[] = {-1, 0, 65535, INT_MIN};
        (void)api->get_method_line_number(h, (next(&s) & 1) ? bci : odd_bci[next(&s) % 4]);
    }
    if (api->method_to_jmethodid) (void)api->method_to_jmethodid(h);
    ASGST_Class k = api->get_class ? api->get_class(h) : NULL;
    if (api->get_class_info) {
        char cname[SMALL_BUF], cgen[SMALL_BUF];
        ASGST_ClassInfo ci;
        memset(&ci, 0, sizeof ci);
        string_arg(lv, cname, exact_name, &ci.class_name, &ci.class_name_length);
        string_arg(lv, cgen, exact_gen, &ci.generic_class_name, &ci.generic_class_name_length);
        api->get_class_info(k, &ci);
    }
    if (api->get_class_id_num) (void)api->get_class_id_num(k);
}

void info_calls_roundtrip(const struct api *api, ASGST_Method m)
{
    if (!m) return;
    bump(&n_roundtrips);
    if (api->method_to_jmethodid && api->jmethodid_to_method) {
        jmethodID id = api->method_to_jmethodid(m);
        if (id && api->jmethodid_to_method(id) != m) bump(&n_mismatch);
    }
    if (api->get_class && api->class_to_jclass && api->jclass_to_class) {
        ASGST_Class k = api->get_class(m);
        jclass j = k ? api->class_to_jclass(k) : NULL;
        if (j && api->jclass_to_class(j) != k) bump(&n_mismatch);
    }
}

void info_calls_on_unload(ASGST_Class klass, ASGST_Method *methods, int count, bool redefined, void *arg)
{
    (void)klass, (void)arg;
    bump(&n_unload);
    if (redefined) bump(&n_redefined);
    for (int i = 0; methods && i < count; i++) {
        unsigned slot = atomic_fetch_add(&stale_next, 1);
        atomic_store_explicit(&stale[slot % STALE_RING], methods[i], memory_order_relaxed);
        bump(&n_unloaded_methods);
    }
}

void info_calls_counters(struct info_counters *o)
{
    for (int i = 0; i < INFO_HANDLE__COUNT; i++) o->handle[i] = n_handle[i];
    for (int i = 0; i < INFO_LEN__COUNT; i++) o->length[i] = n_length[i];
    o->stale_missing = n_stale_missing;
    o->unload_events = n_unload, o->unloaded_methods = n_unloaded_methods, o->redefined = n_redefined;
    o->roundtrips = n_roundtrips, o->roundtrip_mismatch = n_mismatch;
}
