/* SPDX-License-Identifier: MIT */
/*
 * ctl-client.h - the client side of the command protocol (MSG_CMD,
 * common/proto.h): one request to the session daemon of a home, started
 * when none runs, its replies printed. Used by every tracectl command.
 */
#ifndef SHMTRACE_TOOLS_CTL_CLIENT_H
#define SHMTRACE_TOOLS_CTL_CLIENT_H

#include <stddef.h>
#include <stdio.h>
#include "exit-status.h"
#include "proto.h"


/*
 * Send @verb for @session with the verb's body @body (its struct cmd_*,
 * or NULL for verbs without one) and @nstr strings to the daemon of
 * @home, and print its text replies to @out (NULL: nowhere). Errors go to
 * standard error, naming the command @name. Returns EXIT_OK, EXIT_RUNTIME
 * when refused or unreachable, EXIT_USAGE when the request is too long.
 */
int ctl_call(const char *home, const char *name, enum proto_verb verb, const char *session,
	     const void *body, unsigned int nstr, const char *const *str, FILE *out);

/*
 * --allow-uid's argument: "all", or uids and user names separated by
 * commas, into @c. 0, or -EINVAL (said on standard error: an unknown
 * user, more than PROTO_ALLOW_MAX uids).
 */
int ctl_parse_uids(const char *arg, struct cmd_create *c);

/*
 * The options of a session streamed to a relay, shared by create and
 * record: their long options, and ctl_net_option() putting the argument
 * of option @c into @cr. 0, or -EINVAL (said: too long, a bad period).
 */
#define CTL_NET_LONGOPTS \
	{ "set-url", required_argument, NULL, 'S' }, \
	{ "ctrl-url", required_argument, NULL, 'K' }, \
	{ "data-url", required_argument, NULL, 'A' }, \
	{ "live", optional_argument, NULL, 'I' }
int ctl_net_option(int c, const char *arg, struct cmd_create *cr);

/* @arg as an absolute path in @out (relative to the working directory). */
int ctl_abspath(const char *arg, char *out, size_t cap);

/* The directory of the running program (for its daemons and helpers). */
int ctl_exe_dir(char *out, size_t cap);

/* The home to talk to, resolved and checked; 0, or EXIT_RUNTIME said. */
int ctl_home(char *home, size_t cap);

#endif
