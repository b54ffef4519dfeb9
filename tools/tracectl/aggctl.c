// SPDX-License-Identifier: MIT
/*
 * aggctl.c - tracectl aggregate and show-aggregations.
 *
 * aggregate sends the session daemon a struct cmd_aggregate: the name,
 * the pattern, the keys and the functions in the order given (the order
 * they print in); the daemon checks it all (sessiond/aggcmd.c).
 * show-aggregations prints what the consumer merged: its text, or with
 * --format json its JSON (an array, one object per aggregation) as the
 * "results" of tracectl's document (render.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/agg.h"
#include "aggctl.h"
#include "ctl-client.h"
#include "render.h"
#include "support/units.h"
#include "verbs.h"

/* One function of @a, from its option: "F", or "F,LOW,HIGH,STEP" for lquantize. */
static int agg_func(struct cmd_aggregate *a, uint32_t fn, const char *arg)
{
	struct cmd_agg_func *f = &a->func[a->nfuncs];
	long long lo, hi, step;
	char end;

	if (a->nfuncs == CMD_AGG_FUNCS) {
		fprintf(stderr, "tracectl: aggregate: at most %d functions\n", CMD_AGG_FUNCS);
		return -EINVAL;
	}
	f->fn = fn;
	if (fn == AGG_LQUANTIZE) {
		if (sscanf(arg, "%63[^,],%lld,%lld,%lld%c", f->field, &lo, &hi, &step, &end) != 4 ||
		    step <= 0 || step > INT32_MAX || lo >= hi) {
			fprintf(stderr, "tracectl: aggregate: --lquantize FIELD,LOW,HIGH,STEP with "
				"LOW < HIGH and STEP > 0, not '%s'\n", arg);
			return -EINVAL;
		}
		f->low = lo;
		f->high = hi;
		f->step = (int32_t)step;
	} else if (arg && snprintf(f->field, sizeof(f->field), "%s", arg) >= (int)sizeof(f->field)) {
		fprintf(stderr, "tracectl: aggregate: field name too long: '%s'\n", arg);
		return -EINVAL;
	}
	a->nfuncs++;
	return 0;
}

/* --by F[:str|:int],... into the keys of @a. */
static int agg_keys(struct cmd_aggregate *a, char *list)
{
	char *save = NULL;

	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (a->nkeys == CMD_AGG_KEYS) {
			fprintf(stderr, "tracectl: aggregate: --by: at most %d keys\n", CMD_AGG_KEYS);
			return -EINVAL;
		}
		if (snprintf(a->key[a->nkeys], CMD_AGG_FIELD, "%s", f) >= CMD_AGG_FIELD) {
			fprintf(stderr, "tracectl: aggregate: --by: field name too long: '%s'\n", f);
			return -EINVAL;
		}
		a->nkeys++;
	}
	return 0;
}

const struct option agg_opts[] = {
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
	{ "timeout", required_argument, NULL, 'T' },
	{ "format", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct option show_agg_opts[] = {
	{ "session", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'F' },
	{ "interval", required_argument, NULL, 'i' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int agg_main(const struct verb *v, int argc, char **argv)
{
	static struct cmd_aggregate a;
	const char *session = "", *filter = NULL;
	enum ctl_format fmt = CTL_TEXT;
	char home[1024];
	uint64_t keys;
	int c, ret = 0;

	optind = 1;
	while ((c = verb_getopt(v, argc, argv)) != -1) {
		switch (c) {
		case 's': session = optarg; break;
		case 'f': filter = optarg; break;
		case 'p': a.flags |= CMD_AGG_PROFILE; break;
		case 'T': ret = ctl_timeout_set(optarg, "--timeout"); break;
		case 'J': ret = ctl_format_parse("aggregate", optarg, &fmt); break;
		case 'b': ret = agg_keys(&a, optarg); break;
		case 'c': ret = agg_func(&a, AGG_COUNT, NULL); break;
		case 'S': ret = agg_func(&a, AGG_SUM, optarg); break;
		case 'm': ret = agg_func(&a, AGG_MIN, optarg); break;
		case 'M': ret = agg_func(&a, AGG_MAX, optarg); break;
		case 'a': ret = agg_func(&a, AGG_AVG, optarg); break;
		case 'q': ret = agg_func(&a, AGG_QUANTIZE, optarg); break;
		case 'l': ret = agg_func(&a, AGG_LQUANTIZE, optarg); break;
		case 'k':
			if (units_size(optarg, &keys) < 0 || !keys || keys > UINT32_MAX) {
				fprintf(stderr, "tracectl: aggregate: --keys: a number of keys, not "
					"'%s'\n", optarg);
				ret = -EINVAL;
			}
			a.keys = (uint32_t)keys;
			break;
		case 'h':
			verb_help(v, stdout);
			return EXIT_OK;
		default:
			ret = -EINVAL;
			break;
		}
		if (ret < 0)
			goto bad;
	}
	if (optind + ((a.flags & CMD_AGG_PROFILE) ? 1 : 2) != argc) {
		fprintf(stderr, "tracectl: aggregate: name the aggregation and an event pattern%s\n",
			(a.flags & CMD_AGG_PROFILE) ? " (none with --profile)" : "");
		goto bad;
	}
	if (snprintf(a.name, sizeof(a.name), "%s", argv[optind]) >= (int)sizeof(a.name) ||
	    (optind + 1 < argc && snprintf(a.pattern, sizeof(a.pattern), "%s",
					   argv[optind + 1]) >= (int)sizeof(a.pattern))) {
		fprintf(stderr, "tracectl: aggregate: name or pattern too long\n");
		goto bad;
	}
	a.filter = filter != NULL;
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	return ctl_call(home, "aggregate", VERB_AGGREGATE, session, &a, a.filter, &filter, fmt);
bad:
	fprintf(stderr, "usage: tracectl %s\n", v->usage);
	return EXIT_USAGE;
}

int show_agg_main(const struct verb *v, int argc, char **argv)
{
	struct cmd_show_agg m = { .format = PROTO_AGG_TEXT };
	enum ctl_format fmt = CTL_TEXT;
	const char *session = "";
	char home[1024];
	uint64_t interval = 0;
	int c, ret;

	optind = 1;
	while ((c = verb_getopt(v, argc, argv)) != -1) {
		switch (c) {
		case 's':
			session = optarg;
			break;
		case 'F':
			if (ctl_format_parse("show-aggregations", optarg, &fmt) < 0)
				goto bad;
			m.format = fmt == CTL_JSON ? PROTO_AGG_JSON : PROTO_AGG_TEXT;
			break;
		case 'i':
			ret = units_duration(optarg, &interval);
			if (ret < 0 || !interval || interval > 86400000000000ull) {
				fprintf(stderr, "tracectl: show-aggregations: --interval '%s': %s\n",
					optarg, ret < 0 ? units_why(ret, 0) : "more than 0, at most 1 day");
				goto bad;
			}
			break;
		case 'T':
			if (ctl_timeout_set(optarg, "--timeout") < 0)
				goto bad;
			break;
		case 'h':
			verb_help(v, stdout);
			return EXIT_OK;
		default:
			goto bad;
		}
	}
	if (argc - optind > 1)
		goto bad;
	if (optind < argc && snprintf(m.name, sizeof(m.name), "%s", argv[optind]) >=
	    (int)sizeof(m.name)) {
		fprintf(stderr, "tracectl: show-aggregations: no aggregation has so long a name\n");
		goto bad;
	}
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	for (;;) {
		struct timespec ts = { (time_t)(interval / 1000000000),
				       (long)(interval % 1000000000) };

		ret = ctl_call(home, "show-aggregations", VERB_SHOW_AGG, session, &m, 0, NULL, fmt);
		fflush(stdout);
		if (ret || !interval)
			return ret;
		nanosleep(&ts, NULL);
		if (fmt == CTL_TEXT)
			printf("\n");	/* (JSON: a document a line) */
	}
bad:
	fprintf(stderr, "usage: tracectl %s\n", v->usage);
	return EXIT_USAGE;
}
