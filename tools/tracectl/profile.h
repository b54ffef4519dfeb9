/* SPDX-License-Identifier: MIT */
/*
 * profile.h - tracectl save and load: sessions as a JSON profile
 * (profile.c, doc/profile.md).
 */
#ifndef SHMTRACE_TOOLS_PROFILE_H
#define SHMTRACE_TOOLS_PROFILE_H

#include <getopt.h>

struct verb;

/* The version of the profiles written; those of a later version are refused. */
#define PROFILE_VERSION		3

extern const struct option save_opts[];
#define SAVE_SHORTOPTS "o:h"
extern const struct option load_opts[];
#define LOAD_SHORTOPTS "h"

/* tracectl save [NAME...] [-o FILE]: the exit status. */
int save_main(const struct verb *v, int argc, char **argv);
/* tracectl load FILE [--override-name NEW]: the exit status. */
int load_main(const struct verb *v, int argc, char **argv);

#endif
