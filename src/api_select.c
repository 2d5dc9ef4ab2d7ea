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
    const char *ignored;
    switch (kind) {
    case API_ASGST: return api_asgst_bind(why);
    case API_AGCT: return api_agct_bind(why);
    default: {
        const struct api *a = api_asgst_bind(&ignored);
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
        if (!present) dprintf(fd, "api: missing optional %s%s\n", prefix, name);
    }
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
    case ASGST_AGCT_NO_CLASS_LOAD: return "AGCT_NO_CLASS_LOAD";
    case ASGST_AGCT_UNSUPPORTED: return "UNSUPPORTED";
    default: return code > 0 ? "KIND?" : "IMPLEMENTATION_SPECIFIC";
    }
}

const char *api_raw_code_name(const struct api *api, int raw)
{
    if (api && api->kind == API_ASGST) return asgst_code_name(raw);
    if (raw == ASGST_AGCT_UNSUPPORTED) return "unsupported";
    return agct_code_name(raw);
}
