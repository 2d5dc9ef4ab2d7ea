/*
 * asgf-agent-options OPTIONS: checks an agent option string with the agent's
 * own parser and verifier, without a JVM: it loads build/lib/libasgfagent.so
 * (beside this program's bin/) and calls its agent_options_parse. The
 * campaign's presets run every `agent = ...` line through it, so a preset is
 * held to exactly the rules -agentpath options are.
 * Exit: 0 valid, 2 invalid (one line on stderr naming the option), 3 the
 * agent library cannot be loaded.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "agent_config.h"

int main(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: asgf-agent-options 'key=value,...'\n");
        return 2;
    }
    char self[PATH_MAX], lib[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return perror("asgf-agent-options: /proc/self/exe"), 3;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0; /* .../build/bin */
    snprintf(lib, sizeof lib, "%s/../lib/libasgfagent.so", self);
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "asgf-agent-options: cannot load the agent: %s\n", dlerror());
        return 3;
    }
    int (*parse)(const char *, struct agent_config *, char *, size_t);
    *(void **)&parse = dlsym(h, "agent_options_parse");
    if (!parse) {
        fprintf(stderr, "asgf-agent-options: %s has no agent_options_parse\n", lib);
        return 3;
    }
    static struct agent_config cfg;
    char err[600];
    if (parse(argv[1], &cfg, err, sizeof err)) {
        fprintf(stderr, "bad agent options: %s\n", err);
        return 2;
    }
    return 0;
}
