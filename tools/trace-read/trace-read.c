/* SPDX-License-Identifier: MIT */
/*
 * trace-read.c - command line trace reader: prints the events of shmtrace
 * CTF traces merged in time order, one per line, in a babeltrace2-like
 * text format or as JSON, or analyses them; or prints the aggregations of
 * a session.
 *
 * This file reads the options and runs the reading loop: the reader
 * library (libreader/, <shmtrace/reader.h>) decodes and merges the
 * events, reader-select.h keeps the selected ones, and the mode the options name
 * gets them through the table of sinks.h (text and JSON: printers.h, on
 * output.h's buffer; the analyses: stats.h, latency.h, profile.h,
 * chrome.h). The reader library's symbol tables (shmtrace_rd_sym_*()),
 * for the modes that name functions, see every event, selected or not,
 * so that function names follow the state dumps; --no-symbols turns them
 * off. --follow (follow.h) and --aggregations (aggprint.h) have their own
 * loops.
 *
 * A damaged stream file ends there (the reader library keeps damage per
 * stream): every other stream is read and handed to the mode to its end,
 * then each damaged file is named on standard error, with the offset.
 *
 * Exit status: exit-status.h (2 for a bad command line, 3 for a damaged
 * trace, 1 for other errors), the same as tracectl's.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <shmtrace/reader.h>
#include "aggprint.h"
#include "exit-status.h"
#include "common/filter.h"
#include "follow.h"
#include "common/glob.h"
#include "output.h"
#include "printers.h"
#include "reader-select.h"
#include "sinks.h"
#include "suggest.h"
#include "support/units.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: trace-read [OPTION]... PATH...\n"
		"  or:  trace-read --aggregations DIR [--format FMT] [--name NAME]\n"
		"Print the events of the CTF traces (shmtrace's, LTTng-UST's) found\n"
		"under each PATH (a trace directory or a session directory), merged\n"
		"in time order, or analyse them; or print the aggregations of a\n"
		"session.\n"
		"\n"
		"Output:\n"
		"      --format FMT      text (default: [time] (+delta) proc:pid:tid\n"
		"                        provider:event: { field = value, ... }) or json\n"
		"                        (one object per line)\n"
		"      --time-format TF  clock (default, local time of day), date,\n"
		"                        epoch (seconds) or relative (to the first event)\n"
		"  -r, --clock-raw       raw clock values instead of times\n"
		"      --no-symbols      addresses without the function names found from\n"
		"                        the traced processes' state dumps\n"
		"      --follow          print events as the consumer writes them into\n"
		"                        PATH (a session's output), in time order, held\n"
		"                        back by the session's flush interval, until the\n"
		"                        session is stopped or destroyed (like tail -f)\n"
		"Selection (combined with and):\n"
		"  -e, --event PATTERN   events whose provider:event matches (repeatable)\n"
		"  -f, --filter EXPR     events whose fields satisfy EXPR, e.g.\n"
		"                        'seq >= 500 && (path == \"/tmp/*\" || !ok)';\n"
		"                        a name is a payload field, else a context field\n"
		"                        (cpu_id); $ctx.NAME a context field only; also\n"
		"                        $ctx.pid, $ctx.tid ($ctx.vpid, $ctx.vtid),\n"
		"                        $ctx.procname\n"
		"      --pid PID, --tid TID   (repeatable)\n"
		"      --begin T, --end T     T: seconds since the Epoch, a time of day\n"
		"                        (HH:MM:SS.frac) or +DURATION from the first event\n"
		"                        (--end +DURATION: from --begin when given)\n"
		"Analyses (instead of printing events):\n"
		"  -s, --stats           events per name and thread, discarded events per\n"
		"                        process and stream, time span and rate\n"
		"      --stats=count     in short, for scripts: events per name, then the\n"
		"                        total and the discarded events, one count a line\n"
		"  -c, --count           the same as --stats=count\n"
		"  -l, --latency BEGIN,END   pair BEGIN and END events (name patterns) per\n"
		"                        thread: count, min, p50, p90, p99, p99.9, max and\n"
		"                        a power-of-two histogram\n"
		"      --by FIELD        pair by the value of FIELD (as in --filter)\n"
		"                        instead of the thread\n"
		"      --slower-than D   list the pairs longer than D (e.g. 1ms, 250us)\n"
		"  -p, --profile         calls, total and self time per function from\n"
		"                        function entry/exit events, bytes allocated\n"
		"      --export chrome FILE   Chrome trace event JSON (Perfetto UI,\n"
		"                        chrome://tracing) into FILE, - for the\n"
		"                        standard output\n"
		"Aggregations (instead of traces):\n"
		"      --aggregations DIR   the aggregations that the consumer wrote\n"
		"                        into DIR/aggregations.json when the session\n"
		"                        stopped (DIR: the session's output, or the\n"
		"                        file itself), as DTrace-style text, or with\n"
		"                        --format json as one JSON document: an array\n"
		"                        of one object per aggregation, with its\n"
		"                        definition (doc/trace-format.md); function\n"
		"                        profiles (record --aggregate) as --profile\n"
		"                        prints them, named from the traces in DIR\n"
		"      --name NAME       only the aggregation(s) named NAME\n"
		"  -h, --help, -V, --version\n"
		"\n"
		"Exit status: 0 on success; 1 on other errors (no trace under PATH, no\n"
		"aggregation NAME, an unreadable file); 2 on a bad command line; 3 on a\n"
		"damaged trace or aggregations.json: every undamaged stream is read to\n"
		"its end first, then each damaged file is named with the byte offset.\n");
}

enum {
	OPT_NO_SYMBOLS = 256, OPT_FORMAT, OPT_TIME_FORMAT, OPT_PID, OPT_TID, OPT_BEGIN, OPT_END,
	OPT_BY, OPT_SLOWER, OPT_EXPORT, OPT_FOLLOW, OPT_AGGREGATIONS, OPT_NAME,
};

struct follow_arg {
	const struct sink *sink;
	void *state;
	struct sel *sel;
};

/* --end before --begin: said (before anything is printed). */
static void window_bad(void)
{
	fprintf(stderr, "trace-read: --end is before --begin: nothing can be selected\n");
}

/*
 * A name pattern of option @opt that matches no event class of @r's
 * traces is most likely a typo: said before reading, with the closest
 * name. Only a warning: the events are read all the same.
 */
static void warn_pattern(const struct shmtrace_rd_reader *r, const char *opt, const char *pat)
{
	const char *names[512], *near;
	size_t n = 0;

	for (size_t t = 0; t < shmtrace_rd_trace_count(r); t++) {
		const struct shmtrace_rd_trace *tr = shmtrace_rd_trace_at(r, t);

		for (size_t i = 0; i < shmtrace_rd_trace_event_class_count(tr); i++) {
			const char *name = shmtrace_rd_trace_event_class_name(tr, i);

			if (!name)
				continue;
			if (glob_match(pat, name))
				return;
			if (n < sizeof(names) / sizeof(names[0]))
				names[n++] = name;
		}
	}
	near = suggest_word(pat, names, n);
	fprintf(stderr, "trace-read: warning: %s '%s' matches no event of these traces%s%s%s\n",
		opt, pat, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* The name patterns of --event and --latency, checked by warn_pattern(). */
static void warn_patterns(const struct shmtrace_rd_reader *r, const struct sel *sel,
			  const char *latency)
{
	const char *pat;
	char *comma;

	for (size_t i = 0; (pat = sel_event_pattern(sel, i)); i++)
		warn_pattern(r, "--event", pat);
	if (!latency || !(comma = strchr(latency, ',')))
		return;
	*comma = 0;
	warn_pattern(r, "--latency", latency);
	warn_pattern(r, "--latency", comma + 1);
	*comma = ',';
}

/* After reading: the filter's fields that no event read had. */
static void warn_fields(const struct sel *sel)
{
	const char *name, *near;

	for (unsigned int k = 0; k < FLT_MAX_FIELDS; k++)
		if ((name = sel_field_missing(sel, k, &near)))
			fprintf(stderr, "trace-read: warning: --filter: no event read has a "
				"field '%s'%s%s%s\n", name, near ? "; did you mean '" : "",
				near ? near : "", near ? "'?" : "");
}

static int follow_event(const struct shmtrace_rd_event *ev, void *arg)
{
	struct follow_arg *fa = arg;

	if (sel_active(fa->sel)) {
		int m = sel_match(fa->sel, ev);

		if (m < 0) {
			window_bad();	/* at the first event: nothing printed yet */
			exit(EXIT_USAGE);
		}
		if (m == 2)
			return -ECANCELED;	/* past --end */
		if (!m)
			return 0;
	}
	return fa->sink->event(fa->state, ev);
}

static void follow_round(void *arg)
{
	out_flush();
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* On a terminal, a line on stderr now and then while a long read runs. */
static void progress(uint64_t n, int64_t t0, int *shown)
{
	struct timespec ts;
	int64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (now - t0 < 1000000000)
		return;
	fprintf(stderr, "\rtrace-read: %" PRIu64 " events, %.1f M/s   ", n,
		(double)n * 1e3 / (double)(now - t0));
	*shown = 1;
}

/* Discarded events and lost packets of every stream, on standard error. */
static void warn_discarded(const struct shmtrace_rd_reader *r)
{
	for (size_t i = 0; i < shmtrace_rd_stream_count(r); i++) {
		const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, i);

		if (shmtrace_rd_stream_discarded(s))
			fprintf(stderr, "WARNING: %" PRIu64 " events discarded in %s\n",
				shmtrace_rd_stream_discarded(s), shmtrace_rd_stream_path(s));
		if (shmtrace_rd_stream_lost_packets(s))
			fprintf(stderr, "WARNING: %" PRIu64 " packets lost in %s\n",
				shmtrace_rd_stream_lost_packets(s), shmtrace_rd_stream_path(s));
	}
}

/*
 * After the reading loop ended with @rc (0 at the end, 1 when it stopped
 * early, < 0 an error): the exit status. The damaged files (every one,
 * file and offset) are said by follow_say_damage().
 */
static int read_status(const struct shmtrace_rd_reader *r, int rc)
{
	if (rc < 0)
		return exit_of_read_error(rc);
	return shmtrace_rd_damage_count(r) ? EXIT_DAMAGED : EXIT_OK;
}

/* Free the selection, return @status: for the exits before the trace is open. */
static int sel_done(struct sel *sel, int status)
{
	sel_free(sel);
	return status;
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "trace-read: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
	return EXIT_USAGE;
}

/*
 * Choose the mode @name, asked for by option @opt: a second, different mode
 * is refused (--stats --profile would print only one of them). 0, or the
 * exit status.
 */
static int set_mode(const char **mode, const char **by, const char *name, const char *opt)
{
	if (*by && strcmp(*mode, name)) {
		fprintf(stderr, "trace-read: %s and %s cannot be used together: run "
			"trace-read once for each\n", *by, opt);
		return EXIT_USAGE;
	}
	*mode = name;
	*by = opt;
	return 0;
}

/* A --pid or --tid: a decimal number, > 0; -1 (said) when it is not. */
static long long id_arg(const char *opt, const char *arg, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > max) {
		fprintf(stderr, "trace-read: --%s '%s': a number from 1 to %lld\n", opt, arg, max);
		return -1;
	}
	return v;
}

/* --follow: print the events of @dir as they come; the exit status. */
static int follow(const char *dir, const struct sink *sink, struct sink_args *args,
		  struct sel *sel)
{
	struct follow_arg fa = { .sink = sink, .sel = sel };
	int status;

	status = sink->init(&fa.state, NULL, args);
	if (status < 0) {
		fprintf(stderr, "trace-read: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (status)
		return status;
	raise_fd_limit();
	status = follow_run(dir, follow_event, follow_round, &fa);
	out_flush();
	if (status == -ECANCELED)
		status = EXIT_OK;
	else if (status < 0)
		status = EXIT_RUNTIME;
	sink->finish(fa.state, NULL, -ECANCELED);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "clock-raw", no_argument, NULL, 'r' },
		{ "count", no_argument, NULL, 'c' },
		{ "stats", optional_argument, NULL, 's' },
		{ "latency", required_argument, NULL, 'l' },
		{ "profile", no_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "time-format", required_argument, NULL, OPT_TIME_FORMAT },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "begin", required_argument, NULL, OPT_BEGIN },
		{ "end", required_argument, NULL, OPT_END },
		{ "by", required_argument, NULL, OPT_BY },
		{ "slower-than", required_argument, NULL, OPT_SLOWER },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "aggregations", required_argument, NULL, OPT_AGGREGATIONS },
		{ "name", required_argument, NULL, OPT_NAME },
		{ NULL, 0, NULL, 0 },
	};
	struct sink_args args = { 0 };
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r = NULL;
	struct sel *sel = sel_new();
	const struct sink *sink;
	void *state = NULL;
	uint64_t nread = 0;
	char err[SHMTRACE_RD_ERRLEN];
	const char *mode = "text", *mode_by = NULL, *aggregations = NULL, *agg_name = NULL;
	bool symbols = true, follow_on = false, sink_open = false;
	int c, rc, status = 0, tty = isatty(2), shown = 0, ret = 0;
	int64_t t0 = 0;

	if (!sel)
		return EXIT_RUNTIME;
	while ((c = getopt_long(argc, argv, "hVrcsl:pe:f:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return sel_done(sel, 0);
		case 'V':
			printf("trace-read (shmtrace) %s\n", PACKAGE_VERSION);
			return sel_done(sel, 0);
		case 'r':
			args.raw = true;
			break;
		case 'c':
			if ((rc = set_mode(&mode, &mode_by, "stats=count", "--count")))
				return sel_done(sel, rc);
			break;
		case 's':
			/* -s takes no argument: optarg is --stats=MODE's */
			if (optarg && strcmp(optarg, "count"))
				return sel_done(sel, bad_usage("unknown --stats mode (the one mode is "
								 "'count')", optarg));
			rc = set_mode(&mode, &mode_by, optarg ? "stats=count" : "stats",
				      optarg ? "--stats=count" : "--stats");
			if (rc)
				return sel_done(sel, rc);
			break;
		case 'l':
			if ((rc = set_mode(&mode, &mode_by, "latency", "--latency")))
				return sel_done(sel, rc);
			args.latency = optarg;
			break;
		case 'p':
			if ((rc = set_mode(&mode, &mode_by, "profile", "--profile")))
				return sel_done(sel, rc);
			break;
		case 'e':
			if (sel_add_event(sel, optarg) < 0) {
				fprintf(stderr, "trace-read: out of memory\n");
				return sel_done(sel, EXIT_RUNTIME);
			}
			break;
		case 'f':
			if (sel_set_filter(sel, optarg, err, sizeof(err)) < 0)
				return sel_done(sel, bad_usage("bad filter", err));
			break;
		case OPT_NO_SYMBOLS:
			symbols = false;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return sel_done(sel, bad_usage("unknown format (text or json)",
							       optarg));
			rc = set_mode(&mode, &mode_by, optarg, !strcmp(optarg, "json") ?
				      "--format json" : "--format text");
			if (rc)
				return sel_done(sel, rc);
			break;
		case OPT_TIME_FORMAT:
			if (pr_set_time_format(optarg) < 0)
				return sel_done(sel, bad_usage("unknown time format (clock, date, "
							       "epoch or relative)", optarg));
			break;
		case OPT_PID:
		case OPT_TID: {
			long long id = id_arg(c == OPT_PID ? "pid" : "tid", optarg, INT32_MAX);

			if (id < 0)
				return sel_done(sel, EXIT_USAGE);
			if (c == OPT_PID)
				sel_add_pid(sel, id);
			else
				sel_add_tid(sel, (uint32_t)id);
			break;
		}
		case OPT_BEGIN:
		case OPT_END: {
			int why = (c == OPT_BEGIN ? sel_set_begin : sel_set_end)(sel, optarg);

			if (why < 0) {
				fprintf(stderr, "trace-read: --%s '%s': %s\n",
					c == OPT_BEGIN ? "begin" : "end", optarg, optarg[0] == '+' ?
					units_why(why, 0) : "seconds since the Epoch, a time of "
					"day (HH:MM:SS.frac) or +DURATION");
				return sel_done(sel, EXIT_USAGE);
			}
			break;
		}
		case OPT_BY:
			args.by = optarg;
			break;
		case OPT_SLOWER: {
			uint64_t ns = 0;
			int why = units_duration(optarg, &ns);

			if (why < 0 || !ns || ns > INT64_MAX) {
				fprintf(stderr, "trace-read: --slower-than '%s': %s\n", optarg,
					why < 0 ? units_why(why, 0) : "more than 0");
				return sel_done(sel, EXIT_USAGE);
			}
			args.slower = (int64_t)ns;
			break;
		}
		case OPT_FOLLOW:
			follow_on = true;
			break;
		case OPT_AGGREGATIONS:
			aggregations = optarg;
			break;
		case OPT_NAME:
			agg_name = optarg;
			break;
		case OPT_EXPORT:
			if (strcmp(optarg, "chrome") || optind >= argc)
				return sel_done(sel, bad_usage("usage: --export chrome FILE", NULL));
			if ((rc = set_mode(&mode, &mode_by, "chrome", "--export chrome")))
				return sel_done(sel, rc);
			args.export_file = argv[optind++];
			break;
		default: {
			/* getopt said what it did not know; the closest option, if any */
			const char *near = optind > 1 ? suggest_option(argv[optind - 1], opts) :
					   NULL;

			if (near)
				fprintf(stderr, "trace-read: did you mean '--%s'?\n", near);
			fprintf(stderr, "Try 'trace-read --help' for the options.\n");
			return sel_done(sel, EXIT_USAGE);
		}
		}
	}
	sink = sink_find(mode);
	if (agg_name && !aggregations)
		return sel_done(sel, bad_usage("--name goes with --aggregations", NULL));
	if (aggregations) {
		if (optind < argc)
			return sel_done(sel, bad_usage("--aggregations reads DIR, not PATH",
						       argv[optind]));
		if (!(sink->flags & SINK_PRINT) || follow_on || sel_active(sel))
			return sel_done(sel, bad_usage("--aggregations goes with --format and "
						       "--name only", NULL));
		return sel_done(sel, aggprint(aggregations, !strcmp(mode, "json"), agg_name,
					      symbols));
	}
	if (sel_window_bad(sel)) {
		window_bad();
		return sel_done(sel, EXIT_USAGE);
	}
	if (optind >= argc) {
		fprintf(stderr, "trace-read: missing PATH\n");
		usage(stderr);
		return sel_done(sel, EXIT_USAGE);
	}
	if ((args.by || args.slower) && strcmp(mode, "latency"))
		return sel_done(sel, bad_usage("--by and --slower-than go with --latency", NULL));
	tzset();
	if (follow_on) {
		if (!(sink->flags & SINK_PRINT) || argc - optind != 1)
			return sel_done(sel, bad_usage("--follow prints the events of one PATH",
						       NULL));
		return sel_done(sel, follow(argv[optind], sink, &args, sel));
	}
	raise_fd_limit();

	rc = shmtrace_rd_open(&r, (const char *const *)argv + optind, argc - optind,
			      err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s\n", err);
		return sel_done(sel, exit_of_read_error(rc));
	}
	if ((sink->flags & SINK_SYMBOLS) && symbols &&
	    shmtrace_rd_sym_open(&args.syms, r, NULL, out_warn, NULL) < 0)
		goto nomem;
	warn_patterns(r, sel, args.latency);
	rc = sink->init(&state, r, &args);
	if (rc < 0)
		goto nomem;
	if (rc) {
		status = rc;
		goto out;
	}
	sink_open = true;
	if (tty) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}

	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		if (tty && !(++nread & 0xfffff))
			progress(nread, t0, &shown);
		if (args.syms)
			shmtrace_rd_sym_track(args.syms, ev);
		if (sel_active(sel)) {
			int m = sel_match(sel, ev);

			if (m < 0) {
				window_bad();
				status = EXIT_USAGE;
				goto out;
			}
			if (m == 2)
				break;
			if (!m)
				continue;
		}
		ret = sink->event(state, ev);
		if (ret < 0)
			break;
	}
	if (shown)
		fprintf(stderr, "\r%60s\r", "");
	if (ret == -ENOMEM)
		goto nomem;
	/* every undamaged stream was read to its end (or to --end) */
	status = read_status(r, rc);
	out_flush();
	sink_open = false;
	status = sink->finish(state, r, status);
	if (status < 0)
		goto nomem;
	out_flush();
	if (!(sink->flags & SINK_DISCARDED))
		warn_discarded(r);
	warn_fields(sel);
	follow_say_damage(r, rc);
	if (out_check() && !status)
		status = EXIT_RUNTIME;
out:
	if (sink_open)
		sink->finish(state, r, -ENOMEM);
	sel_free(sel);
	shmtrace_rd_sym_close(args.syms);
	shmtrace_rd_close(r);
	return status;
nomem:
	out_flush();
	fprintf(stderr, "trace-read: out of memory\n");
	status = EXIT_RUNTIME;
	goto out;
}
