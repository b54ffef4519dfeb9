/* SPDX-License-Identifier: MIT */
/*
 * view.c - tracectl view [NAME | -s NAME] [TRACE-READ OPTIONS]: the
 * session's output from its status (one request, ctl-client.h), then
 * trace-read --follow there (from our directory, else $PATH), with the
 * options given: they are trace-read's, but for the session (named as
 * with every other command: -s is not trace-read's --stats here) and
 * --timeout, ours wherever it is. A session streamed to a relay is not
 * read here: we say how to attach babeltrace2 to it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ctl-client.h"
#include "proto.h"
#include "relay.h"
#include "verbs.h"
#include "view.h"

const struct option view_opts[] = {
	{ "session", required_argument, NULL, 's' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The session's output from its status, then trace-read --follow there. */
static int view_run(const char *home, int argc, char **argv)
{
	const char *session = "";
	char *text = NULL, *line, dir[PATH_MAX], prog[PATH_MAX + 16];
	char *args[270];
	size_t len = 0;
	int n = 0, ret, first = 1, k = 1;
	FILE *out;

	/* --timeout is ours wherever it is (trace-read has none): out of argv */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--timeout") || !strncmp(argv[i], "--timeout=", 10)) {
			const char *v = argv[i][9] == '=' ? argv[i] + 10 : argv[i + 1];

			if (!v) {
				fprintf(stderr, "tracectl: view: '--timeout' needs a value\n");
				return EXIT_USAGE;
			}
			if (ctl_timeout_set(v, "--timeout") < 0)
				return EXIT_USAGE;
			i += argv[i][9] != '=';
			continue;
		}
		argv[k++] = argv[i];
	}
	argc = k;
	argv[argc] = NULL;
	if (argc > 1 && argv[1][0] != '-') {
		session = argv[first++];
	} else if (argc > 1 && (!strcmp(argv[1], "-s") || !strcmp(argv[1], "--session"))) {
		if (argc < 3) {
			fprintf(stderr, "tracectl: view: '%s' needs a value\n", argv[1]);
			return EXIT_USAGE;
		}
		session = argv[2];
		first = 3;
	} else if (argc > 1 && !strncmp(argv[1], "--session=", 10)) {
		session = argv[first++] + 10;
	}
	if (argc - first > 260) {
		fprintf(stderr, "tracectl: view: more than 260 trace-read options\n");
		return EXIT_USAGE;
	}
	out = open_memstream(&text, &len);
	if (!out)
		return EXIT_RUNTIME;
	ret = ctl_call(home, "view", VERB_STATUS, session, NULL, 0, NULL, out);
	fclose(out);
	line = text ? strstr(text, "\n  output: ") : NULL;
	if (ret || !line || (session[0] == 0 && strstr(line + 1, "\nSession "))) {
		if (!ret)
			fprintf(stderr, "tracectl: view: %s\n", line ? "several sessions exist: name "
				"one" : "no session");
		free(text);
		return ret ? ret : EXIT_RUNTIME;
	}
	line += strlen("\n  output: ");
	line[strcspn(line, "\n")] = 0;
	if (strncmp(line, "net://", 6) == 0 || strncmp(line, "tcp://", 6) == 0) {
		const char *rel = strstr(line, "(on the relay: ");
		char host[256] = "HOST", name[PROTO_NAME_MAX] = "NAME";

		sscanf(line + 6, "%255[^:/]", host);
		if (!strncmp(text, "Session ", 8))
			sscanf(text + 8, "%63[^:]", name);
		printf("Session streamed to %s.\nWatch it with:\n  babeltrace2 -i lttng-live "
		       "net://%s:%u/host/", line, host, RLY_LIVE_PORT);
		if (rel)
			printf("%.*s/%s\n", (int)strcspn(rel + 15, "/"), rel + 15, name);
		else
			printf("HOSTNAME/%s\n", name);
		printf("(%u: the relay's live port unless it was started with another)\n",
		       RLY_LIVE_PORT);
		free(text);
		return 0;
	}
	if (ctl_exe_dir(dir, sizeof(dir)) < 0 ||
	    snprintf(prog, sizeof(prog), "%s/trace-read", dir) < 0 || access(prog, X_OK) < 0)
		snprintf(prog, sizeof(prog), "trace-read");
	args[n++] = prog;
	args[n++] = (char *)"--follow";
	for (int i = first; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = line;
	args[n] = NULL;
	execvp(prog, args);
	fprintf(stderr, "tracectl: view: cannot run %s: %s\n", prog, strerror(errno));
	free(text);
	return EXIT_RUNTIME;
}

int view_main(const struct verb *v, int argc, char **argv)
{
	char home[1024];

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		verb_help(v, stdout);
		return EXIT_OK;
	}
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	return view_run(home, argc, argv);
}
