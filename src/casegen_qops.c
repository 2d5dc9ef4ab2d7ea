/*
 * The queue and frame-mark operations a profiler does besides Enqueue,
 * drawn as qop records (casegen.h): resize racing enqueues, elements read
 * at any index, enqueue into another thread's queue, processing handlers
 * set and cleared, deregister and re-register from the queue's own
 * handler, frame marks moved to good and bad stack pointers, iterators
 * used past their end. Being records, every one is in the bytes of the
 * case that did it, and replays from them.
 *
 * The odds are per case. Rare ones (a resize, a re-registration) are rare
 * so the queue spends most of its life in a state where the common ones
 * can race it.
 */
#include <string.h>
#include "casegen.h"

static void add(struct case_prog *p, int op, int64_t v)
{
    if (p->nqop < CASE_MAX_QOPS) p->qop[p->nqop++] = (struct case_qop){(uint8_t)op, v};
}

/* A new size: -1, 0 or 1 a quarter of the time, else 1 to twice the capacity. */
static int64_t new_size(uint64_t r, int capacity)
{
    return r % 4 == 0 ? (int64_t)((r >> 2) % 3) - 1 : 1 + (int64_t)((r >> 2) % (uint64_t)(2 * capacity));
}

/* mark_move's target: frame 0 to 5, or a quarter of the time NULL, between
 * two frames, or another thread's stack (FORMAT.md). */
static int64_t mark_target(uint64_t r)
{
    if ((r >> 8) % 4 == 0) return -1 - (int64_t)((r >> 16) % 3);
    return (int64_t)(r % 6);
}

static void signal_ops(uint64_t *st, unsigned groups, int capacity, struct case_prog *p)
{
    uint64_t r = casegen_next(st);
    if (groups & CASEGEN_QOPS_ELEMENTS) {
        add(p, QOP_SIZE_INFO, 0);
        /* any n: in range, one past either end, or far out */
        int64_t span = capacity + 2, n = (int64_t)(r % (uint64_t)(2 * span + 1)) - span;
        if ((r >> 20) % 16 == 0) n = (r >> 24) & 1 ? 1 << 30 : -(1 << 30);
        add(p, QOP_GET_ELEMENT, n);
        if ((r >> 4) % 4 == 0) add(p, QOP_ENQUEUABLE, 0);
    }
    if ((groups & CASEGEN_QOPS_RESIZE) && (r >> 36) % 64 == 0) add(p, QOP_RESIZE, new_size(r >> 42, capacity));
    if ((groups & CASEGEN_QOPS_FOREIGN) && (r >> 8) % 16 == 0) add(p, QOP_ENQUEUE_FOREIGN, (int64_t)((r >> 12) & 0xff));
    if (groups & CASEGEN_QOPS_MARKS) add(p, QOP_MARK_GET_SP, 0);
}

static void handshake_ops(uint64_t *st, unsigned groups, int capacity, struct case_prog *p)
{
    uint64_t r = casegen_next(st);
    if (groups & CASEGEN_QOPS_INFO) add(p, QOP_METHOD_INFO, (int64_t)(r & 0xffffffff));
    if (groups & CASEGEN_QOPS_MARKS) {
        /* A no-op where the thread has its mark (the agent registers one at
         * thread start); a replay gets one to move. */
        add(p, QOP_MARK_REGISTER, 0);
        add(p, QOP_MARK_MOVE, mark_target(r >> 3));
        if ((r >> 56) % 8 == 0) add(p, QOP_WALK_FROM_FRAME, 0);
    }
    add(p, QOP_PAST_END, 0);
    if ((groups & CASEGEN_QOPS_RESIZE) && (r >> 24) % 32 == 0) add(p, QOP_RESIZE_IN_HANDLER, new_size(r >> 30, capacity));
    if ((groups & CASEGEN_QOPS_HANDLERS) && (r >> 40) % 64 == 0) {
        int clear = (r >> 46) & 1, offer = (r >> 47) & 1;
        add(p, clear ? QOP_CLEAR_START : QOP_SET_START, offer);
        add(p, clear ? QOP_CLEAR_END : QOP_SET_END, !offer);
    }
    if ((groups & CASEGEN_QOPS_REREGISTER) && (r >> 50) % 256 == 0) add(p, QOP_REREGISTER, 0);
}

void casegen_queue_ops(uint64_t *st, unsigned groups, int capacity, int handshake_free, struct case_prog *p)
{
    if (!groups) return;
    if (capacity < 1) capacity = 1;
    signal_ops(st, groups, capacity, p);
    if (handshake_free) handshake_ops(st, groups, capacity, p);
}

const char *casegen_qop_groups_parse(const char *v, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"resize", CASEGEN_QOPS_RESIZE},   {"handlers", CASEGEN_QOPS_HANDLERS},
                 {"elements", CASEGEN_QOPS_ELEMENTS}, {"foreign", CASEGEN_QOPS_FOREIGN},
                 {"reregister", CASEGEN_QOPS_REREGISTER}, {"marks", CASEGEN_QOPS_MARKS},
                 {"info", CASEGEN_QOPS_INFO}};
    if (!v) return "expected all, none or names joined by +, got";
    if (!strcmp(v, "all")) return *out = CASEGEN_QOPS_ALL, NULL;
    if (!strcmp(v, "none")) return *out = 0, NULL;
    unsigned bits = 0;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, "+");
        unsigned found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len)) found = names[i].bit;
        if (!found) return "expected all, none or resize+handlers+elements+foreign+reregister+marks+info, got";
        bits |= found;
        p += len + (p[len] == '+');
    }
    *out = bits;
    return NULL;
}
