/* Backend choice and reporting (see api.h). */
#include <stdio.h>
#include <string.h>
#include "agct.h"
#include "api.h"

int api_kind_parse(const char *s, enum api_kind *out)
{
    if (!strcmp(s, "auto")) *out = API_AUTO;
    else if (!strcmp(s, "asgst")) *out = API_ASGST;
    else if (!strcmp(s, "agct")) *out = API_AGCT;
    else return -1;
    return 0;
}

const struct api *api_select(enum api_kind kind, const char **why)
{
    const char *refused;
    switch (kind) {
    case API_ASGST: return api_asgst_bind(why);
    case API_AGCT: return api_agct_bind(why);
    default: {
        const struct api *a = api_asgst_bind(&refused);
        /* A prototype build that cannot be bound is worth a word: the
         * user may have meant to test it. */
        if (!a && api_asgst_exported()) dprintf(2, "api: auto: not binding asgst: %s; using agct\n", refused);
        return a ? a : api_agct_bind(why);
    }
    }
}

void api_report(const struct api *api, int fd)
{
    dprintf(fd, "api: backend %s, capabilities 0x%x\n", api->name, api->capabilities());
    if (api->kind != API_ASGST) return;
    int found;
    const char *prefix;
    int total = api_asgst_symbol_count(&found, &prefix);
    dprintf(fd, "api: %d of %d entry points found with prefix %s\n", found, total, prefix);
    for (int i = 0; i < total; i++) {
        int present;
        const char *name = api_asgst_symbol_name(i, &present);
        dprintf(fd, "api: entry %s%s %s\n", prefix, name,
                present ? "bound" : api_asgst_symbol_optional(i) ? "absent-optional" : "absent");
    }
}

void api_report_calls(const struct api *api, int fd)
{
    if (!api->calls) return;
    char line[4096];
    int used = snprintf(line, sizeof line, "api calls:");
    for (int i = 0; i < ASGST_EP__COUNT && used < (int)sizeof line; i++) {
        int present;
        api_asgst_symbol_name(i, &present);
        unsigned long long n = atomic_load_explicit(&api->calls[i], memory_order_relaxed);
        if (n || present) used += snprintf(line + used, sizeof line - (size_t)used, " %s=%llu", api_entry_point_name(i), n);
    }
    dprintf(fd, "%s\n", line);
}

const char *asgst_code_name(int code)
{
    switch (code) {
    case ASGST_JAVA_TRACE: return "JAVA_TRACE";
    case ASGST_NON_JAVA_TRACE: return "NON_JAVA_TRACE";
    case ASGST_NO_FRAME: return "NO_FRAME";
    case ASGST_NO_THREAD: return "NO_THREAD";
    case ASGST_THREAD_EXIT: return "THREAD_EXIT";
    case ASGST_UNSAFE_STATE: return "UNSAFE_STATE";
    case ASGST_NO_TOP_JAVA_FRAME: return "NO_TOP_JAVA_FRAME";
    case ASGST_ENQUEUE_NO_QUEUE: return "ENQUEUE_NO_QUEUE";
    case ASGST_ENQUEUE_FULL_QUEUE: return "ENQUEUE_FULL_QUEUE";
    case ASGST_ENQUEUE_OTHER_ERROR: return "ENQUEUE_OTHER_ERROR";
    case ASGST_WALKER_ERROR: return "WALKER_ERROR";
    case ASGST_WALKER_BAD_JAVA_FRAME: return "WALKER_BAD_JAVA_FRAME";
    case ASGST_WALKER_BAD_NATIVE_FRAME: return "WALKER_BAD_NATIVE_FRAME";
    case ASGST_WALKER_ERROR_19: return "WALKER_ERROR_19";
    case ASGST_WALKER_NOT_WALKABLE: return "WALKER_NOT_WALKABLE";
    default: return code > 0 ? "KIND?" : "IMPLEMENTATION_SPECIFIC";
    }
}

const char *api_raw_code_name(const struct api *api, int raw)
{
    if (api && api->kind == API_ASGST) return asgst_code_name(raw);
    return agct_code_name(raw);
}
