/* SPDX-License-Identifier: MIT */
/*
 * aggctl.h - tracectl aggregate and show-aggregations: define an
 * aggregation kept in the traced processes, print the merged results.
 */
#ifndef SHMTRACE_TOOLS_AGGCTL_H
#define SHMTRACE_TOOLS_AGGCTL_H

#include <getopt.h>

struct verb;

/* Their options, for the verb table. */
extern const struct option agg_opts[];
#define AGG_SHORTOPTS "s:f:h"
extern const struct option show_agg_opts[];
#define SHOW_AGG_SHORTOPTS "s:h"

/*
 * tracectl aggregate ARGS, tracectl show-aggregations ARGS: @argv[0] is
 * the verb. Return the exit status.
 */
int agg_main(const struct verb *v, int argc, char **argv);
int show_agg_main(const struct verb *v, int argc, char **argv);

#endif
