// SPDX-License-Identifier: MIT
/*
 * sinks.c - trace-read's table of modes (see sinks.h): printing, counting
 * and the analyses of analysis.h behind one set of callbacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "output.h"
#include "printers.h"
#include "procsyms.h"
#include "sinks.h"

/* ---- text and JSON ------------------------------------------------------- */

static int text_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	struct pr_state *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return -ENOMEM;
	ps->raw = a->raw;
	pr_set_hosts(r);
	*state = ps;
	return 0;
}

static int text_event(void *state, const struct shmtrace_rd_event *ev)
{
	pr_text(state, ev);
	return 0;
}

static int json_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	pr_set_hosts(r);
	*state = NULL;
	return 0;
}

static int json_event(void *state, const struct shmtrace_rd_event *ev)
{
	pr_json(ev);
	return 0;
}

static int print_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	free(state);
	return status;
}

/* ---- count ----------------------------------------------------------------- */

struct count {
	uint64_t **counts;		/* [trace][class] */
	size_t ntraces;
	uint64_t total;
};

static void count_free(struct count *c)
{
	for (size_t i = 0; c->counts && i < c->ntraces; i++)
		free(c->counts[i]);
	free(c->counts);
	free(c);
}

static int count_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	struct count *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->ntraces = shmtrace_rd_trace_count(r);
	c->counts = calloc(c->ntraces + 1, sizeof(*c->counts));
	if (!c->counts)
		goto nomem;
	for (size_t i = 0; i < c->ntraces; i++) {
		size_t n = shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i));

		c->counts[i] = calloc(n + 1, sizeof(**c->counts));
		if (!c->counts[i])
			goto nomem;
	}
	*state = c;
	return 0;
nomem:
	count_free(c);
	return -ENOMEM;
}

static int count_event(void *state, const struct shmtrace_rd_event *ev)
{
	struct count *c = state;

	c->counts[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))]
		[shmtrace_rd_event_class_index(ev)]++;
	c->total++;
	return 0;
}

struct name_count {
	const char *name;
	uint64_t count;
};

static int cmp_name_count(const void *a, const void *b)
{
	const struct name_count *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int print_counts(const struct shmtrace_rd_reader *r, uint64_t **counts,
			uint64_t total, uint64_t discarded)
{
	struct name_count *nc;
	size_t i, j, n = 0, cap = 0;
	char line[64];

	for (i = 0; i < shmtrace_rd_trace_count(r); i++)
		cap += shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i));
	nc = calloc(cap + 1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	for (i = 0; i < shmtrace_rd_trace_count(r); i++) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, i);

		for (j = 0; j < shmtrace_rd_trace_event_class_count(t); j++) {
			if (!counts[i][j])
				continue;
			nc[n].name = shmtrace_rd_trace_event_class_name(t, j);
			nc[n++].count = counts[i][j];
		}
	}
	qsort(nc, n, sizeof(*nc), cmp_name_count);
	for (i = 0; i < n; i = j) {
		uint64_t c = 0;

		for (j = i; j < n && !strcmp(nc[j].name, nc[i].name); j++)
			c += nc[j].count;
		snprintf(line, sizeof(line), "%12" PRIu64 "  ", c);
		out_cstr(line);
		out_cstr(nc[i].name);
		out_room();
		out_c('\n');
	}
	snprintf(line, sizeof(line), "%12" PRIu64 "  total\n", total);
	out_cstr(line);
	snprintf(line, sizeof(line), "%12" PRIu64 "  discarded\n", discarded);
	out_cstr(line);
	free(nc);
	return 0;
}

static int count_finish(void *state, const struct shmtrace_rd_reader *r, int status)
{
	struct count *c = state;
	uint64_t discarded = 0;

	if (!status) {
		for (size_t i = 0; i < shmtrace_rd_stream_count(r); i++)
			discarded += shmtrace_rd_stream_discarded(shmtrace_rd_stream_at(r, i));
		if (print_counts(r, c->counts, c->total, discarded) < 0)
			status = -ENOMEM;
	}
	count_free(c);
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

/* ---- latency ------------------------------------------------------------- */

static int latency_init(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a)
{
	char *comma = strchr(a->latency, ',');

	if (!comma || comma == a->latency || !comma[1]) {
		fprintf(stderr, "trace-read: usage: --latency BEGIN,END\n");
		return 1;
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
	*state = an_profile_new(procsyms_name, NULL);
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
	ch->f = out_file_open(ch->path);
	if (!ch->f) {
		free(ch);
		return 2;
	}
	ch->c = an_chrome_new(ch->f, procsyms_name, NULL);
	if (!ch->c) {
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
		fprintf(stderr, "trace-read: cannot write %s\n", ch->path);
		status = 2;
	}
	fclose(ch->f);
	free(ch);
	return status;
}

/* ---- the table ------------------------------------------------------------- */

static const struct sink sinks[] = {
	{ "text", SINK_PRINT | SINK_SYMBOLS, text_init, text_event, print_finish },
	{ "json", SINK_PRINT | SINK_SYMBOLS, json_init, json_event, print_finish },
	{ "count", 0, count_init, count_event, count_finish },
	{ "stats", SINK_DISCARDED, stats_init, stats_event, stats_finish },
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
