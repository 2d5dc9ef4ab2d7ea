/*
 * The call-graph check of sampled walks (oracle_sampled=1): in a walk, each
 * Java frame below the top stands at a call, so the caller's bytecode at the
 * frame's bci must be an invoke whose constant-pool reference names the
 * frame above it (same name and descriptor; the class may differ, as
 * virtual calls dispatch to subclasses). Bytecodes and constant pools come
 * from JVMTI, in class-file form, and are cached per method by the oracle
 * thread (the only caller: no locks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "jmethods.h"
#include "oracle_graph.h"

enum { CP_UTF8 = 1, CP_INT = 3, CP_FLOAT = 4, CP_LONG = 5, CP_DOUBLE = 6, CP_CLASS = 7, CP_STRING = 8,
       CP_FIELD = 9, CP_METHOD = 10, CP_IMETHOD = 11, CP_NAT = 12, CP_MHANDLE = 15, CP_MTYPE = 16,
       CP_DYNAMIC = 17, CP_INDY = 18, CP_MODULE = 19, CP_PACKAGE = 20 };

struct cpool {
    jclass klass; /* global ref: the cache key */
    unsigned char *bytes;
    jint count;
    int *offset; /* of entry i in bytes, -1 for the second slot of long/double */
};

struct code {
    jmethodID id;
    unsigned char *bytes;
    jint len;
    struct cpool *cp;
};

#define CODE_SLOTS 4096
static struct code codes[CODE_SLOTS];
#define POOLS_MAX 1024
static struct cpool pools[POOLS_MAX];
static int npools;

static int u2(const unsigned char *p) { return p[0] << 8 | p[1]; }

static int parse_pool(struct cpool *cp, jint bytes_len)
{
    cp->offset = calloc((size_t)cp->count + 1, sizeof *cp->offset);
    if (!cp->offset) return -1;
    int at = 0;
    for (int i = 1; i < cp->count; i++) {
        if (at >= bytes_len) return -1;
        cp->offset[i] = at;
        int tag = cp->bytes[at], size;
        switch (tag) {
        case CP_UTF8: size = at + 3 <= bytes_len ? 3 + u2(cp->bytes + at + 1) : -1; break;
        case CP_INT: case CP_FLOAT: case CP_FIELD: case CP_METHOD: case CP_IMETHOD: case CP_NAT:
        case CP_DYNAMIC: case CP_INDY: size = 5; break;
        case CP_LONG: case CP_DOUBLE: size = 9; break;
        case CP_CLASS: case CP_STRING: case CP_MTYPE: case CP_MODULE: case CP_PACKAGE: size = 3; break;
        case CP_MHANDLE: size = 4; break;
        default: return -1;
        }
        if (size < 0) return -1;
        at += size;
        if (tag == CP_LONG || tag == CP_DOUBLE) cp->offset[++i] = -1;
    }
    return 0;
}

static struct cpool *pool_of(jvmtiEnv *env, JNIEnv *jni, jclass klass)
{
    for (int i = 0; i < npools; i++)
        if ((*jni)->IsSameObject(jni, pools[i].klass, klass)) return &pools[i];
    if (npools == POOLS_MAX) return NULL;
    struct cpool *cp = &pools[npools];
    jint count = 0, len = 0;
    unsigned char *bytes = NULL;
    if ((*env)->GetConstantPool(env, klass, &count, &len, &bytes) != JVMTI_ERROR_NONE) return NULL;
    cp->bytes = bytes;
    cp->count = count;
    if (parse_pool(cp, len)) {
        (*env)->Deallocate(env, bytes);
        free(cp->offset);
        return NULL;
    }
    cp->klass = (*jni)->NewGlobalRef(jni, klass);
    npools++;
    return cp;
}

static struct code *code_of(jvmtiEnv *env, JNIEnv *jni, jmethodID id)
{
    struct code *c = &codes[((uintptr_t)id >> 3) % CODE_SLOTS];
    if (c->id == id) return c->cp ? c : NULL;
    if (c->bytes) (*env)->Deallocate(env, c->bytes);
    memset(c, 0, sizeof *c);
    c->id = id;
    jclass klass;
    if ((*env)->GetMethodDeclaringClass(env, id, &klass) != JVMTI_ERROR_NONE) return NULL;
    if ((*env)->GetBytecodes(env, id, &c->len, &c->bytes) == JVMTI_ERROR_NONE) c->cp = pool_of(env, jni, klass);
    (*jni)->DeleteLocalRef(jni, klass);
    return c->cp ? c : NULL;
}

/* The Utf8 at pool index i, as (pointer, length); 0 or -1. */
static int utf8(const struct cpool *cp, int i, const char **s, int *len)
{
    if (i <= 0 || i >= cp->count || cp->offset[i] < 0 || cp->bytes[cp->offset[i]] != CP_UTF8) return -1;
    *len = u2(cp->bytes + cp->offset[i] + 1);
    *s = (const char *)cp->bytes + cp->offset[i] + 3;
    return 0;
}

static int eq(const char *a, int alen, const char *b) { return (int)strlen(b) == alen && !memcmp(a, b, (size_t)alen); }

enum graph_verdict graph_check_edge(jvmtiEnv *env, JNIEnv *jni, jmethodID caller, int bci, jmethodID callee,
                                    char *why, size_t whylen)
{
    const struct jmethod_entry *ce = jmethods_resolve(callee);
    struct code *c = code_of(env, jni, caller);
    if (!ce || !c || bci < 0 || bci + 3 > c->len) return snprintf(why, whylen, "no bytecode"), GRAPH_UNKNOWN;
    int op = c->bytes[bci];
    /* invokedynamic and the signature-polymorphic MethodHandle/VarHandle
     * calls reach generated methods of hidden classes: any callee goes. */
    if (op == 0xba) return GRAPH_OK;
    if (op < 0xb6 || op > 0xb9) {
        snprintf(why, whylen, "bci %d is opcode 0x%02x, not an invoke", bci, op);
        return GRAPH_NO_EDGE;
    }
    const struct cpool *cp = c->cp;
    int ref = u2(c->bytes + bci + 1);
    if (ref <= 0 || ref >= cp->count || cp->offset[ref] < 0) return snprintf(why, whylen, "bad ref"), GRAPH_UNKNOWN;
    const unsigned char *r = cp->bytes + cp->offset[ref];
    if (r[0] != CP_METHOD && r[0] != CP_IMETHOD) return snprintf(why, whylen, "ref not a method"), GRAPH_UNKNOWN;
    int klass = u2(r + 1), nat = u2(r + 3);
    const char *kn, *n, *d;
    int knl, nl, dl;
    if (klass <= 0 || klass >= cp->count || cp->offset[klass] < 0 || nat <= 0 || nat >= cp->count || cp->offset[nat] < 0 ||
        utf8(cp, u2(cp->bytes + cp->offset[klass] + 1), &kn, &knl) ||
        utf8(cp, u2(cp->bytes + cp->offset[nat] + 1), &n, &nl) || utf8(cp, u2(cp->bytes + cp->offset[nat] + 3), &d, &dl))
        return snprintf(why, whylen, "bad ref"), GRAPH_UNKNOWN;
    if ((eq(kn, knl, "java/lang/invoke/MethodHandle") || eq(kn, knl, "java/lang/invoke/VarHandle")))
        return GRAPH_OK;
    if (eq(n, nl, ce->name) && eq(d, dl, ce->signature)) return GRAPH_OK;
    snprintf(why, whylen, "bci %d calls %.*s.%.*s%.*s", bci, knl, kn, nl, n, dl, d);
    return GRAPH_NO_EDGE;
}
