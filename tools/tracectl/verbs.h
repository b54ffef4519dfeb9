/* SPDX-License-Identifier: MIT */
/*
 * verbs.h - tracectl's commands, one table (verbs.c): each verb's name,
 * its usage line and help, the options it takes, and the function that
 * runs it. The table is what the verbs parse (their getopt_long options
 * are its own) and what tracectl --help lists; the manual page's synopsis
 * and the bash completion's word lists are checked against it by the
 * tests (tests/apps/verb-table prints it).
 *
 * Most verbs are one request to the session daemon, made the same way
 * (request.h): their entry gives the protocol verb, the positional
 * arguments and the function that builds the request's body, and takes
 * its options from the one option table they share (request_opts), as
 * the letters of `letters`. The others (view, aggregate,
 * show-aggregations, record) parse their own command line, with their
 * own option table.
 */
#ifndef SHMTRACE_TOOLS_VERBS_H
#define SHMTRACE_TOOLS_VERBS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "common/proto.h"

struct ctl_req;

struct verb {
	const char *name;
	const char *usage;		/* after "tracectl "; lines joined by "\n         " */
	const char *help;		/* what --help says after the usage */
	const struct option *longopts;	/* what getopt_long() reads */
	const char *shortopts;		/* ... its short options */
	const char *letters;		/* the options of longopts it takes (val); NULL: all */
	/* Run the verb: @argv[0] is its name. Returns the exit status. */
	int (*main)(const struct verb *v, int argc, char **argv);

	/* the verbs that are one request (request_main()) */
	enum proto_verb verb;
	int min_args, max_args;		/* positional arguments, the session's aside */
	int session_arg;		/* first positional argument names the session */
	int (*build)(struct ctl_req *r);	/* NULL: no body, no strings */
};

/* Every verb, in the order tracectl --help lists them. */
extern const struct verb verbs[];
extern const size_t nverbs;

/* The verb named @name, or NULL. */
const struct verb *verb_find(const char *name);

/*
 * Does @v take the option of longopts whose val is @val? --help,
 * --timeout and --format ('J', of the verbs that print a reply): every
 * verb whose options have them.
 */
static inline bool verb_takes(const struct verb *v, int val)
{
	return val == 'h' || val == 'T' || val == 'J' || !v->letters ||
	       (val && strchr(v->letters, val));
}

/*
 * getopt_long() over @v's own options (those verb_takes() admits), with
 * the messages a person needs: an unknown option, with the closest option
 * of @v when one is near ("did you mean"), or an option missing its value.
 * Returns the option's val, -1 after the last option, or '?' once the
 * message is printed (the verb then exits EXIT_USAGE).
 */
int verb_getopt(const struct verb *v, int argc, char **argv);

/* "usage: tracectl USAGE", a blank line and the help: what VERB --help prints. */
static inline void verb_help(const struct verb *v, FILE *out)
{
	fprintf(out, "usage: tracectl %s\n\n%s\n", v->usage, v->help);
}

#endif
