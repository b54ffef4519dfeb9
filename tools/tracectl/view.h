/* SPDX-License-Identifier: MIT */
/*
 * view.h - tracectl view: watch a session's events as they are recorded
 * (trace-read --follow on its output).
 */
#ifndef SHMTRACE_TOOLS_VIEW_H
#define SHMTRACE_TOOLS_VIEW_H

#include <getopt.h>

struct verb;

/* view's own options (the others are trace-read's), for the verb table. */
extern const struct option view_opts[];
#define VIEW_SHORTOPTS "s:h"

/* tracectl view ARGS: @argv[0] is "view". Returns the exit status. */
int view_main(const struct verb *v, int argc, char **argv);

#endif
