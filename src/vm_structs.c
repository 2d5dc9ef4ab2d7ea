/* HotSpot's serviceability tables (see vm_structs.h). */
#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include "vm_structs.h"

/* The table's layout is itself exported, so no HotSpot header is needed:
 * an array of entries of `stride` bytes, each with pointers to the type
 * and field names, a static flag and, for static fields, an address; the
 * array ends at an entry whose type name is NULL. */
static const char *base;
static uint64_t stride, type_at, field_at, static_at, address_at;
static _Atomic(uintptr_t *) call_stub_return;

static int exported_u64(const char *name, uint64_t *out)
{
    const uint64_t *p = dlsym(RTLD_DEFAULT, name);
    if (!p) return -1;
    *out = *p;
    return 0;
}

int vm_structs_attach(const char **why)
{
    const char *const *table = dlsym(RTLD_DEFAULT, "gHotSpotVMStructs");
    if (!table || !*table || exported_u64("gHotSpotVMStructEntryArrayStride", &stride) ||
        exported_u64("gHotSpotVMStructEntryTypeNameOffset", &type_at) ||
        exported_u64("gHotSpotVMStructEntryFieldNameOffset", &field_at) ||
        exported_u64("gHotSpotVMStructEntryIsStaticOffset", &static_at) ||
        exported_u64("gHotSpotVMStructEntryAddressOffset", &address_at) || stride == 0) {
        *why = "the VM exports no gHotSpotVMStructs table";
        return -1;
    }
    base = *table;
    atomic_store(&call_stub_return, vm_structs_static_address("StubRoutines", "_call_stub_return_address"));
    return 0;
}

void *vm_structs_static_address(const char *type, const char *field)
{
    for (const char *e = base; e; e += stride) {
        const char *t, *f;
        int32_t is_static;
        memcpy(&t, e + type_at, sizeof t);
        if (!t) break;
        memcpy(&f, e + field_at, sizeof f);
        memcpy(&is_static, e + static_at, sizeof is_static);
        if (is_static && f && !strcmp(t, type) && !strcmp(f, field)) {
            void *a;
            memcpy(&a, e + address_at, sizeof a);
            return a;
        }
    }
    return NULL;
}

uintptr_t vm_structs_call_stub_return(void)
{
    uintptr_t *field = atomic_load(&call_stub_return);
    return field ? *(volatile uintptr_t *)field : 0;
}
