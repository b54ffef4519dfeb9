// SPDX-License-Identifier: MIT
/*
 * sinks.h - what trace-read does with the events it reads. Each mode is
 * one entry of a table: its name, what it needs, and three callbacks that
 * main() calls in turn: init once the traces are open, event for each
 * selected event in time order, finish after the last one.
 *
 *	text	     print each event as text (printers.h), the default
 *	json	     print each event as a JSON object (--format json)
 *	stats	     events per name and thread, discarded events, time span
 *	stats=count  events per name, total, discarded (--stats=count, --count)
 *	latency	     pairs of BEGIN and END events (--latency)
 *	profile	     time per function (--profile)
 *	chrome	     Chrome trace event JSON into a file or stdout (--export chrome)
 *
 * The analyses themselves are in stats.h, latency.h, profile.h and
 * chrome.h; a sink adapts one to the table and owns what it opens.
 */
#ifndef SHMTRACE_TOOLS_SINKS_H
#define SHMTRACE_TOOLS_SINKS_H

#include <stdbool.h>
#include <stdint.h>
#include <shmtrace/reader.h>

/* What the options give the sinks. */
struct sink_args {
	bool raw;			/* -r: raw clock values (text) */
	char *latency;			/* --latency BEGIN,END (cut at the comma) */
	const char *by;			/* --by FIELD (latency) */
	int64_t slower;			/* --slower-than, ns; 0: none (latency) */
	const char *export_file;	/* --export chrome FILE; "-": stdout */
	struct shmtrace_rd_symbols *syms;	/* SINK_SYMBOLS: the symbol tables, or NULL */
};

enum sink_flags {
	SINK_PRINT = 1 << 0,		/* prints events: --follow, --aggregations */
	SINK_SYMBOLS = 1 << 1,		/* names addresses: gets the symbol tables */
	SINK_DISCARDED = 1 << 2,	/* reports discarded events itself */
};

struct sink {
	const char *name;
	unsigned flags;			/* enum sink_flags */
	/*
	 * Set up *@state for the traces of @r (NULL with --follow, which
	 * reopens them at every round). 0; -ENOMEM; or an exit status > 0
	 * after a message (bad arguments, a file that cannot be written),
	 * *@state freed.
	 */
	int (*init)(void **state, const struct shmtrace_rd_reader *r, struct sink_args *a);
	/* One selected event: 0, or < 0 to stop reading (-ENOMEM, -EIO). */
	int (*event)(void *state, const struct shmtrace_rd_event *ev);
	/*
	 * After the last event: print the results and free @state. @status
	 * is 0 when every trace was read to its end, EXIT_DAMAGED when some
	 * stream files were damaged (every other one was read to its end: a
	 * sink prints its results as usual), EXIT_RUNTIME after an error
	 * that stopped the reading (a sink prints what it has, or nothing),
	 * < 0 when trace-read gives up (free only). Returns the exit status,
	 * or -ENOMEM.
	 */
	int (*finish)(void *state, const struct shmtrace_rd_reader *r, int status);
};

/* The sink named @name, or NULL. */
const struct sink *sink_find(const char *name);

#endif
