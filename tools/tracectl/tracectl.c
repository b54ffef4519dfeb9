/* SPDX-License-Identifier: MIT */
/*
 * tracectl - control shmtrace tracing sessions.
 *
 * This file reads what comes before the command (--help, --version,
 * --timeout, help COMMAND), finds the command in the table of verbs
 * (verbs.h) and runs it; tracectl --help lists the table. Most commands
 * are one request to the session daemon of $SHMTRACE_HOME (request.h),
 * which is started (trace-sessiond --daemonize) when none runs
 * (ctl-client.c); view, aggregate, show-aggregations and record parse
 * their own command lines (view.h, aggctl.h, record.h). Every request
 * waits for the daemon at most its timeout (ctl-client.h): --timeout
 * DURATION before the command or among the options of any command,
 * SHMTRACE_CTL_TIMEOUT, else the verb's default.
 *
 * Replies are printed by render.c: text, or with --format json one JSON
 * document (doc/json.md).
 *
 * Exit status: 0 on success, 1 when the daemon refused the command or
 * cannot be reached or did not answer in time, or when stop, status or
 * destroy report traces that could not be written; 2 on bad usage, with
 * the reason. record has its own (record.c).
 */
#include <stdio.h>
#include <string.h>
#include "ctl-client.h"
#include "common/proto.h"
#include "support/protomsg.h"
#include "suggest.h"
#include "verbs.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: tracectl [--help] [--version] [--timeout DURATION] COMMAND [ARGS]\n\n"
		"Commands:\n");
	for (size_t i = 0; i < nverbs; i++)
		fprintf(out, "  %s\n", verbs[i].usage);
	fprintf(out, "\nDurations take a unit: ns, us, ms, s, m or h (e.g. 200ms). Sizes are\n"
		"bytes, or with k, M or G (KiB, MiB, GiB). Names of sessions, channels and\n"
		"aggregations: %s.\n", PROTO_NAME_RULES);
	fprintf(out, "\n--format text|json, among the options of every command but view: the\n"
		"reply as text (the default) or as one JSON document on one line, for\n"
		"scripts (its fields: doc/json.md); record prints its summary so on\n"
		"standard error.\n");
	fprintf(out, "\n--timeout DURATION, before the command or among its options (every\n"
		"command takes it), or SHMTRACE_CTL_TIMEOUT: give up, with status 1, when\n"
		"the session daemon says nothing for that long (0: never). Default 10s;\n"
		"10m for create, stop, destroy, rotate, snapshot, clear and show-aggregations,\n"
		"which wait for traces to be written out (or a relay), and give up after\n"
		"10s when the daemon is stopped or gone.\n");
	fprintf(out, "\n'tracectl COMMAND --help' or 'tracectl help COMMAND' describes a\n"
		"command. The session daemon of $SHMTRACE_HOME (default\n"
		"$XDG_RUNTIME_DIR/shmtrace, else ~/.shmtrace) is started when none runs.\n");
}

static int unknown_verb(const char *name)
{
	const char *names[64], *best;
	size_t n = 0;

	for (size_t i = 0; i < nverbs && n < 64; i++)
		names[n++] = verbs[i].name;
	best = suggest_word(name, names, n);
	if (best)
		fprintf(stderr, "tracectl: unknown command '%s'; did you mean '%s'?\n", name, best);
	else
		fprintf(stderr, "tracectl: unknown command '%s' (see tracectl --help)\n", name);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct verb *v;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc == 3) {	/* help COMMAND: COMMAND --help */
		char *help[] = { argv[0], argv[2], (char *)"--help", NULL };

		return main(3, help);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tracectl %s\n", PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (ctl_timeout_env() < 0)
		return EXIT_USAGE;
	/* --timeout before the command: that of every request */
	while (argc > 1 && (!strcmp(argv[1], "--timeout") || !strncmp(argv[1], "--timeout=", 10))) {
		int eq = argv[1][9] == '=', used = eq ? 1 : 2;

		if (!eq && argc < 3) {
			fprintf(stderr, "tracectl: '--timeout' needs a value\n");
			return EXIT_USAGE;
		}
		if (ctl_timeout_set(eq ? argv[1] + 10 : argv[2], "--timeout") < 0)
			return EXIT_USAGE;
		argv[used] = argv[0];
		argv += used;
		argc -= used;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	v = verb_find(argv[1]);
	if (!v)
		return unknown_verb(argv[1]);
	return v->main(v, argc - 1, argv + 1);
}
