/* The one start-up path (see startup.h). */
#include <stdio.h>
#include "guard.h"
#include "jit_code.h"
#include "jmethods.h"
#include "regions.h"
#include "startup.h"
#include "vm_structs.h"

static const struct api *fail(char *err, size_t errlen, const char *what, const char *why)
{
    snprintf(err, errlen, "%s: %s", what, why);
    return NULL;
}

const struct api *startup_attach(JavaVM *vm, const struct startup_config *c, char *err, size_t errlen)
{
    const char *why = NULL;
    if (jmethods_attach(vm, &why)) return fail(err, errlen, "JVMTI", why);
    if (c->jit_code && jit_code_attach(vm, &why)) return fail(err, errlen, "jit code table", why);
    /* Optional: without the table the call_stub_ret region falls back to code blobs. */
    (void)vm_structs_attach(&why);
    const struct api *api = api_select(c->api, &why);
    if (!api) return fail(err, errlen, "api", why);
    if (api->kind == API_AGCT) {
        if (c->agct_depth > 0) api_agct_set_depth(c->agct_depth);
    } else if (c->test_plant) {
        return fail(err, errlen, "test_plant", "the test hook needs the agct backend");
    }
    guard_set_enabled(c->protect);
    if (c->max_records >= 0) guard_set_record_limit(c->max_records);
    if (guard_install(c->out, &why)) return fail(err, errlen, "crash protection", why);
    uintptr_t plant = c->test_plant, hi;
    if (plant == STARTUP_PLANT_POLL && !regions_poll_page(&plant, &hi))
        return fail(err, errlen, "test_plant=poll", "no safepoint poll page in /proc/self/maps");
    if (plant) api_agct_plant_bad_frames((void *)plant);
    if (c->threads && jvm_threads_attach(vm, c->threads, &why)) return fail(err, errlen, "threads", why);
    return api;
}
