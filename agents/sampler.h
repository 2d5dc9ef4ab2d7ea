/* The sampler thread: signals each sampled thread every interval, or in
 * mode=thread holds it and walks it from here (sampler.c). */
#ifndef ASGF_SAMPLER_H
#define ASGF_SAMPLER_H

#include "agent_config.h"

int sampler_start(const struct agent_config *cfg, const struct api *api);
void sampler_stop(void);
double sampler_elapsed_s(void);

#endif
