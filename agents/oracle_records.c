/*
 * The oracle's records: one file per difference between the VM's walk and
 * the truth (docs/crash-record.md, "Mismatch records"), keyed so that the
 * same difference in the same method has one key in every process.
 */
#include <stdio.h>
#include <string.h>
#include "fnv.h"
#include "jmethods.h"
#include "oracle_records.h"
#include "record.h"
#include "sigsafe.h"

void oracle_method_text(jmethodID m, char *out, size_t len)
{
    const struct jmethod_entry *e = m ? jmethods_resolve(m) : NULL;
    if (e) snprintf(out, len, "%s.%s%s", e->klass && e->klass->name ? e->klass->name : "?", e->name, e->signature);
    else snprintf(out, len, "?%p", (void *)m);
}

/* FNV-1a over the kind and the first differing frame's method text: the
 * same in every process, as jmethodIDs are not. */
uint64_t oracle_mismatch_key(const char *kind, const char *method)
{
    uint64_t h = fnv1a(FNV1A_BASIS, kind, strlen(kind));
    h = fnv1a_byte(h, '|');
    h = fnv1a(h, method, strlen(method));
    return h;
}

void oracle_record_write(const struct oracle_record *o)
{
    const char *tname = o->thread, *kind = o->kind, *method = o->method, *shape = o->shape, *why = o->why;
    const ASGCT_CallFrame *ag = o->walked;
    const jvmtiFrameInfo *jv = o->expected;
    int at = o->at, na = o->nwalked, nj = o->nexpected;
    const uint8_t *case_bytes = o->case_bytes;
    size_t case_len = o->case_len;
    static char text[1 << 17];
    char m[512], path[400];
    SBUF(head, text);
    record_head(&head, o->tid, tname, "agct", "AsyncGetCallTrace", "oracle");
    size_t used = head.len;
#define OUT(...) do { int w_ = snprintf(text + used, sizeof text - used, __VA_ARGS__); \
        if (w_ > 0) used = used + (size_t)w_ < sizeof text ? used + (size_t)w_ : sizeof text - 1; } while (0)
    OUT("\nkey: %016llx\nmismatch: %s\nat: %d\nmethod: %s\nagct_result: %d\n", (unsigned long long)o->key, kind, at,
        method, na);
    /* Workers are named asgst-worker-SCENARIO-N (stress/README.md): the
     * scenario under the oracle again is the reproducer. */
    const char *scn = strncmp(tname, "asgst-worker-", 13) ? NULL : tname + 13;
    const char *dash = scn ? strchr(scn, '-') : NULL;
    if (shape) OUT("shape: %s\n", shape);
    if (why) OUT("why: %s\n", why);
    /* a consistency record carries the case that walked, which mutate=corpus replays */
    const char *graph = o->from_sampled_walk ? ",oracle_graph=1" : "";
    if (dash && case_bytes)
        OUT("repro: stress/run --scenario %.*s --time 60s --agent oracle=1,interval=100us,mutate=corpus:DIR "
            "(DIR: a directory holding only this record's case, which triage saves as the bucket's case file)\n", (int)(dash - scn), scn);
    else if (dash) OUT("repro: stress/run --scenario %.*s --time 60s --agent oracle=1%s,interval=10s\n", (int)(dash - scn), scn, graph);
    for (int i = 0; i < nj && used + 600 < sizeof text; i++) {
        oracle_method_text(jv[i].method, m, sizeof m);
        OUT("expected: %d %s %lld\n", i, m, (long long)jv[i].location);
    }
    for (int i = 0; i < na && used + 600 < sizeof text; i++) {
        oracle_method_text(ag[i].method_id, m, sizeof m);
        OUT("walked: %d %s %d\n", i, m, ag[i].lineno);
    }
    if (case_bytes && case_len) {
        OUT("case: ");
        for (size_t i = 0; i < case_len && used + 8 < sizeof text; i++) OUT("%02x", case_bytes[i]);
        OUT("\n");
    }
    OUT("END\n");
#undef OUT
    record_text(o->dir, o->key, text, used, path, sizeof path);
}

