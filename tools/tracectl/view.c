/* SPDX-License-Identifier: MIT */
/*
 * view.c - tracectl view [NAME | -s NAME] [TRACE-READ OPTIONS]: the
 * session's output from its status (one request, ctl-client.h; the
 * session's record, REC_SESSION), then
 * trace-read --follow there (from our directory, else $PATH), with the
 * options given: they are trace-read's, but for the session (named as
 * with every other command: -s is not trace-read's --stats here) and
 * --timeout, ours wherever it is. A session streamed to a relay is not
 * read here: we say how to attach babeltrace2 to it; a memory-only one
 * writes nothing to follow: we say so.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ctl-client.h"
#include "common/proto.h"
#include "support/relay.h"
#include "render.h"
#include "verbs.h"
#include "view.h"

const struct option view_opts[] = {
	{ "session", required_argument, NULL, 's' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A streamed session: how to watch it with babeltrace2. */
static void view_relay(const struct rec_session *s)
{
	char host[256] = "HOST";
	const char *p = s->output + strcspn(s->output, ":") + 3;	/* after "net://" */
	size_t n = strcspn(p, ":/+");

	if (!strncmp(s->output, "net://", 6) || !strncmp(s->output, "tcp://", 6))
		snprintf(host, sizeof(host), "%.*s", (int)(n < sizeof(host) ? n : sizeof(host) - 1), p);
	printf("Session streamed to %s (on the relay: %s).\nWatch it with:\n  babeltrace2 -i "
	       "lttng-live net://%s:%u/host/%.*s/%s\n", s->output, s->relay_path, host,
	       RLY_LIVE_PORT, (int)strcspn(s->relay_path, "/"), s->relay_path, s->name);
	printf("(%u: the relay's live port unless it was started with another)\n", RLY_LIVE_PORT);
}

/* The session's output from its status, then trace-read --follow there. */
static int view_run(const char *home, int argc, char **argv)
{
	const char *session = "";
	char dir[PATH_MAX], prog[PATH_MAX + 16], output[PROTO_PATH_MAX];
	char *args[270];
	const struct rt_session *rs;
	struct ctl_reply rep;
	struct rtree t;
	int n = 0, ret, first = 1, k = 1;

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
	ret = ctl_request(home, "view", VERB_STATUS, session, NULL, 0, NULL, &rep);
	if (ret && rep.answered && rep.error && rep.error->code != RE_WRITE &&
	    rep.error->code != RE_NOT_WRITTEN && rep.error->code != RE_STREAMING &&
	    rep.error->code != RE_AGG_WRITE)
		render_refusal("view", &rep);	/* (a trace's trouble: it is still read) */
	else if (rep.answered)
		ret = 0;
	if (ret || rtree_build(&rep, &t) < 0) {
		ctl_reply_free(&rep);
		return ret ? ret : EXIT_RUNTIME;
	}
	rs = rtree_session(&t, session);
	if (!rs) {
		fprintf(stderr, "tracectl: view: %s\n", t.sessions.n ? "several sessions exist: name "
			"one" : "no session");
		rtree_free(&t);
		ctl_reply_free(&rep);
		return EXIT_RUNTIME;
	}
	if (rs->s->flags & REC_SESSION_STREAMED) {
		view_relay(rs->s);
		rtree_free(&t);
		ctl_reply_free(&rep);
		return 0;
	}
	if (rs->s->flags & REC_SESSION_MEMORY) {
		fprintf(stderr, "tracectl: view: session %s keeps its events in memory only: "
			"nothing is written to follow; 'tracectl snapshot %s' writes what its "
			"buffers hold\n", rs->s->name, rs->s->name);
		rtree_free(&t);
		ctl_reply_free(&rep);
		return EXIT_RUNTIME;
	}
	snprintf(output, sizeof(output), "%s", rs->s->output);
	rtree_free(&t);
	ctl_reply_free(&rep);
	if (ctl_exe_dir(dir, sizeof(dir)) < 0 ||
	    snprintf(prog, sizeof(prog), "%s/trace-read", dir) < 0 || access(prog, X_OK) < 0)
		snprintf(prog, sizeof(prog), "trace-read");
	args[n++] = prog;
	args[n++] = (char *)"--follow";
	for (int i = first; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = output;
	args[n] = NULL;
	execvp(prog, args);
	fprintf(stderr, "tracectl: view: cannot run %s: %s\n", prog, strerror(errno));
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
