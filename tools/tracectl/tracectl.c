/* SPDX-License-Identifier: MIT */
/*
 * tracectl - control shmtrace tracing sessions.
 *
 * Each command is one request to the session daemon of $SHMTRACE_HOME,
 * which is started (trace-sessiond --daemonize) when none runs
 * (ctl-client.c). The verbs are a table: each names the options it takes
 * and builds its typed body (common/proto.h) from the parsed command line.
 * Every request waits for the daemon at most its timeout (ctl-client.h):
 * --timeout DURATION before the command or among the options of any
 * command, SHMTRACE_CTL_TIMEOUT, else the verb's default.
 *
 * Exit status: 0 on success, 1 when the daemon refused the command or
 * cannot be reached or did not answer in time, or when stop, status or
 * destroy report traces that could not be written; 2 on bad usage, with
 * the reason. record has its own (record.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "ctfmeta.h"
#include "ctl-client.h"
#include "proto.h"
#include "relay.h"
#include "shm.h"
#include "tracectl.h"
#include "units.h"
#include "util.h"

struct ctl_req;

/*
 * A verb: its options (the short letters of ctl_opts it takes), its
 * positional arguments, and how its body and strings are made from them.
 */
struct verb {
	const char *name;
	enum proto_verb verb;
	const char *usage;
	const char *help;
	int min_args, max_args;		/* positional arguments, the session's aside */
	int session_arg;		/* first positional argument names the session */
	const char *opts;
	int (*build)(struct ctl_req *r);	/* NULL: no body, no strings */
};

/* A command line, parsed: each option into every body it belongs to. */
struct ctl_req {
	const struct verb *v;
	const char *session;
	int info;			/* 'h' (--help) or 'l' (--list): print, send nothing */
	int mode_opt;			/* 'O' or 'D' given */
	struct cmd_create create;
	struct cmd_channel channel;
	struct cmd_events events;
	struct cmd_context context;
	struct cmd_rotate rotate;
	struct cmd_snapshot snapshot;
	const char *filter;
	int nargs;			/* positional arguments (and add-context's -t) */
	const char *args[PROTO_CMD_MAX_STR];
	const void *body;		/* what the verb sends */
	unsigned int nstr;
	const char *str[PROTO_CMD_MAX_STR];
};

static const struct option ctl_opts[] = {
	{ "session", required_argument, NULL, 's' },
	{ "output", required_argument, NULL, 'o' },
	{ "overwrite", no_argument, NULL, 'O' },
	{ "pool-size", required_argument, NULL, 'P' },
	{ "loglevel", required_argument, NULL, 'L' },
	{ "channel", required_argument, NULL, 'c' },
	{ "filter", required_argument, NULL, 'f' },
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
	CTL_NET_LONGOPTS,
	{ "timeout", required_argument, NULL, 'T' },	/* every verb */
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int build_create(struct ctl_req *r);
static int build_channel(struct ctl_req *r);
static int build_events(struct ctl_req *r);
static int build_context(struct ctl_req *r);
static int build_rotate(struct ctl_req *r);
static int build_snapshot(struct ctl_req *r);
static int build_names(struct ctl_req *r);

static const struct verb verbs[] = {
	{ "create", VERB_CREATE, "create [NAME] [--output DIR] [--overwrite | --discard] [--pool-size N]\n"
	  "         [--allow-uid UID[,UID]...|all]\n"
	  "         [--set-url net://HOST[:CTRL_PORT[:DATA_PORT]] | --ctrl-url URL --data-url URL]\n"
	  "         [--live[=PERIOD]]",
	  "Create a session. Its traces go to DIR (default\n"
	  "$SHMTRACE_HOME/traces/NAME-DATE). NAME defaults to auto-DATE.\n"
	  "DIR is refused, with the reason, unless a directory and a file can be\n"
	  "written there (checked now, then removed: DIR appears with the first\n"
	  "trace).\n"
	  "--overwrite: flight recorder; when the buffers are full, the oldest\n"
	  "data is overwritten instead of new events being discarded (--discard,\n"
	  "the default).\n"
	  "--pool-size N: buffers each traced process prepares at first for the\n"
	  "session (one per thread alive at once; default 10; the pool grows).\n"
	  "--allow-uid UID,...|all: processes of these users (uids or names) are\n"
	  "traced by this session too, for instance a server that drops root or\n"
	  "a program started with runuser. Only with a session daemon running as\n"
	  "root; they register on a separate socket that takes registrations\n"
	  "only, and the home, the traces and the control socket stay root's. By\n"
	  "default nothing of another uid is traced, and `status` says which\n"
	  "processes were not traced and why.\n"
	  "--set-url net://HOST[:CTRL_PORT[:DATA_PORT]]: stream the traces to\n"
	  "lttng-relayd on HOST (ports 5342 and 5343 by default; --ctrl-url and\n"
	  "--data-url tcp://HOST:PORT name each); it stores them under\n"
	  "HOST_NAME/NAME-DATE in its output directory. Refused at once when no\n"
	  "relay answers. Nothing of shmtrace listens on the network.\n"
	  "--live[=PERIOD]: a live session (PERIOD in microseconds as lttng's, or\n"
	  "with a unit, e.g. 500ms; default 1s; relay\n"
	  "on 127.0.0.1 unless given): viewers follow it while it runs, e.g.\n"
	  "  babeltrace2 -i lttng-live net://HOST/host/HOST_NAME/NAME\n"
	  "Streamed sessions have no chunks, snapshots nor compressed channels.", 0, 0, 1,
	  "soODPUSKAI", build_create },
	{ "enable-channel", VERB_ENABLE_CHANNEL,
	  "enable-channel [-s NAME] CHANNEL [--subbuf-size SIZE] [--num-subbuf N]\n"
	  "         [--overwrite | --discard] [--flush-interval TIME] [--pool-size N]\n"
	  "         [--compress lz4|none]",
	  "Create a channel in the session: its own buffers in every traced process\n"
	  "and its own stream files. SIZE: bytes, or with k, M or G (default 512k, a\n"
	  "whole number of pages); N: 2 to 64 sub-buffers (default 16); --overwrite: flight\n"
	  "recorder (default --discard); TIME: the longest an idle thread's events\n"
	  "wait before they reach the files, e.g. 200ms or 2s (default 1s, 0 never);\n"
	  "--pool-size: buffers each process prepares (default 10, it grows);\n"
	  "--compress lz4: stream files as LZ4 frames (lz4 -d gives plain CTF;\n"
	  "default none).\n"
	  "Events go to a channel with enable-event -c CHANNEL; without -c, to\n"
	  "channel0, created with the session's defaults at its first use.", 1, 1, 0,
	  "sBNODFZP", build_channel },
	{ "rotate", VERB_ROTATE, "rotate [NAME] [--size SIZE] [--every TIME]",
	  "Close the current chunk of the trace: everything recorded so far goes\n"
	  "to OUTPUT/chunk-N (complete traces, readable on their own) and tracing\n"
	  "goes on into a new chunk. With --size (bytes written, or with k, M, G) or\n"
	  "--every (e.g. 30s, 500ms), rotate automatically from now on (0: off).\n"
	  "Destroying a rotated session closes its last chunk too.", 0, 0, 1, "sRE", build_rotate },
	{ "snapshot", VERB_SNAPSHOT, "snapshot [NAME] [--output DIR]",
	  "Write what the session's buffers hold now (the newest events of every\n"
	  "thread, contiguous up to now) as traces in DIR (default\n"
	  "OUTPUT-snapshot-N-DATE, next to the session's output and not in it,\n"
	  "so that reading OUTPUT reads each event once), without stopping\n"
	  "tracing. Each process's snapshot is a trace of its own (its own uuid).\n"
	  "Fails, making nothing, when no traced process has buffers (none\n"
	  "alive). Made for flight recorder sessions (create --overwrite).", 0, 0, 1,
	  "so", build_snapshot },
	{ "destroy", VERB_DESTROY, "destroy [NAME]",
	  "Stop the session if active, write out everything recorded, and forget it.\n"
	  "When it stops the session, it fails as stop does on write errors.", 0, 0, 1, "s", NULL },
	{ "enable-event", VERB_ENABLE_EVENT,
	  "enable-event [-s NAME] [-c CHANNEL] [--loglevel LEVEL | --loglevel-only LEVEL]\n"
	  "         [--filter EXPR] PATTERN...",
	  "Record the events whose \"provider:event\" name matches a PATTERN\n"
	  "('*' matches any characters; '\\' escapes).\n"
	  "--loglevel LEVEL: only events of LEVEL or more severe; --loglevel-only\n"
	  "LEVEL: only events of LEVEL. LEVEL: emerg alert crit err warning notice\n"
	  "info debug, or 0 (emerg) to 7 (debug).\n"
	  "--filter EXPR: only events whose fields satisfy EXPR, decided in the\n"
	  "traced thread before anything is copied: comparisons of fields with\n"
	  "numbers, strings (\"/tmp/*\" globs with == and !=) or other fields\n"
	  "(== != < <= > >=), && || ! and parentheses (at most 256 of them and '!'\n"
	  "around a condition), e.g.\n"
	  "  'seq >= 500 && (thread == 1 || path == \"/var/*\")'\n"
	  "A field the event lacks makes its comparison false; $ctx.cpu_id (or\n"
	  "cpu_id), $ctx.vtid and $ctx.vpid name the emitting thread's CPU, thread\n"
	  "and process. Enabling a pattern again replaces its conditions; an event\n"
	  "that several patterns match is recorded when any of them keeps it.", 1, 255, 0,
	  "scfLY", build_events },
	{ "add-context", VERB_ADD_CONTEXT,
	  "add-context [-s NAME] [-c CHANNEL] [--list] -t FIELD [-t FIELD]...",
	  "Add context fields to every event of CHANNEL (without -c, of every\n"
	  "channel of the session, channel0 if there is none yet), recorded between\n"
	  "the event header and its fields. Only before the session first starts.\n"
	  "--list: the fields known (ip: address of the code that emitted the\n"
	  "event; cpu_id: the CPU the thread ran on).", 0, 255, 0, "sctl", build_context },
	{ "disable-aggregation", VERB_DISABLE_AGG, "disable-aggregation [-s NAME] AGGREGATION...",
	  "Remove aggregations made with aggregate: their tables are forgotten\n"
	  "(what they held is in aggregations.json of the last stop).", 1, 255, 0, "s", build_names },
	{ "disable-event", VERB_DISABLE_EVENT, "disable-event [-s NAME] [-c CHANNEL] PATTERN...",
	  "Remove PATTERNs previously enabled with enable-event.", 1, 255, 0, "sc", build_events },
	{ "start", VERB_START, "start [NAME]", "Start recording.", 0, 0, 1, "s", NULL },
	{ "stop", VERB_STOP, "stop [NAME]",
	  "Stop recording; when it returns, every event recorded is in the trace files.\n"
	  "When some could not be written (no space left, I/O error, the directory\n"
	  "removed...), it says how many events were lost and the first error (the\n"
	  "file and the reason) and exits with status 1.", 0, 0, 1, "s", NULL },
	{ "list", VERB_LIST, "list", "List the sessions.", 0, 0, 0, "", NULL },
	{ "list-events", VERB_LIST_EVENTS, "list-events",
	  "List the events of every registered process, with their fields.", 0, 0, 0, "", NULL },
	{ "status", VERB_STATUS, "status [NAME]",
	  "Show sessions: state, output, channel, events enabled, processes,\n"
	  "events recorded, discarded and lost to write errors, and the programs\n"
	  "that were not traced and why (statically linked, set-user-ID, LD_PRELOAD\n"
	  "removed from their environment, run as another user). Exits with status\n"
	  "1 when traces could not be written, saying the first error.", 0, 0, 1, "s", NULL },
};

#define VIEW_USAGE "view [NAME | -s NAME] [TRACE-READ OPTIONS]"
#define VIEW_HELP \
	"Watch the session's events as they are recorded: trace-read --follow on\n" \
	"its output (in time order, a flush interval late, until the session is\n" \
	"stopped or destroyed; trace-read's output options apply, e.g.\n" \
	"tracectl view s --format json). For a session streamed to a relay, says\n" \
	"how to attach babeltrace2 to it."

/*
 * view [NAME | -s NAME] [TRACE-READ OPTIONS]: the session's output from its
 * status, then trace-read --follow there (from our directory, else $PATH).
 * The session is named as with every other command; -s is not trace-read's
 * --stats here.
 */
static int view_main(const char *home, int argc, char **argv)
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

static void usage(FILE *out)
{
	fprintf(out, "usage: tracectl [--help] [--version] [--timeout DURATION] COMMAND [ARGS]\n\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(out, "  %s\n", verbs[i].usage);
	fprintf(out, "  %s\n", VIEW_USAGE);
	fprintf(out, "  %s\n  %s\n", AGG_USAGE, SHOW_AGG_USAGE);
	fprintf(out, "  %s\n", RECORD_USAGE);
	fprintf(out, "\nDurations take a unit: ns, us, ms, s, m or h (e.g. 200ms). Sizes are\n"
		"bytes, or with k, M or G (KiB, MiB, GiB). Names of sessions, channels and\n"
		"aggregations: %s.\n", PROTO_NAME_RULES);
	fprintf(out, "\n--timeout DURATION, before the command or among its options (every\n"
		"command takes it), or SHMTRACE_CTL_TIMEOUT: give up, with status 1, when\n"
		"the session daemon says nothing for that long (0: never). Default 10s;\n"
		"10m for create, stop, destroy, rotate, snapshot and show-aggregations,\n"
		"which wait for traces to be written out (or a relay), and give up after\n"
		"10s when the daemon is stopped or gone.\n");
	fprintf(out, "\n'tracectl COMMAND --help' or 'tracectl help COMMAND' describes a\n"
		"command. The session daemon of $SHMTRACE_HOME (default\n"
		"$XDG_RUNTIME_DIR/shmtrace, else ~/.shmtrace) is started when none runs.\n");
}

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
	for (const struct option *o = ctl_opts; o->name; o++)
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
	case 'T':
		return ctl_timeout_set(arg, "--timeout");
	case 'S':
	case 'K':
	case 'A':
	case 'I':
		return ctl_net_option(c, arg, &r->create);
	}
	return -EINVAL;
}

/* ---- each verb's body and strings, from the parsed command line -------- */

static int build_create(struct ctl_req *r)
{
	r->body = &r->create;
	return 0;
}

static int build_channel(struct ctl_req *r)
{
	if (strlen(r->args[0]) > 32)
		return bad(r, "bad channel name '%s': at most 32 bytes", r->args[0]);
	r->body = &r->channel;
	return set_name(r, r->channel.name, r->args[0], "channel");
}

/* enable-event, disable-event: [filter] then the patterns */
static int build_events(struct ctl_req *r)
{
	r->body = &r->events;
	if (r->filter)
		r->str[r->nstr++] = r->filter;
	for (int i = 0; i < r->nargs; i++) {
		if (strlen(r->args[i]) >= PROTO_EVNAME_MAX)
			return bad(r, "pattern too long: at most %d bytes", PROTO_EVNAME_MAX - 1);
		r->str[r->nstr++] = r->args[i];
	}
	return 0;
}

static int build_context(struct ctl_req *r)
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

static int build_rotate(struct ctl_req *r)
{
	r->body = &r->rotate;
	return 0;
}

static int build_snapshot(struct ctl_req *r)
{
	r->body = &r->snapshot;
	return 0;
}

static int build_names(struct ctl_req *r)
{
	for (int i = 0; i < r->nargs; i++)
		r->str[r->nstr++] = r->args[i];
	return 0;
}

/* ---- the command line --------------------------------------------------- */

/* Edit distance of @a and @b (short words), for "did you mean". */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[32], n = (unsigned int)strlen(b);

	if (n >= 32 || strlen(a) >= 32)
		return 99;
	for (unsigned int j = 0; j <= n; j++)
		row[j] = j;
	for (unsigned int i = 1; a[i - 1]; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (unsigned int j = 1; j <= n; j++) {
			unsigned int up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[n];
}

static int unknown_verb(const char *name)
{
	static const char *const others[] = { "record", "view", "aggregate", "show-aggregations" };
	const char *best = NULL;
	unsigned int bestd = 3;		/* suggest only close names, or a beginning */

	for (size_t i = 0; i < ARRAY_SIZE(verbs) + ARRAY_SIZE(others); i++) {
		const char *n = i < ARRAY_SIZE(verbs) ? verbs[i].name : others[i - ARRAY_SIZE(verbs)];
		unsigned int d = distance(name, n);

		if (strlen(name) >= 3 && !strncmp(n, name, strlen(name)))
			d = 1;
		if (d < bestd) {
			bestd = d;
			best = n;
		}
	}
	if (best)
		fprintf(stderr, "tracectl: unknown command '%s'; did you mean '%s'?\n", name, best);
	else
		fprintf(stderr, "tracectl: unknown command '%s' (see tracectl --help)\n", name);
	return EXIT_USAGE;
}

/* The options of @v and its positional arguments into @r; 0 or -EINVAL said. */
static int parse(struct ctl_req *r, int argc, char **argv)
{
	const struct verb *v = r->v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:o:c:f:t:hl", ctl_opts, NULL)) != -1) {
		if (c == '?')
			return bad(r, "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return bad(r, "'%s' needs a value", argv[optind - 1]);
		if (c != 'h' && c != 'T' && !strchr(v->opts, c))
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

int main(int argc, char **argv)
{
	static struct ctl_req r;
	char home[1024];

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
	if (!strcmp(argv[1], "record"))
		return record_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "aggregate") || !strcmp(argv[1], "show-aggregations"))
		return agg_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "view")) {
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			printf("usage: tracectl %s\n\n%s\n", VIEW_USAGE, VIEW_HELP);
			return EXIT_OK;
		}
		if (ctl_home(home, sizeof(home)))
			return EXIT_RUNTIME;
		return view_main(home, argc - 1, argv + 1);
	}
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!strcmp(argv[1], verbs[i].name))
			r.v = &verbs[i];
	if (!r.v)
		return unknown_verb(argv[1]);
	r.session = "";
	if (parse(&r, argc - 1, argv + 1) < 0)
		return EXIT_USAGE;
	if (r.info == 'h') {
		printf("usage: tracectl %s\n\n%s\n", r.v->usage, r.v->help);
		return EXIT_OK;
	}
	if (r.info == 'l') {
		for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
			printf("%-8s %s\n", ctf_contexts[i].name, ctf_contexts[i].help);
		return EXIT_OK;
	}
	if (r.v->build && r.v->build(&r) < 0)
		return EXIT_USAGE;
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	return ctl_call(home, r.v->name, r.v->verb, r.session, r.body, r.nstr, r.str, stdout);
}
