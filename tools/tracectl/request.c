/* SPDX-License-Identifier: MIT */
/*
 * request.c - the tracectl verbs that are one request to the session
 * daemon (see request.h): their shared options, parsed into every typed
 * body (common/proto.h) they belong to, each verb's body and strings built
 * from them, and the request sent (ctl-client.h). The verb's entry of the
 * table (verbs.h) says which options it takes, its positional arguments
 * and how its body is built.
 *
 * A bad command line is said on standard error, naming the verb and the
 * option as the user wrote it, and nothing reaches the daemon (exit
 * status 2). The reply is printed by render.c, as text or, with --format
 * json, as one JSON document.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "support/ctfmeta.h"
#include "ctl-client.h"
#include "common/proto.h"
#include "support/protomsg.h"
#include "render.h"
#include "request.h"
#include "common/shm.h"
#include "support/units.h"
#include "verbs.h"

/* A command line, parsed: each option into every body it belongs to. */
struct ctl_req {
	const struct verb *v;
	const char *session;
	int info;			/* 'h' (--help) or 'l' (--list): print, send nothing */
	enum ctl_format format;		/* --format */
	int mode_opt;			/* 'O' or 'D' given */
	struct cmd_create create;
	struct cmd_channel channel;
	struct cmd_events events;
	struct cmd_context context;
	struct cmd_rotate rotate;
	struct cmd_snapshot snapshot;
	struct cmd_regenerate regenerate;
	struct cmd_track track;
	unsigned int nexe;		/* track --exe */
	const char *exe[PROTO_TRACK_EXE_MAX];
	const char *filter;
	unsigned int nexclude;		/* enable-event -x */
	const char *exclude[PROTO_EXCLUDE_MAX];	/* (in copies of the lists given, kept) */
	int nargs;			/* positional arguments (and add-context's -t) */
	const char *args[PROTO_CMD_MAX_STR];
	const void *body;		/* what the verb sends */
	unsigned int nstr;
	const char *str[PROTO_CMD_MAX_STR];
};

const struct option request_opts[] = {
	{ "session", required_argument, NULL, 's' },
	{ "output", required_argument, NULL, 'o' },
	{ "overwrite", no_argument, NULL, 'O' },
	{ "pool-size", required_argument, NULL, 'P' },
	{ "buffer-budget", required_argument, NULL, 'G' },
	{ "loglevel", required_argument, NULL, 'L' },
	{ "channel", required_argument, NULL, 'c' },
	{ "filter", required_argument, NULL, 'f' },
	{ "exclude", required_argument, NULL, 'x' },
	{ "subbuf-size", required_argument, NULL, 'B' },
	{ "num-subbuf", required_argument, NULL, 'N' },
	{ "discard", no_argument, NULL, 'D' },
	{ "flush-interval", required_argument, NULL, 'F' },
	{ "compress", required_argument, NULL, 'Z' },
	{ "size", required_argument, NULL, 'R' },
	{ "every", required_argument, NULL, 'E' },
	{ "loglevel-only", required_argument, NULL, 'Y' },
	{ "type", required_argument, NULL, 't' },
	{ "list", no_argument, NULL, 'l' },
	{ "allow-uid", required_argument, NULL, 'U' },
	{ "pid", required_argument, NULL, 'p' },
	{ "uid", required_argument, NULL, 'u' },
	{ "exe", required_argument, NULL, 'e' },
	{ "all", no_argument, NULL, 'a' },
	{ "snapshot", no_argument, NULL, 'W' },
	{ "max-size", required_argument, NULL, 'M' },
	CTL_NET_LONGOPTS,
	{ "timeout", required_argument, NULL, 'T' },	/* every verb */
	{ "format", required_argument, NULL, 'J' },	/* every verb */
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* "info", "INFO" or "6": 0..7; -1 when unknown. */
static int parse_loglevel(const char *s)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
	};

	if (s[0] >= '0' && s[0] <= '7' && !s[1])
		return s[0] - '0';
	for (int i = 0; i < 8; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	return -1;
}

/* A whole number from @min to @max, nothing else; 0 or -EINVAL. */
static int parse_count(const char *s, uint64_t min, uint64_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] < '0' || s[0] > '9' || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* The long name of option @c ("--subbuf-size"), for messages. */
static const char *opt_name(int c)
{
	for (const struct option *o = request_opts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

/* A message about the command line; -EINVAL (the verb then exits EXIT_USAGE). */
static int __attribute__((format(printf, 2, 3))) bad(const struct ctl_req *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tracectl: %s: ", r->v->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see tracectl %s --help)\n", r->v->name);
	return -EINVAL;
}

/* A value of option @c with a unit that units.c refused. */
static int bad_unit(const struct ctl_req *r, int c, const char *arg, int err, int size)
{
	return bad(r, "--%s '%s': %s", opt_name(c), arg, units_why(err, size));
}

/* A channel's name in @dst (PROTO_NAME_MAX bytes), checked. */
static int set_name(const struct ctl_req *r, char *dst, const char *name, const char *what)
{
	if (!proto_name_ok(name))
		return bad(r, "bad %s name '%s': %s", what, name, PROTO_NAME_RULES);
	snprintf(dst, PROTO_NAME_MAX, "%s", name);
	return 0;
}

/* -x PATTERN[,PATTERN]...: the exclusions of enable-event's patterns. */
static int add_exclusions(struct ctl_req *r, const char *arg)
{
	char *list = strdup(arg), *save = NULL;

	if (!list)
		return bad(r, "out of memory");
	for (char *x = strtok_r(list, ",", &save); x; x = strtok_r(NULL, ",", &save)) {
		if (strlen(x) >= PROTO_EVNAME_MAX)
			return bad(r, "--exclude '%s': at most %d bytes", x, PROTO_EVNAME_MAX - 1);
		if (r->nexclude == PROTO_EXCLUDE_MAX)
			return bad(r, "--exclude: at most %d exclusions", PROTO_EXCLUDE_MAX);
		r->exclude[r->nexclude++] = x;
	}
	if (!r->nexclude)
		return bad(r, "--exclude '%s': name the events to leave out", arg);
	return 0;
}

/* track --pid, --uid: "all", or numbers (uids: or user names) separated by commas. */
static int track_ids(struct ctl_req *r, int c, const char *arg)
{
	uint32_t kind = c == 'p' ? PROTO_TRACK_PID : PROTO_TRACK_UID;
	uint32_t *v = c == 'p' ? r->track.pid : r->track.uid;
	uint32_t *n = c == 'p' ? &r->track.npid : &r->track.nuid;
	char buf[4096], *save = NULL;

	if (!strcmp(arg, "all")) {
		r->track.all |= CMD_TRACK_BIT(kind);
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return bad(r, "--%s: too long", opt_name(c));
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned long long x;
		char *end;

		errno = 0;
		x = strtoull(w, &end, 10);
		if (c == 'u' && (errno || *end || end == w || *w == '-' || x >= UINT32_MAX)) {
			struct passwd *pw = getpwnam(w);

			if (!pw)
				return bad(r, "--uid: no user named '%s'", w);
			x = pw->pw_uid;
		} else if (c == 'p' && (errno || *end || end == w || *w == '-' || !x ||
					x > PROTO_PID_MAX)) {
			return bad(r, "--pid '%s': a process id, or all", w);
		}
		if (*n == PROTO_TRACK_MAX)
			return bad(r, "--%s: at most %d at once", opt_name(c), PROTO_TRACK_MAX);
		v[(*n)++] = (uint32_t)x;
	}
	if (!*n)
		return bad(r, "--%s '%s': ids separated by commas, or all", opt_name(c), arg);
	return 0;
}

/* track --exe GLOB: one glob of the executable's path, or "all". */
static int track_exe(struct ctl_req *r, const char *arg)
{
	if (!strcmp(arg, "all")) {
		r->track.all |= CMD_TRACK_BIT(PROTO_TRACK_EXE);
		return 0;
	}
	if (!arg[0] || strlen(arg) >= PROTO_TRACK_EXE_LEN)
		return bad(r, "--exe '%s': a pattern of 1 to %d bytes", arg, PROTO_TRACK_EXE_LEN - 1);
	if (r->nexe == PROTO_TRACK_EXE_MAX)
		return bad(r, "--exe: at most %d at once", PROTO_TRACK_EXE_MAX);
	r->exe[r->nexe++] = arg;
	return 0;
}

/* Option @c of the command line, into every body it belongs to. */
static int ctl_option(struct ctl_req *r, int c, const char *arg)
{
	uint64_t v;
	int ret, ll;

	switch (c) {
	case 's':
		r->session = arg;
		return 0;
	case 'o':
		if (ctl_abspath(arg, r->create.output, sizeof(r->create.output)) < 0 ||
		    strlen(r->create.output) >= PROTO_PATH_MAX - 64)
			return bad(r, "--output: path too long");
		memcpy(r->snapshot.output, r->create.output, sizeof(r->snapshot.output));
		return 0;
	case 'O':
	case 'D':
		if (r->mode_opt && r->mode_opt != c)
			return bad(r, "--overwrite and --discard exclude each other");
		r->mode_opt = c;
		r->create.mode = r->channel.mode = c == 'O' ? SHM_MODE_OVERWRITE : SHM_MODE_DISCARD;
		r->channel.set |= CMD_CHAN_MODE;
		return 0;
	case 'P':
		if (parse_count(arg, 1, SHM_MAX_SLOTS, &r->create.pool_size) < 0)
			return bad(r, "--pool-size '%s': 1 to %u buffers", arg, SHM_MAX_SLOTS);
		r->channel.pool_size = r->create.pool_size;
		r->channel.set |= CMD_CHAN_POOL;
		return 0;
	case 'B':
		ret = units_size(arg, &v);
		if (ret < 0)
			return bad_unit(r, c, arg, ret, 1);
		if (v < SHM_MIN_SUBBUF || v > SHM_MAX_SUBBUF || v % SHM_PAGE)
			return bad(r, "--subbuf-size '%s': %u to %u bytes, a whole number of %u-byte "
				   "pages", arg, SHM_MIN_SUBBUF, SHM_MAX_SUBBUF, SHM_PAGE);
		r->channel.subbuf_size = (uint32_t)v;
		r->channel.set |= CMD_CHAN_SUBBUF;
		return 0;
	case 'G':
		ret = units_size(arg, &v);
		if (ret < 0)
			return bad_unit(r, c, arg, ret, 1);
		if (v % 1024 || (v >> 10) > UINT32_MAX)
			return bad(r, "--buffer-budget '%s': a whole number of KiB, at most %" PRIu64
				   " GiB (0: no limit)", arg, (uint64_t)UINT32_MAX >> 20);
		r->channel.budget_kib = (uint32_t)(v >> 10);
		r->channel.set |= CMD_CHAN_BUDGET;
		return 0;
	case 'N':
		if (parse_count(arg, 2, SHM_MAX_NUM_SUBBUF, &r->channel.num_subbuf) < 0)
			return bad(r, "--num-subbuf '%s': 2 to %u sub-buffers", arg,
				   SHM_MAX_NUM_SUBBUF);
		r->channel.set |= CMD_CHAN_NUM;
		return 0;
	case 'F':
		ret = units_duration(arg, &v);
		if (ret < 0)
			return bad_unit(r, c, arg, ret, 0);
		if (v > 3600000000000ull)
			return bad(r, "--flush-interval '%s': at most 1h (0: never)", arg);
		r->channel.flush_ms = (uint32_t)((v + 999999) / 1000000);
		r->channel.set |= CMD_CHAN_FLUSH;
		return 0;
	case 'Z':
		if (strcmp(arg, "lz4") && strcmp(arg, "none"))
			return bad(r, "--compress '%s': lz4 or none", arg);
		r->channel.compress = !strcmp(arg, "lz4") ? PROTO_COMPRESS_LZ4 : PROTO_COMPRESS_NONE;
		r->channel.set |= CMD_CHAN_COMPRESS;
		return 0;
	case 'R':
		ret = units_size(arg, &r->rotate.size);
		if (ret < 0)
			return bad_unit(r, c, arg, ret, 1);
		r->rotate.set |= CMD_ROT_SIZE;
		return 0;
	case 'E':
		ret = units_duration(arg, &v);
		if (ret < 0)
			return bad_unit(r, c, arg, ret, 0);
		r->rotate.every_ms = (v + 999999) / 1000000;
		r->rotate.set |= CMD_ROT_EVERY;
		return 0;
	case 'c':
		ret = set_name(r, r->events.channel, arg, "channel");
		memcpy(r->context.channel, r->events.channel, sizeof(r->context.channel));
		return ret;
	case 'f':
		r->filter = arg;
		r->events.filter = 1;
		return 0;
	case 'x':
		return add_exclusions(r, arg);
	case 'L':
	case 'Y':
		ll = parse_loglevel(arg);
		if (ll < 0)
			return bad(r, "--%s '%s': emerg alert crit err warning notice info debug, or "
				   "0 to 7", opt_name(c), arg);
		if (r->events.ll_kind != CMD_LL_ANY &&
		    r->events.ll_kind != (c == 'L' ? CMD_LL_RANGE : CMD_LL_ONLY))
			return bad(r, "--loglevel and --loglevel-only exclude each other");
		r->events.ll_kind = c == 'L' ? CMD_LL_RANGE : CMD_LL_ONLY;
		r->events.loglevel = (uint32_t)ll;
		return 0;
	case 't':
		if (r->nargs == PROTO_CMD_MAX_STR)
			return bad(r, "too many arguments");
		r->args[r->nargs++] = arg;
		return 0;
	case 'U':
		return ctl_parse_uids(arg, &r->create);
	case 'p':
	case 'u':
		return track_ids(r, c, arg);
	case 'e':
		return track_exe(r, arg);
	case 'a':
		r->track.all = CMD_TRACK_KINDS;
		return 0;
	case 'W':
		r->create.flags |= CMD_CREATE_MEMORY;
		return 0;
	case 'M':
		ret = units_size(arg, &r->snapshot.max_size);
		if (ret < 0)
			return bad_unit(r, c, arg, ret, 1);
		if (!r->snapshot.max_size)
			return bad(r, "--max-size '%s': more than 0 bytes", arg);
		return 0;
	case 'T':
		return ctl_timeout_set(arg, "--timeout");
	case 'J':
		return ctl_format_parse(r->v->name, arg, &r->format);
	case 'S':
	case 'K':
	case 'A':
	case 'I':
		return ctl_net_option(c, arg, &r->create);
	}
	return -EINVAL;
}

/* ---- each verb's body and strings, from the parsed command line -------- */

int build_create(struct ctl_req *r)
{
	if (r->create.flags & CMD_CREATE_MEMORY) {
		/* memory-only: flight recorder channels, nothing else */
		if (r->mode_opt == 'D')
			return bad(r, "--snapshot keeps the events in memory, overwriting the "
				   "oldest: not with --discard");
		if (r->create.set_url[0] || r->create.ctrl_url[0] || r->create.data_url[0] ||
		    r->create.live)
			return bad(r, "--snapshot writes snapshots to files: not with a relay");
		r->create.mode = SHM_MODE_OVERWRITE;
	}
	r->body = &r->create;
	return 0;
}

int build_channel(struct ctl_req *r)
{
	if (strlen(r->args[0]) > 32)
		return bad(r, "bad channel name '%s': at most 32 bytes", r->args[0]);
	r->body = &r->channel;
	return set_name(r, r->channel.name, r->args[0], "channel");
}

/* enable-event, disable-event: [filter] [exclusions] then the patterns */
int build_events(struct ctl_req *r)
{
	r->body = &r->events;
	if (r->filter)
		r->str[r->nstr++] = r->filter;
	if (r->nargs + r->nexclude + 1 > PROTO_CMD_MAX_STR)
		return bad(r, "too many patterns and exclusions");
	for (unsigned int i = 0; i < r->nexclude; i++)
		r->str[r->nstr++] = r->exclude[i];
	r->events.nexclude = r->nexclude;
	for (int i = 0; i < r->nargs; i++) {
		if (strlen(r->args[i]) >= PROTO_EVNAME_MAX)
			return bad(r, "pattern too long: at most %d bytes", PROTO_EVNAME_MAX - 1);
		r->str[r->nstr++] = r->args[i];
	}
	return 0;
}

int build_context(struct ctl_req *r)
{
	if (!r->nargs)
		return bad(r, "name a field with -t (see --list)");
	for (int i = 0; i < r->nargs; i++) {
		uint32_t bit = ctf_context_bit(r->args[i]);

		if (!bit) {
			char known[128] = "";

			for (unsigned int k = 0; k < CTF_NCONTEXTS; k++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", k ? ", " : "", ctf_contexts[k].name);
			return bad(r, "no context field '%s' (known: %s)", r->args[i], known);
		}
		r->context.context |= bit;
	}
	r->body = &r->context;
	return 0;
}

int build_rotate(struct ctl_req *r)
{
	r->body = &r->rotate;
	return 0;
}

int build_snapshot(struct ctl_req *r)
{
	r->body = &r->snapshot;
	return 0;
}

int build_regenerate(struct ctl_req *r)
{
	if (strcmp(r->args[0], "statedump"))
		return bad(r, "'%s': only statedump (every traced process's state dump; the "
			   "metadata of a trace is always whole)", r->args[0]);
	r->regenerate.what = PROTO_REGEN_STATEDUMP;
	r->body = &r->regenerate;
	return 0;
}

int build_track(struct ctl_req *r)
{
	if (!r->track.all && !r->track.npid && !r->track.nuid && !r->nexe)
		return bad(r, "say which processes: --pid, --uid, --exe or --all");
	for (unsigned int i = 0; i < r->nexe; i++)
		r->str[r->nstr++] = r->exe[i];
	r->body = &r->track;
	return 0;
}

int build_names(struct ctl_req *r)
{
	for (int i = 0; i < r->nargs; i++)
		r->str[r->nstr++] = r->args[i];
	return 0;
}

/* ---- the command line --------------------------------------------------- */

/* The options of @v and its positional arguments into @r; 0 or -EINVAL said. */
static int parse(struct ctl_req *r, int argc, char **argv)
{
	const struct verb *v = r->v;
	int c;

	optind = 1;
	while ((c = verb_getopt(v, argc, argv)) != -1) {
		if (c == '?')
			return -EINVAL;
		if (!verb_takes(v, c))
			return bad(r, "--%s is not an option of %s", opt_name(c), v->name);
		if (c == 'h' || c == 'l') {
			r->info = c;
			continue;
		}
		if (ctl_option(r, c, optarg) < 0)
			return -EINVAL;
	}
	if (r->info == 'h')
		return 0;
	for (int i = optind; i < argc; i++) {
		if (v->session_arg && i == optind) {
			if (r->session[0])
				return bad(r, "the session is named twice");
			r->session = argv[i];
			continue;
		}
		if (r->nargs == PROTO_CMD_MAX_STR - 1)
			return bad(r, "too many arguments");
		r->args[r->nargs++] = argv[i];
	}
	if (r->nargs < v->min_args || r->nargs > v->max_args)
		return bad(r, "wrong number of arguments");
	if (r->session[0] && !proto_name_ok(r->session))
		return bad(r, "bad session name '%s': %s", r->session, PROTO_NAME_RULES);
	return 0;
}

int request_main(const struct verb *v, int argc, char **argv)
{
	static struct ctl_req r;
	char home[1024];

	r.v = v;
	r.session = "";
	if (parse(&r, argc, argv) < 0)
		return EXIT_USAGE;
	if (r.info == 'h') {
		verb_help(v, stdout);
		return EXIT_OK;
	}
	if (r.info == 'l') {
		for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
			printf("%-8s %s\n", ctf_contexts[i].name, ctf_contexts[i].help);
		return EXIT_OK;
	}
	if (v->build && v->build(&r) < 0)
		return EXIT_USAGE;
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	return ctl_call(home, v->name, v->verb, r.session, r.body, r.nstr, r.str, r.format);
}
