// SPDX-License-Identifier: MIT
/*
 * sinks.c - trace-read's table of modes (see sinks.h): printing and the
 * analyses (stats.h, latency.h, profile.h, chrome.h) behind one set of
 * callbacks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "exit-status.h"
#include "latency.h"
#include "output.h"
#include "printers.h"
#include "profile.h"
#include "sinks.h"
#include "stats.h"

/* ---- text and JSON ------------------------------------------------------- */

static int print_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	struct pr_state *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return -ENOMEM;
	ps->raw = a->raw;
	ps->syms = a->syms;
	pr_set_hosts(r);
	*state = ps;
	return 0;
}

static int text_event(void *state, const struct shmtrace_rd_event *ev)
{
	pr_text(state, ev);
	return 0;
}

static int json_event(void *state, const struct shmtrace_rd_event *ev)
{
	pr_json(state, ev);
	return 0;
}

static int print_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	free(state);
	return status;
}

/* ---- stats ----------------------------------------------------------------- */

static int stats_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	*state = an_stats_new(r);
	return *state ? 0 : -ENOMEM;
}

static int stats_event(void *state, const struct shmtrace_rd_event *ev)
{
	return an_stats_event(state, ev);
}

static int stats_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	if (status >= 0)
		an_stats_print(state, r, stdout);
	an_stats_free(state);
	return status;
}

/*
 * --stats=count: per class only; printed when every trace was read, to its
 * end or up to damaged stream files (their count then follows).
 */
static int stats_count_event(void *state, const struct shmtrace_rd_event *ev)
{
	return an_stats_count(state, ev);
}

static int stats_count_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	if ((status == EXIT_OK || status == EXIT_DAMAGED) &&
	    an_stats_print_counts(state, r, stdout) < 0)
		status = -ENOMEM;
	/* out before the warnings about discarded events, as --count was */
	fflush(stdout);
	an_stats_free(state);
	return status;
}

/* ---- latency ------------------------------------------------------------- */

static int latency_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	char *comma = strchr(a->latency, ',');

	if (!comma || comma == a->latency || !comma[1]) {
		fprintf(stderr, "trace-read: usage: --latency BEGIN,END\n");
		return EXIT_USAGE;
	}
	*comma = 0;
	*state = an_latency_new(a->latency, comma + 1, a->by, (uint64_t)a->slower);
	return *state ? 0 : -ENOMEM;
}

static int latency_event(void *state, const struct shmtrace_rd_event *ev)
{
	return an_latency_event(state, ev);
}

static int latency_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	if (status >= 0)
		an_latency_print(state, stdout);
	an_latency_free(state);
	return status;
}

/* ---- profile ------------------------------------------------------------- */

static int profile_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	*state = an_profile_new(a->syms);
	return *state ? 0 : -ENOMEM;
}

static int profile_event(void *state, const struct shmtrace_rd_event *ev)
{
	return an_profile_event(state, ev);
}

static int profile_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	if (status >= 0)
		an_profile_print(state, stdout);
	an_profile_free(state);
	return status;
}

/* ---- chrome ---------------------------------------------------------------- */

struct chrome {
	struct an_chrome *c;
	FILE *f;
	const char *path;
	int err;			/* the error that stopped the reading */
};

static int chrome_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	struct chrome *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return -ENOMEM;
	ch->path = a->export_file;
	ch->f = strcmp(ch->path, "-") ? out_file_open(ch->path) : stdout;
	if (!ch->f) {
		free(ch);
		return EXIT_RUNTIME;
	}
	ch->c = an_chrome_new(ch->f, a->syms);
	if (!ch->c) {
		if (ch->f != stdout)
			fclose(ch->f);
		free(ch);
		return -ENOMEM;
	}
	*state = ch;
	return 0;
}

static int chrome_event(void *state, const struct shmtrace_rd_event *ev)
{
	struct chrome *ch = state;
	int rc = an_chrome_event(ch->c, ev);

	if (rc < 0)
		ch->err = rc;
	return rc;
}

static int chrome_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	struct chrome *ch = state;

	if ((an_chrome_finish(ch->c) < 0 || ch->err < 0) && status >= 0) {
		fprintf(stderr, "trace-read: cannot write %s\n",
			ch->f == stdout ? "the standard output" : ch->path);
		status = EXIT_RUNTIME;
	}
	if (ch->f != stdout)
		fclose(ch->f);
	free(ch);
	return status;
}

/* ---- the table ------------------------------------------------------------- */

static const struct sink sinks[] = {
	{ "text", SINK_PRINT | SINK_SYMBOLS, print_init, text_event, print_finish },
	{ "json", SINK_PRINT | SINK_SYMBOLS, print_init, json_event, print_finish },
	{ "stats", SINK_DISCARDED, stats_init, stats_event, stats_finish },
	{ "stats=count", 0, stats_init, stats_count_event, stats_count_finish },
	{ "latency", 0, latency_init, latency_event, latency_finish },
	{ "profile", SINK_SYMBOLS, profile_init, profile_event, profile_finish },
	{ "chrome", SINK_SYMBOLS, chrome_init, chrome_event, chrome_finish },
};

const struct sink *sink_find(const char *name)
{
	for (size_t i = 0; i < sizeof(sinks) / sizeof(sinks[0]); i++)
		if (!strcmp(sinks[i].name, name))
			return &sinks[i];
	return NULL;
}
