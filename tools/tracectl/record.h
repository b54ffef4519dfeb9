/* SPDX-License-Identifier: MIT */
/*
 * record.h - tracectl record: trace one command from start to end.
 */
#ifndef SHMTRACE_TOOLS_RECORD_H
#define SHMTRACE_TOOLS_RECORD_H

#include <getopt.h>

struct verb;

/* record's options, for the verb table ("+": the options stop at CMD). */
extern const struct option record_opts[];
#define RECORD_SHORTOPTS "+o:p:e:h"

/* tracectl record ARGS: @argv[0] is "record". Returns the exit status. */
int record_main(const struct verb *v, int argc, char **argv);

#endif
