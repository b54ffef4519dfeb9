/* SPDX-License-Identifier: MIT */
/*
 * tracectl.h - what tracectl's commands share: one request to the session
 * daemon (started when none runs), and the record command.
 */
#ifndef SHMTRACE_TOOLS_TRACECTL_H
#define SHMTRACE_TOOLS_TRACECTL_H

#include <stddef.h>
#include <stdio.h>
#include "proto.h"

#define RECORD_USAGE \
	"record [--output DIR] [--preload libc,pthread,func,io|all] [--event PATTERN]...\n" \
	"         [--overwrite] [--pool-size N] [--context ip,cpu_id] [--no-wait] [--aggregate]\n" \
	"         [--allow-uid UID[,UID]...|all] [--set-url URL [--live[=PERIOD_US]]]\n" \
	"         [--] CMD [ARG]..."

/*
 * Send @verb for @session with @argc arguments to the daemon of @home and
 * print its text replies to @out (NULL: nowhere); errors go to standard
 * error, naming the command @name. Returns 0, 1 when refused or
 * unreachable, 2 on bad arguments.
 */
int ctl_command(const char *home, const char *name, enum proto_verb verb, const char *session,
		int argc, char **argv, FILE *out);

/*
 * --allow-uid's argument: "all", or uids and user names separated by
 * commas, into "all" or the uids as numbers. 0, or -EINVAL (said on
 * standard error for an unknown user).
 */
int ctl_parse_uids(const char *arg, char *out, size_t cap);

/*
 * The options of a session streamed to a relay, shared by create and
 * record: their long options, and ctl_net_option() putting the argument
 * of option @c in @net, create's arguments 4 to 7 (set-url, ctrl-url,
 * data-url, live; "" when not given, "-" for --live without a period).
 */
#define CTL_NET_LONGOPTS \
	{ "set-url", required_argument, NULL, 'S' }, \
	{ "ctrl-url", required_argument, NULL, 'K' }, \
	{ "data-url", required_argument, NULL, 'A' }, \
	{ "live", optional_argument, NULL, 'I' }
#define CTL_NET_NONE { (char *)"", (char *)"", (char *)"", (char *)"" }
void ctl_net_option(int c, char *arg, char *net[4]);

/* The directory of the running tracectl (for its daemons and helpers). */
int ctl_exe_dir(char *out, size_t cap);

#define AGG_USAGE \
	"aggregate [-s NAME] AGGREGATION EVENT_PATTERN [--filter EXPR] [--by FIELD[,FIELD]...]\n" \
	"         [--count] [--sum F] [--min F] [--max F] [--avg F] [--quantize F]\n" \
	"         [--lquantize F,LOW,HIGH,STEP] [--keys N] [--profile]"
#define SHOW_AGG_USAGE \
	"show-aggregations [-s NAME] [AGGREGATION] [--format text|json] [--interval SECS]"

/* tracectl aggregate / show-aggregations ARGS: argv[0] is the verb (aggctl.c). */
int agg_main(int argc, char **argv);

/* tracectl record ARGS: argv[0] is "record". Returns the exit status. */
int record_main(int argc, char **argv);

#endif
