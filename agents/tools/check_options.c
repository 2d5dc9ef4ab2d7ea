/*
 * asgf-agent-options OPTIONS: checks an agent option string with the agent's
 * own parser and verifier (agents/agent_options.c), without a JVM. The
 * campaign's presets run every `agent = ...` line through it, so a preset is
 * held to exactly the rules -agentpath options are.
 * Exit: 0 valid, 2 invalid (one line on stderr naming the option).
 */
#include <stdio.h>
#include <string.h>
#include "agent.h"

int main(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: asgf-agent-options 'key=value,...'\n");
        return 2;
    }
    struct agent_config cfg;
    char err[600];
    if (agent_options_parse(argv[1], &cfg, err, sizeof err)) {
        fprintf(stderr, "bad agent options: %s\n", err);
        return 2;
    }
    return 0;
}
