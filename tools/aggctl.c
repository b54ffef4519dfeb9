// SPDX-License-Identifier: MIT
/*
 * aggctl.c - tracectl aggregate and show-aggregations.
 *
 * aggregate sends the session daemon NAME, PATTERN, then one "key=value"
 * setting per option in the order given (the functions' order is the
 * order they print in); the daemon checks them all (sessiond/aggcmd.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "home.h"
#include "tracectl.h"

#define AGG_HELP \
	"Keep an aggregation of the events whose \"provider:event\" name matches\n" \
	"EVENT_PATTERN, in every traced process, without writing the events: each\n" \
	"thread updates its own table in shared memory (no lock, nothing in the\n" \
	"ring buffers), merged when shown. Several functions at once; --count when\n" \
	"none is given. F names a field of the event (or $ctx.vtid, $ctx.vpid,\n" \
	"$ctx.cpu_id).\n" \
	"--by FIELD[,FIELD]...: up to 4 keys, integers or strings (told by the\n" \
	"events known now, or by FIELD:str / FIELD:int); strings keep 31 bytes.\n" \
	"--count; --sum F; --min F; --max F; --avg F; --quantize F (power-of-two\n" \
	"buckets, as DTrace); --lquantize F,LOW,HIGH,STEP (linear buckets from LOW\n" \
	"to HIGH, and one below and one above).\n" \
	"--filter EXPR: only events whose fields satisfy EXPR (as enable-event).\n" \
	"--keys N: keys a thread's table holds (default 1024, fewer for large\n" \
	"entries); a key that finds no room is counted as dropped and reported.\n" \
	"--profile: per process and function, calls, total and self time and\n" \
	"bytes allocated, from the func and libc preload helpers' events (what\n" \
	"record --aggregate uses); no pattern, keys nor functions.\n" \
	"Updates happen while the session is active; the events may be recorded\n" \
	"too (enable-event). At stop, OUTPUT/aggregations.json holds them all."

#define SHOW_AGG_HELP \
	"Print the session's aggregations (or the one named), merged over every\n" \
	"thread and process, exited and crashed ones included: as text (DTrace's\n" \
	"style, histograms as rows of value, bar and count) or as JSON (an array,\n" \
	"one object per aggregation; see trace-read --aggregations). With\n" \
	"--interval, again every SECS seconds until the session is gone."

/* The home of the session daemon to ask; 0, or 1 said. */
static int agg_home(char *home, size_t len)
{
	if (home_resolve(home, len) < 0 || home_prepare(home) < 0) {
		fprintf(stderr, "tracectl: no usable SHMTRACE_HOME\n");
		return 1;
	}
	return 0;
}

static int aggregate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'f' },
		{ "by", required_argument, NULL, 'b' },
		{ "count", no_argument, NULL, 'c' },
		{ "sum", required_argument, NULL, 'S' },
		{ "min", required_argument, NULL, 'm' },
		{ "max", required_argument, NULL, 'M' },
		{ "avg", required_argument, NULL, 'a' },
		{ "quantize", required_argument, NULL, 'q' },
		{ "lquantize", required_argument, NULL, 'l' },
		{ "keys", required_argument, NULL, 'k' },
		{ "profile", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char set[32][600];
	char *args[40], home[1024];
	const char *session = "";
	int c, n = 0, nargs = 2, profile = 0;

	while ((c = getopt_long(argc, argv, "s:f:h", opts, NULL)) != -1) {
		const char *key = NULL;

		switch (c) {
		case 's':
			session = optarg;
			continue;
		case 'h':
			printf("usage: tracectl %s\n\n%s\n", AGG_USAGE, AGG_HELP);
			return 0;
		case 'p':
			profile = 1;
			key = "profile";
			break;
		case 'c':
			key = "count";
			break;
		case 'f': key = "filter"; break;
		case 'b': key = "by"; break;
		case 'S': key = "sum"; break;
		case 'm': key = "min"; break;
		case 'M': key = "max"; break;
		case 'a': key = "avg"; break;
		case 'q': key = "quantize"; break;
		case 'l': key = "lquantize"; break;
		case 'k': key = "keys"; break;
		default:
			goto bad;
		}
		if (n == 32 || snprintf(set[n], sizeof(set[n]), "%s%s%s", key, optarg ? "=" : "",
					optarg ? optarg : "") >= (int)sizeof(set[n])) {
			fprintf(stderr, "tracectl: aggregate: too many or too long options\n");
			goto bad;
		}
		n++;
	}
	if (optind + (profile ? 1 : 2) != argc && optind + 2 != argc) {
		fprintf(stderr, "tracectl: aggregate: name the aggregation and an event pattern\n");
		goto bad;
	}
	args[0] = argv[optind];
	args[1] = optind + 1 < argc ? argv[optind + 1] : (char *)"-";
	for (int i = 0; i < n; i++)
		args[nargs++] = set[i];
	if (agg_home(home, sizeof(home)))
		return 1;
	return ctl_command(home, "aggregate", VERB_AGGREGATE, session, nargs, args, stdout);
bad:
	fprintf(stderr, "usage: tracectl %s\n", AGG_USAGE);
	return 2;
}

static int show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'F' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *args[2], format[16] = "format=text", *end, home[1024];
	const char *session = "";
	double interval = 0;
	int c, nargs = 0, ret;

	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			session = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "tracectl: show-aggregations: --format text or json\n");
				goto bad;
			}
			snprintf(format, sizeof(format), "format=%s", optarg);
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval > 0) || interval > 86400) {
				fprintf(stderr, "tracectl: show-aggregations: --interval: seconds, "
					"more than 0\n");
				goto bad;
			}
			break;
		case 'h':
			printf("usage: tracectl %s\n\n%s\n", SHOW_AGG_USAGE, SHOW_AGG_HELP);
			return 0;
		default:
			goto bad;
		}
	}
	if (argc - optind > 1)
		goto bad;
	if (optind < argc)
		args[nargs++] = argv[optind];
	args[nargs++] = format;
	if (agg_home(home, sizeof(home)))
		return 1;
	for (;;) {
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };

		ret = ctl_command(home, "show-aggregations", VERB_SHOW_AGG, session, nargs, args,
				  stdout);
		fflush(stdout);
		if (ret || !interval)
			return ret;
		nanosleep(&ts, NULL);
		if (!strcmp(format, "format=text"))
			printf("\n");
	}
bad:
	fprintf(stderr, "usage: tracectl %s\n", SHOW_AGG_USAGE);
	return 2;
}

int agg_main(int argc, char **argv)
{
	optind = 1;
	return !strcmp(argv[0], "aggregate") ? aggregate(argc, argv) : show(argc, argv);
}
