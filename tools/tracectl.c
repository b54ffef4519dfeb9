/* SPDX-License-Identifier: MIT */
/*
 * tracectl - control shmtrace tracing sessions.
 *
 * Each command is one request to the session daemon of $SHMTRACE_HOME,
 * which is started (trace-sessiond --daemonize) when none runs. Exit
 * status: 0 on success, 1 when the daemon refused the command or cannot
 * be reached, or when stop, status or destroy report traces that could not
 * be written; 2 on bad usage. record has its own (record.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ctfmeta.h"
#include "home.h"
#include "proto.h"
#include "relay.h"
#include "tracectl.h"

struct verb {
	const char *name;
	enum proto_verb verb;
	const char *usage;
	const char *help;
	int min_args, max_args;		/* positional arguments */
	int session_arg;		/* first positional argument names the session */
};

static const struct verb verbs[] = {
	{ "create", VERB_CREATE, "create [NAME] [--output DIR] [--overwrite] [--pool-size N]\n"
	  "         [--allow-uid UID[,UID]...|all]\n"
	  "         [--set-url net://HOST[:CTRL_PORT[:DATA_PORT]] | --ctrl-url URL --data-url URL]\n"
	  "         [--live[=PERIOD_US]]",
	  "Create a session. Its traces go to DIR (default\n"
	  "$SHMTRACE_HOME/traces/NAME-DATE). NAME defaults to auto-DATE.\n"
	  "DIR is refused, with the reason, unless a directory and a file can be\n"
	  "written there (checked now, then removed: DIR appears with the first\n"
	  "trace).\n"
	  "--overwrite: flight recorder; when the buffers are full, the oldest\n"
	  "data is overwritten instead of new events being discarded.\n"
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
	  "--live[=PERIOD_US]: a live session (default period 1000000 us, relay\n"
	  "on 127.0.0.1 unless given): viewers follow it while it runs, e.g.\n"
	  "  babeltrace2 -i lttng-live net://HOST/host/HOST_NAME/NAME\n"
	  "Streamed sessions have no chunks, snapshots nor compressed channels.", 0, 1, 1 },
	{ "enable-channel", VERB_ENABLE_CHANNEL,
	  "enable-channel [-s NAME] CHANNEL [--subbuf-size SIZE] [--num-subbuf N]\n"
	  "         [--overwrite | --discard] [--flush-interval TIME] [--pool-size N]\n"
	  "         [--compress lz4]",
	  "Create a channel in the session: its own buffers in every traced process\n"
	  "and its own stream files. SIZE: bytes, with k or M (default 512k, a whole\n"
	  "number of pages); N: 2 to 64 sub-buffers (default 16); --overwrite: flight\n"
	  "recorder (default --discard); TIME: the longest an idle thread's events\n"
	  "wait before they reach the files, e.g. 200ms or 2s (default 1s, 0 never);\n"
	  "--pool-size: buffers each process prepares (default 10, it grows);\n"
	  "--compress lz4: stream files as LZ4 frames (lz4 -d gives plain CTF).\n"
	  "Events go to a channel with enable-event -c CHANNEL; without -c, to\n"
	  "channel0, created with the session's defaults at its first use.", 1, 1, 0 },
	{ "rotate", VERB_ROTATE, "rotate [NAME] [--size SIZE] [--every TIME]",
	  "Close the current chunk of the trace: everything recorded so far goes\n"
	  "to OUTPUT/chunk-N (complete traces, readable on their own) and tracing\n"
	  "goes on into a new chunk. With --size (bytes, k, M, G written) or\n"
	  "--every (e.g. 30s, 500ms), rotate automatically from now on (0: off).\n"
	  "Destroying a rotated session closes its last chunk too.", 0, 1, 1 },
	{ "snapshot", VERB_SNAPSHOT, "snapshot [NAME] [--output DIR]",
	  "Write what the session's buffers hold now (the newest events of every\n"
	  "thread, contiguous up to now) as traces in DIR (default\n"
	  "OUTPUT-snapshot-N-DATE, next to the session's output and not in it,\n"
	  "so that reading OUTPUT reads each event once), without stopping\n"
	  "tracing. Each process's snapshot is a trace of its own (its own uuid).\n"
	  "Fails, making nothing, when no traced process has buffers (none\n"
	  "alive). Made for flight recorder sessions (create --overwrite).", 0, 1, 1 },
	{ "destroy", VERB_DESTROY, "destroy [NAME]",
	  "Stop the session if active, write out everything recorded, and forget it.\n"
	  "When it stops the session, it fails as stop does on write errors.", 0, 1, 1 },
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
	  "(== != < <= > >=), && || ! and parentheses, e.g.\n"
	  "  'seq >= 500 && (thread == 1 || path == \"/var/*\")'\n"
	  "A field the event lacks makes its comparison false; $ctx.cpu_id (or\n"
	  "cpu_id), $ctx.vtid and $ctx.vpid name the emitting thread's CPU, thread\n"
	  "and process. Enabling a pattern again replaces its conditions; an event\n"
	  "that several patterns match is recorded when any of them keeps it.", 1, 255, 0 },
	{ "add-context", VERB_ADD_CONTEXT,
	  "add-context [-s NAME] [-c CHANNEL] [--list] -t FIELD [-t FIELD]...",
	  "Add context fields to every event of CHANNEL (without -c, of every\n"
	  "channel of the session, channel0 if there is none yet), recorded between\n"
	  "the event header and its fields. Only before the session first starts.\n"
	  "--list: the fields known (ip: address of the code that emitted the\n"
	  "event; cpu_id: the CPU the thread ran on).", 0, 255, 0 },
	{ "disable-aggregation", VERB_DISABLE_AGG, "disable-aggregation [-s NAME] AGGREGATION...",
	  "Remove aggregations made with aggregate: their tables are forgotten\n"
	  "(what they held is in aggregations.json of the last stop).", 1, 255, 0 },
	{ "disable-event", VERB_DISABLE_EVENT, "disable-event [-s NAME] [-c CHANNEL] PATTERN...",
	  "Remove PATTERNs previously enabled with enable-event.", 1, 255, 0 },
	{ "start", VERB_START, "start [NAME]", "Start recording.", 0, 1, 1 },
	{ "stop", VERB_STOP, "stop [NAME]",
	  "Stop recording; when it returns, every event recorded is in the trace files.\n"
	  "When some could not be written (no space left, I/O error, the directory\n"
	  "removed...), it says how many events were lost and the first error (the\n"
	  "file and the reason) and exits with status 1.", 0, 1, 1 },
	{ "list", VERB_LIST, "list", "List the sessions.", 0, 0, 0 },
	{ "list-events", VERB_LIST_EVENTS, "list-events",
	  "List the events of every registered process, with their fields.", 0, 0, 0 },
	{ "status", VERB_STATUS, "status [NAME]",
	  "Show sessions: state, output, channel, events enabled, processes,\n"
	  "events recorded, discarded and lost to write errors, and the programs\n"
	  "that were not traced and why (statically linked, set-user-ID, LD_PRELOAD\n"
	  "removed from their environment, run as another user). Exits with status\n"
	  "1 when traces could not be written, saying the first error.", 0, 1, 1 },
};

#define VIEW_USAGE "view [NAME]"
#define VIEW_HELP \
	"Watch the session's events as they are recorded: trace-read --follow on\n" \
	"its output (in time order, a flush interval late, until the session is\n" \
	"stopped or destroyed; trace-read's output options apply, e.g.\n" \
	"tracectl view s --format json). For a session streamed to a relay, says\n" \
	"how to attach babeltrace2 to it."

/*
 * view [NAME] [TRACE-READ OPTIONS]: the session's output from its status,
 * then trace-read --follow there (from our directory, else $PATH).
 */
static int view_main(const char *home, int argc, char **argv)
{
	const char *session = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
	char *text = NULL, *line, dir[PATH_MAX], prog[PATH_MAX + 16];
	char *args[270];
	size_t len = 0;
	int n = 0, ret;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return 1;
	ret = ctl_command(home, "view", VERB_STATUS, session, 0, NULL, out);
	fclose(out);
	line = text ? strstr(text, "\n  output: ") : NULL;
	if (ret || !line || (session[0] == 0 && strstr(line + 1, "\nSession "))) {
		if (!ret)
			fprintf(stderr, "tracectl: view: %s\n", line ? "several sessions exist: name "
				"one" : "no session");
		free(text);
		return ret ? ret : 1;
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
	for (int i = session[0] ? 2 : 1; i < argc && n < 266; i++)
		args[n++] = argv[i];
	args[n++] = line;
	args[n] = NULL;
	execvp(prog, args);
	fprintf(stderr, "tracectl: view: cannot run %s: %s\n", prog, strerror(errno));
	free(text);
	return 1;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: tracectl [--help] [--version] COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(out, "  %s\n", verbs[i].usage);
	fprintf(out, "  %s\n", VIEW_USAGE);
	fprintf(out, "  %s\n  %s\n", AGG_USAGE, SHOW_AGG_USAGE);
	fprintf(out, "  %s\n", RECORD_USAGE);
	fprintf(out, "\n'tracectl COMMAND --help' describes a command. The session daemon of\n"
		"$SHMTRACE_HOME (default $XDG_RUNTIME_DIR/shmtrace, else ~/.shmtrace) is\n"
		"started when none runs.\n");
}

static int connect_daemon(const char *home)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_SOCK) < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* One enable-channel option as "key=value" for the daemon; -EINVAL when bad. */
static int channel_setting(int opt, const char *arg, char *out, size_t len)
{
	char *end;
	double v = arg ? strtod(arg, &end) : 0;
	const char *unit = arg ? end : "";
	unsigned long long n;

	switch (opt) {
	case 'B':	/* SIZE: bytes, k, M */
		if (!arg || v <= 0)
			return -EINVAL;
		n = (unsigned long long)(v * (!strcasecmp(unit, "k") ? 1024 :
					      !strcasecmp(unit, "m") ? 1048576 : 1));
		if (*unit && strcasecmp(unit, "k") && strcasecmp(unit, "m"))
			return -EINVAL;
		snprintf(out, len, "subbuf=%llu", n);
		return 0;
	case 'R':	/* rotation size: KiB to the daemon */
		if (v < 0 || (*unit && strcasecmp(unit, "k") && strcasecmp(unit, "m") &&
			      strcasecmp(unit, "g")))
			return -EINVAL;
		v *= !strcasecmp(unit, "g") ? 1048576 : !strcasecmp(unit, "m") ? 1024 :
		     !strcasecmp(unit, "k") ? 1 : 1.0 / 1024;
		snprintf(out, len, "size=%llu", (unsigned long long)(v + 0.999));
		return 0;
	case 'E':
	case 'F':	/* TIME: ms, s, us; a bare number is ms */
		if (!arg || v < 0)
			return -EINVAL;
		if (!strcmp(unit, "s"))
			v *= 1000;
		else if (!strcmp(unit, "us"))
			v /= 1000;
		else if (*unit && strcmp(unit, "ms"))
			return -EINVAL;
		snprintf(out, len, "%s=%llu", opt == 'E' ? "every" : "flush",
			 (unsigned long long)(v + 0.5));
		return 0;
	case 'N':
	case 'P':
		if (!arg || *unit || v < 1)
			return -EINVAL;
		snprintf(out, len, "%s=%llu", opt == 'N' ? "num" : "pool", (unsigned long long)v);
		return 0;
	case 'O':
	case 'D':
		snprintf(out, len, "mode=%s", opt == 'O' ? "overwrite" : "discard");
		return 0;
	case 'Z':
		if (strcmp(arg, "lz4") && strcmp(arg, "none"))
			return -EINVAL;
		snprintf(out, len, "compress=%s", arg);
		return 0;
	}
	return -EINVAL;
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

int ctl_exe_dir(char *out, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", out, cap - 1);
	char *slash;

	if (n <= 0)
		return -ENOENT;
	out[n] = 0;
	slash = strrchr(out, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	return 0;
}

static void find_sessiond(char *out, size_t cap)
{
	const char *e = getenv("SHMTRACE_SESSIOND");
	char dir[PATH_MAX];

	if (e && *e) {
		snprintf(out, cap, "%s", e);
		return;
	}
	if (ctl_exe_dir(dir, sizeof(dir)) == 0 &&
	    snprintf(out, cap, "%s/trace-sessiond", dir) < (int)cap && access(out, X_OK) == 0)
		return;
	snprintf(out, cap, "%s/trace-sessiond", BINDIR);
}

static int start_daemon(void)
{
	char path[PATH_MAX];
	int status;
	pid_t pid;

	find_sessiond(path, sizeof(path));
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(path, "trace-sessiond", "--daemonize", (char *)NULL);
		fprintf(stderr, "tracectl: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

/* Text the daemon passed in a memfd (MSG_REPLY_FD), from its start, to @out. */
static void ctl_copy_fd(int fd, FILE *out)
{
	char chunk[65536];
	off_t off = 0;
	ssize_t n;

	while (out && (n = pread(fd, chunk, sizeof(chunk), off)) > 0) {
		fwrite(chunk, 1, (size_t)n, out);
		off += n;
	}
	if (out)
		fflush(out);
}

int ctl_command(const char *home, const char *name, enum proto_verb verb, const char *session,
		int argc, char **argv, FILE *out)
{
	static char body[PROTO_MAX_MSG];
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct msg_cmd *c = (struct msg_cmd *)(void *)body;
	size_t pos = sizeof(*c);
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	int fd, ret;
	long n;

	memset(c, 0, sizeof(*c));
	c->verb = verb;
	c->argc = (uint32_t)argc;
	if (strlen(session) >= sizeof(c->session)) {
		fprintf(stderr, "tracectl: session name too long\n");
		return 2;
	}
	strcpy(c->session, session);
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		if (pos + l > sizeof(body) - 64) {
			fprintf(stderr, "tracectl: arguments too long\n");
			return 2;
		}
		memcpy(body + pos, argv[i], l);
		pos += l;
	}
	fd = connect_daemon(home);
	if (fd == -ENOENT || fd == -ECONNREFUSED) {
		ret = start_daemon();
		if (ret < 0) {
			fprintf(stderr, "tracectl: cannot start the session daemon (see %s/%s)\n",
				home, HOME_LOG);
			return 1;
		}
		fd = connect_daemon(home);
	}
	if (fd < 0) {
		fprintf(stderr, "tracectl: cannot reach the session daemon in %s: %s\n", home,
			strerror(-fd));
		return 1;
	}
	ret = proto_send(fd, MSG_CMD, 0, body, pos, NULL, 0);
	if (ret < 0) {
		fprintf(stderr, "tracectl: cannot send the command: %s\n", strerror(-ret));
		close(fd);
		return 1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 60000) <= 0) {
			fprintf(stderr, "tracectl: the session daemon does not answer\n");
			break;
		}
		n = proto_recv(fd, buf, &h, fds, 0);
		if (n < 0) {
			fprintf(stderr, "tracectl: no reply from the session daemon\n");
			break;
		}
		if (h.type == MSG_REPLY_TEXT && n > 0) {
			((char *)buf)[n - 1] = 0;
			if (out)
				fputs((char *)buf, out);
			continue;
		}
		if (h.type == MSG_REPLY_FD) {
			ctl_copy_fd(fds[0], out);
			close(fds[0]);
			continue;
		}
		if (h.type == MSG_REPLY) {
			close(fd);
			if (h.status == 0)
				return 0;
			if (n > 0) {
				((char *)buf)[n - 1] = 0;
				fprintf(stderr, "tracectl: %s: %s\n", name, (char *)buf);
			} else {
				fprintf(stderr, "tracectl: %s: %s\n", name, strerror(-h.status));
			}
			return 1;
		}
	}
	close(fd);
	return 1;
}

int ctl_parse_uids(const char *arg, char *out, size_t cap)
{
	char buf[1024], *save = NULL;
	size_t n = 0;

	if (!strcmp(arg, "all"))
		return snprintf(out, cap, "all") < (int)cap ? 0 : -EINVAL;
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return -EINVAL;
	out[0] = 0;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned long long uid;
		char *end;
		int k;

		errno = 0;
		uid = strtoull(w, &end, 10);
		if (errno || *end || end == w || *w == '-' || uid >= UINT32_MAX) {
			struct passwd *pw = getpwnam(w);

			if (!pw) {
				fprintf(stderr, "tracectl: no user named '%s'\n", w);
				return -EINVAL;
			}
			uid = pw->pw_uid;
		}
		k = snprintf(out + n, cap - n, "%s%llu", n ? "," : "", uid);
		if (k < 0 || (size_t)k >= cap - n)
			return -EINVAL;
		n += (size_t)k;
	}
	return n ? 0 : -EINVAL;
}

void ctl_net_option(int c, char *arg, char *net[4])
{
	net[c == 'S' ? 0 : c == 'K' ? 1 : c == 'A' ? 2 : 3] = c == 'I' && !arg ? (char *)"-" : arg;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct verb *v = NULL;
	char home[1024], output[PATH_MAX + 1] = "";
	const char *session = "";
	char *args[260];
	int c, nargs = 0, overwrite = 0, loglevel = -1;
	char ll_kind = 0, *channel = NULL, *filter = NULL;
	static char chanarg[PROTO_NAME_MAX + 16], settings[8][64];
	int nset = 0;
	static char *conds[255];
	char *pool_size = (char *)"";
	static char allow[1024];
	char *net[4] = CTL_NET_NONE;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tracectl %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "record"))
		return record_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "aggregate") || !strcmp(argv[1], "show-aggregations"))
		return agg_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "view")) {
		if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			printf("usage: tracectl %s [TRACE-READ OPTIONS]\n\n%s\n", VIEW_USAGE,
			       VIEW_HELP);
			return 0;
		}
		if (home_resolve(home, sizeof(home)) < 0 || home_prepare(home) < 0) {
			fprintf(stderr, "tracectl: no usable SHMTRACE_HOME\n");
			return 1;
		}
		return view_main(home, argc - 1, argv + 1);
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			v = &verbs[i];
	if (!v) {
		fprintf(stderr, "tracectl: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	argc--;
	argv++;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:o:c:f:t:h", opts, NULL)) != -1) {
		if (strchr("BNDFZ", c) && c && v->verb != VERB_ENABLE_CHANNEL)
			goto bad;
		if (c == 'R' || c == 'E') {
			if (v->verb != VERB_ROTATE || nset == 8 ||
			    channel_setting(c, optarg, settings[nset], sizeof(settings[0])) < 0)
				goto bad;
			nset++;
			continue;
		}
		if (v->verb == VERB_ENABLE_CHANNEL && strchr("BNODFZP", c) && c) {
			if (channel_setting(c, optarg, settings[nset], sizeof(settings[0])) < 0)
				goto bad;
			nset++;
			continue;
		}
		switch (c) {
		case 'c':
			if (v->verb != VERB_ENABLE_EVENT && v->verb != VERB_DISABLE_EVENT &&
			    v->verb != VERB_ADD_CONTEXT)
				goto bad;
			channel = optarg;
			break;
		case 't':
			if (v->verb != VERB_ADD_CONTEXT || nargs >= 255)
				goto bad;
			args[nargs++] = optarg;
			break;
		case 'l':
			if (v->verb != VERB_ADD_CONTEXT)
				goto bad;
			for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
				printf("%-8s %s\n", ctf_contexts[i].name, ctf_contexts[i].help);
			return 0;
		case 'f':
			if (v->verb != VERB_ENABLE_EVENT)
				goto bad;
			filter = optarg;
			break;
		case 's':
			session = optarg;
			break;
		case 'o':
			if (v->verb != VERB_CREATE && v->verb != VERB_SNAPSHOT)
				goto bad;
			if (optarg[0] == '/') {
				snprintf(output, sizeof(output), "%s", optarg);
			} else {
				char cwd[PATH_MAX];

				if (!getcwd(cwd, sizeof(cwd)) ||
				    snprintf(output, sizeof(output), "%s/%s", cwd, optarg) >=
				    (int)sizeof(output)) {
					fprintf(stderr, "tracectl: output path too long\n");
					return 2;
				}
			}
			break;
		case 'O':
			if (v->verb != VERB_CREATE)
				goto bad;
			overwrite = 1;
			break;
		case 'P':
			if (v->verb != VERB_CREATE)
				goto bad;
			pool_size = optarg;
			break;
		case 'S':
		case 'K':
		case 'A':
		case 'I':
			if (v->verb != VERB_CREATE)
				goto bad;
			ctl_net_option(c, optarg, net);
			break;
		case 'U':
			if (v->verb != VERB_CREATE ||
			    ctl_parse_uids(optarg, allow, sizeof(allow)) < 0)
				goto bad;
			break;
		case 'L':
		case 'Y':
			if (v->verb != VERB_ENABLE_EVENT)
				goto bad;
			loglevel = parse_loglevel(optarg);
			if (loglevel < 0) {
				fprintf(stderr, "tracectl: unknown log level '%s'\n", optarg);
				goto bad;
			}
			ll_kind = c == 'L' ? 'r' : 'o';
			break;
		case 'h':
			printf("usage: tracectl %s\n\n%s\n", v->usage, v->help);
			return 0;
		default:
			goto bad;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (v->session_arg && i == optind) {
			if (session[0]) {
				fprintf(stderr, "tracectl: %s: the session is named twice\n", v->name);
				goto bad;
			}
			session = argv[i];
			continue;
		}
		if (nargs >= 255)
			goto bad;
		args[nargs++] = argv[i];
	}
	if (v->verb == VERB_ADD_CONTEXT && !nargs) {
		fprintf(stderr, "tracectl: add-context: name a field with -t (see --list)\n");
		goto bad;
	}
	if (nargs < v->min_args || (v->session_arg ? 0 : nargs) > v->max_args ||
	    (v->session_arg && nargs > 0) || (v->max_args == 0 && !v->session_arg && session[0])) {
		fprintf(stderr, "tracectl: %s: wrong number of arguments\n", v->name);
		goto bad;
	}
	for (int i = 0; (ll_kind || filter) && i < nargs; i++) {
		char ll[8] = "";
		size_t need;

		if (ll_kind)
			snprintf(ll, sizeof(ll), "%c%c%d", PROTO_ARG_SEP, ll_kind, loglevel);
		need = strlen(args[i]) + strlen(ll) + (filter ? strlen(filter) + 3 : 0) + 1;
		conds[i] = malloc(need);
		if (!conds[i])
			return 1;
		if (filter)
			snprintf(conds[i], need, "%s%s%cf%s", args[i], ll, PROTO_ARG_SEP, filter);
		else
			snprintf(conds[i], need, "%s%s", args[i], ll);
		args[i] = conds[i];
	}
	if (channel) {
		/* the channel goes first, marked as not a pattern */
		if (nargs >= 255 || snprintf(chanarg, sizeof(chanarg), "%cchannel=%s", PROTO_ARG_SEP,
					     channel) >= (int)sizeof(chanarg))
			goto bad;
		memmove(args + 1, args, (size_t)nargs * sizeof(args[0]));
		args[0] = chanarg;
		nargs++;
	}
	for (int i = 0; i < nset; i++)
		args[nargs++] = settings[i];
	if (v->verb == VERB_SNAPSHOT) {
		args[0] = output;
		nargs = 1;
	}
	if (v->verb == VERB_CREATE) {
		args[0] = output;
		args[1] = overwrite ? (char *)"overwrite" : (char *)"discard";
		args[2] = pool_size;
		args[3] = allow;
		for (int i = 0; i < 4; i++)
			args[4 + i] = net[i];
		nargs = 8;
	}
	if (home_resolve(home, sizeof(home)) < 0) {
		fprintf(stderr, "tracectl: set SHMTRACE_HOME (no XDG_RUNTIME_DIR nor HOME)\n");
		return 1;
	}
	if (home_prepare(home) < 0) {
		fprintf(stderr, "tracectl: %s must be a directory of ours, closed to others\n", home);
		return 1;
	}
	return ctl_command(home, v->name, v->verb, session, nargs, args, stdout);
bad:
	fprintf(stderr, "usage: tracectl %s\n", v->usage);
	return 2;
}
