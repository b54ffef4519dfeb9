/* SPDX-License-Identifier: MIT */
/*
 * record.c - tracectl record: trace one command from start to end.
 *
 *	tracectl record [--output DIR] [--preload LIST] [--event PATTERN]...
 *			[--overwrite] [--pool-size N] [--context LIST] [--] CMD [ARG]...
 *
 * Starts the session daemon when none runs, creates a session of its own
 * (record-<command>-<pid>), enables the process events and state dumps,
 * the events of the chosen helpers and the patterns given (every event when
 * neither helpers nor patterns are given), starts it, and runs CMD with
 * libshmtrace and the helpers in LD_PRELOAD (ahead of any LD_PRELOAD
 * already set, which is kept). CMD's children inherit the environment, so
 * they are traced too. CMD gets our standard input, output and error; we
 * ignore SIGINT and SIGQUIT while it runs (the terminal sends them to it
 * too) and forward SIGTERM and SIGHUP. When CMD exits, the session is
 * stopped and destroyed (everything recorded is then on disk), a summary
 * goes to standard error, and we exit with CMD's status (128 + signal
 * number when it was killed), or RECORD_FAILED when the trace is
 * incomplete (write errors) or could not be made, CMD's status then said
 * on standard error. An existing non-empty --output is refused: runs are
 * never merged.
 *
 * Processes that outlive CMD: we are a child subreaper, so that the
 * processes CMD started and that were orphaned (a daemon whose parent
 * exits) become our children instead of init's (we reap them as they
 * exit, while CMD runs too). When CMD exits, the traced
 * processes the session daemon knows (VERB_PROCESSES) that descend from us
 * are still CMD's: we name them on standard error and go on tracing until
 * they exit, or until SIGINT, SIGTERM or SIGHUP (or at once with
 * --no-wait); then the session ends as above. They are never signalled.
 *
 * What was not traced: before running CMD we say when it cannot be traced
 * itself (statically linked, set-user-ID...: exec_check()); the traced
 * processes report what they run that will not be (MSG_APP_NOTICE), and
 * the session's notices (VERB_NOTICES) follow the summary. CMD gets
 * SHMTRACE_HOME, so that a process that changes its user still finds the
 * session daemon (create --allow-uid).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ctfmeta.h"
#include "execcheck.h"
#include "home.h"
#include "shm.h"
#include "ctl-client.h"
#include "record.h"
#include "units.h"
#include "util.h"
#include "verbs.h"
#include <shmtrace/reader.h>

#define RECORD_MAX_PATTERNS	64
#define RECORD_TOP		20	/* event names in the summary */
#define RECORD_FAILED		125	/* exit status: no trace, or an incomplete one */

static const struct {
	const char *name;
	const char *pattern;
} record_helpers[] = {
	{ "libc", "shmtrace_libc:*" },
	{ "pthread", "shmtrace_pthread:*" },
	{ "func", "shmtrace_func:*" },
	{ "io", "shmtrace_io:*" },
};
#define RECORD_LIBC	1u	/* bits of the mask, as listed */
#define RECORD_FUNC	4u
#define RECORD_NHELPERS (sizeof(record_helpers) / sizeof(record_helpers[0]))

static pid_t record_child;

static void record_forward(int sig)
{
	if (record_child > 0)
		kill(record_child, sig);
}

/* Where a helper library is: next to us in a build tree, else installed. */
static int record_lib_path(const char *lib, char *out, size_t cap)
{
	const char *e = getenv("SHMTRACE_LIBDIR");
	char dir[PATH_MAX];

	if (e && *e)
		return snprintf(out, cap, "%s/%s", e, lib) < (int)cap ? 0 : -ENAMETOOLONG;
	if (ctl_exe_dir(dir, sizeof(dir)) == 0 &&
	    snprintf(out, cap, "%s/.libs/%s", dir, lib) < (int)cap && access(out, R_OK) == 0)
		return 0;
	return snprintf(out, cap, "%s/%s", LIBDIR, lib) < (int)cap ? 0 : -ENAMETOOLONG;
}

/* LD_PRELOAD for CMD: libshmtrace, the helpers of @mask, the one we had. */
static int record_preload(unsigned int mask, char *out, size_t cap)
{
	char path[PATH_MAX], name[64];
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0;

	out[0] = 0;
	for (int i = -1; i < (int)RECORD_NHELPERS; i++) {
		if (i >= 0 && !(mask & (1u << i)))
			continue;
		snprintf(name, sizeof(name), i < 0 ? "libshmtrace.so" : "libshmtrace-%s.so",
			 i < 0 ? "" : record_helpers[i].name);
		if (record_lib_path(name, path, sizeof(path)) < 0)
			return -ENAMETOOLONG;
		if (access(path, R_OK) < 0) {
			fprintf(stderr, "tracectl: record: %s: %s\n", path, strerror(errno));
			return -ENOENT;
		}
		if (n + strlen(path) + 2 > cap)
			return -ENAMETOOLONG;
		n += (size_t)sprintf(out + n, "%s%s", n ? ":" : "", path);
	}
	if (old && *old) {
		if (n + strlen(old) + 2 > cap)
			return -ENAMETOOLONG;
		sprintf(out + n, ":%s", old);
	}
	return 0;
}

static int record_parse_preload(const char *list, unsigned int *mask)
{
	char buf[256], *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return -EINVAL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strcmp(w, "all")) {
			*mask = (1u << RECORD_NHELPERS) - 1;
			continue;
		}
		for (i = 0; i < RECORD_NHELPERS && strcmp(w, record_helpers[i].name); i++)
			;
		if (i == RECORD_NHELPERS) {
			fprintf(stderr, "tracectl: record: unknown helper '%s'; the helpers:", w);
			for (i = 0; i < RECORD_NHELPERS; i++)
				fprintf(stderr, " %s", record_helpers[i].name);
			fprintf(stderr, " (or all)\n");
			return -EINVAL;
		}
		*mask |= 1u << i;
	}
	return 0;
}

/* Say when CMD itself will not be traced. */
static void record_check_cmd(const char *cmd)
{
	char path[PATH_MAX];
	const char *why = NULL, *then = "nor the programs it runs: the loader removes LD_PRELOAD "
				       "from their environment";
	uint32_t uid = 0;

	if (exec_resolve(cmd, getenv("PATH"), path, sizeof(path)) < 0)
		return;
	switch (exec_check(AT_FDCWD, path, 0, &uid)) {
	case NOTICE_STATIC:
		why = "it is statically linked and cannot load libshmtrace";
		then = "the dynamically linked programs it runs are";
		break;
	case NOTICE_FOREIGN:
		why = "it is not an x86-64 program, libshmtrace cannot load in it";
		then = "the x86-64 programs it runs are";
		break;
	case NOTICE_SETUID:
		why = "it is a set-user-ID program, the loader drops LD_PRELOAD";
		break;
	case NOTICE_SETGID:
		why = "it is a set-group-ID program, the loader drops LD_PRELOAD";
		break;
	case NOTICE_CAPS:
		why = "it has file capabilities, the loader drops LD_PRELOAD";
		break;
	case NOTICE_IDS:
		why = "our effective uid or gid is not the real one, the loader drops LD_PRELOAD";
		break;
	default:
		return;
	}
	fprintf(stderr, "tracectl: record: %s will not be traced: %s (%s)\n", path, why, then);
}

/* Run CMD; returns its wait status, or -errno when it could not start. */
#define RECORD_REGISTER_MS	"3000"	/* SHMTRACE_REGISTER_TIMEOUT for CMD */

static int record_run(char **cmd, const char *preload, const char *home)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = record_forward };
	struct sigaction old_int, old_quit, old_term, old_hup;
	int status, pfd[2], err = 0;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	record_child = fork();
	if (record_child == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		close(pfd[0]);
		setenv("LD_PRELOAD", preload, 1);
		setenv("SHMTRACE_HOME", home, 1);
		/* the session is active: every program of CMD waits for the
		 * daemon to enable its events, however busy the machine */
		setenv("SHMTRACE_REGISTER_TIMEOUT", RECORD_REGISTER_MS, 0);
		execvp(cmd[0], cmd);
		err = errno;
		(void)!write(pfd[1], &err, sizeof(err));
		_exit(127);
	}
	close(pfd[1]);
	if (record_child < 0) {
		err = errno;
	} else {
		if (read(pfd[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
			err = 0;	/* the exec worked: the pipe closed */
		/* CMD, and the orphans of its tree that come back to us */
		for (;;) {
			int st;
			pid_t w = waitpid(-1, &st, 0);

			if (w == record_child) {
				status = st;
				break;
			}
			if (w < 0 && errno != EINTR) {
				status = 0;
				break;
			}
		}
	}
	close(pfd[0]);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (err) {
		fprintf(stderr, "tracectl: record: cannot run %s: %s\n", cmd[0], strerror(err));
		return -err;
	}
	return status;
}

/* ---- processes that outlive CMD ------------------------------------------ */

static volatile sig_atomic_t record_stop;

static void record_on_stop(int sig)
{
	record_stop = sig;
}

#define RECORD_GRACE_NS	1000000000ull	/* for a descendant to register */
#define RECORD_ASK_NS	2000000000ull	/* the session daemon silent: give up */
#define RECORD_MAX_PROCS	65536

struct record_proc {
	pid_t pid, ppid;
	uint64_t start;
	int mine;			/* descends from us, not a zombie */
};

struct record_pending {
	pid_t pid;
	uint64_t start;
	uint64_t seen_ns;		/* first seen unregistered */
};

static struct record_pending record_pend[256];
static unsigned int record_npend;

static int record_cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct record_proc *)a)->pid, y = ((const struct record_proc *)b)->pid;

	return x < y ? -1 : x > y;
}

/* Every process of the system (pid, parent, start time); their number or -1. */
static long record_scan(struct record_proc **out)
{
	struct record_proc *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL && n < RECORD_MAX_PROCS) {
		char path[64], buf[1024], *p, state;
		unsigned long long start;
		int pid = atoi(de->d_name), ppid;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (read_small(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')) ||
		    sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			   "%*d %*d %*d %llu", &state, &ppid, &start) != 3)
			continue;
		if (n == cap) {
			struct record_proc *nv;

			cap = cap ? 2 * cap : 512;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].pid = pid;
		v[n].ppid = ppid;
		v[n].start = start;
		v[n].mine = state == 'Z' ? -1 : 0;	/* -1: a zombie, never counted */
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), record_cmp_pid);
	/* ours: a chain of parents up to us (the zombies stay out) */
	for (size_t i = 0; i < n; i++) {
		pid_t p = v[i].ppid;

		for (int depth = 0; !v[i].mine && depth < 1024 && p > 1; depth++) {
			struct record_proc key = { .pid = p }, *up;

			if (p == getpid()) {
				v[i].mine = 1;
				break;
			}
			up = bsearch(&key, v, n, sizeof(*v), record_cmp_pid);
			if (!up)
				break;
			p = up->ppid;
		}
	}
	*out = v;
	return (long)n;
}

/* Does @pid descend from us, alive (not a zombie)? A walk up its parents. */
static int record_descends(pid_t pid)
{
	for (int depth = 0; depth < 1024 && pid > 1; depth++) {
		char path[64], buf[1024], *p, state;
		int ppid;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (read_small(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')) ||
		    sscanf(p + 1, " %c %d", &state, &ppid) != 2 || (depth == 0 && state == 'Z'))
			return 0;
		if (ppid == getpid())
			return 1;
		pid = ppid;
	}
	return 0;
}

/*
 * Descendants that are not registered: those seen for the first time less
 * than RECORD_GRACE_NS ago (a process being started, or between an exec and
 * the new image's registration). Past that, one is not traced and not
 * waited for.
 */
static int record_pending_count(void)
{
	struct record_proc *v = NULL;
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	long nproc = record_scan(&v);
	int npend = 0;

	for (long i = 0; i < nproc; i++) {
		unsigned int p;

		if (v[i].mine != 1)
			continue;
		for (p = 0; p < record_npend; p++)
			if (record_pend[p].pid == v[i].pid && record_pend[p].start == v[i].start)
				break;
		if (p == record_npend) {
			if (p == sizeof(record_pend) / sizeof(record_pend[0]))
				continue;
			record_pend[p].pid = v[i].pid;
			record_pend[p].start = v[i].start;
			record_pend[p].seen_ns = now;
			record_npend++;
		}
		if (now - record_pend[p].seen_ns < RECORD_GRACE_NS)
			npend++;
	}
	free(v);
	return npend;
}

/*
 * The traced processes that descend from us and still run, as "name[pid]"
 * in @names: their number, or -1 when the session daemon cannot tell.
 * When there is none, *@pending counts the descendants that may still
 * register (record_pending_count()); a scan of every process, done only
 * then.
 */
static int record_alive(const char *home, const char *session, char *names, size_t cap,
			int *pending)
{
	char *text = NULL, *line, *eol;
	size_t len = 0, used = 0;
	FILE *f;
	int n = 0;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;	/* orphans that came back to us and exited */
	*pending = 0;
	f = open_memstream(&text, &len);
	if (!f)
		return -1;
	if (ctl_call(home, "record", VERB_PROCESSES, session, NULL, 0, NULL, f)) {
		fclose(f);
		free(text);
		return -1;	/* @names keeps what the last look found */
	}
	names[0] = 0;
	fclose(f);
	for (line = text; line && *line; line = eol ? eol + 1 : NULL) {
		unsigned long long start;
		uint64_t now;
		unsigned int uid;
		int pid, off = 0, k;

		eol = strchr(line, '\n');
		if (eol)
			*eol = 0;
		if (sscanf(line, "%d %llu %u %n", &pid, &start, &uid, &off) != 3 || !off ||
		    pid <= 1 || proc_starttime(pid, &now) < 0 || now != start ||
		    !record_descends(pid))
			continue;
		n++;
		k = snprintf(names + used, cap - used, "%s%s[%d]", used ? ", " : "", line + off, pid);
		if (k > 0 && (size_t)k < cap - used)
			used += (size_t)k;
	}
	free(text);
	if (!n)
		*pending = record_pending_count();
	return n;
}

/*
 * CMD exited: trace the processes it started that still run until they
 * exit or we are interrupted; with @no_wait, only name them.
 */
static void record_wait(const char *home, const char *session, const char *cmd, int no_wait)
{
	struct sigaction stop = { .sa_handler = record_on_stop }, o_int, o_term, o_hup;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	char names[2048] = "", last[2048] = "";
	int n, pending, warned = 0, quiet = 0;
	uint64_t failing = 0;

	sigemptyset(&stop.sa_mask);
	record_stop = 0;
	sigaction(SIGINT, &stop, &o_int);
	sigaction(SIGTERM, &stop, &o_term);
	sigaction(SIGHUP, &stop, &o_hup);
	while (!record_stop) {
		n = record_alive(home, session, names, sizeof(names), &pending);
		/* done when twice in a row nothing is left (a process may register
		 * between the daemon's list and our scan), or when the daemon
		 * cannot tell for RECORD_ASK_NS */
		if (n > 0 || pending) {
			quiet = 0;
			failing = 0;
		} else if (n < 0 && !failing) {
			failing = now_ns(CLOCK_MONOTONIC);
		} else if ((n < 0 && now_ns(CLOCK_MONOTONIC) - failing >= RECORD_ASK_NS) ||
			   (n == 0 && quiet++)) {
			break;
		}
		/* named once the same processes run at two looks in a row: a
		 * daemon's parents exit at once, it is the daemon that is named */
		if (n > 0 && !warned && strcmp(names, last)) {
			snprintf(last, sizeof(last), "%s", names);
		} else if (n > 0 && !warned) {
			fprintf(stderr, "tracectl: record: %s exited, but %d traced process%s it "
				"started still run%s: %s; %s\n", cmd, n, n == 1 ? "" : "es",
				n == 1 ? "s" : "", names, no_wait ?
				"no longer traced (--no-wait)" :
				"tracing goes on until they exit (interrupt to stop now)");
			warned = 1;
			if (no_wait)
				break;
		}
		{
			/* quick at first (most programs are done by then), then light */
			long ms = now_ns(CLOCK_MONOTONIC) - t0 < 2000000000ull ? 50 : 250;
			struct timespec ts = { 0, ms * 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	if (record_stop && warned)
		fprintf(stderr, "tracectl: record: interrupted (%s): no longer traced: %s\n",
			strsignal(record_stop), names);
	sigaction(SIGINT, &o_int, NULL);
	sigaction(SIGTERM, &o_term, NULL);
	sigaction(SIGHUP, &o_hup, NULL);
}

/* The session's notices (what was not traced, and why), one per line, or NULL. */
static char *record_notices(const char *home, const char *session)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (ctl_call(home, "record", VERB_NOTICES, session, NULL, 0, NULL, f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

static void record_print_notices(char *text)
{
	char *line, *save = NULL;
	int first = 1;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (first)
			fprintf(stderr, "tracectl: record: not traced:\n");
		first = 0;
		fprintf(stderr, "  %s\n", line);
	}
}

struct record_count {
	const char *name;
	uint64_t n;
};

static int record_cmp_count(const void *a, const void *b)
{
	const struct record_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int record_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct record_count *)a)->name,
		      ((const struct record_count *)b)->name);
}

/* Events lost to write errors, from the lines stop printed about them. */
static uint64_t record_wlost(const char *text)
{
	uint64_t sum = 0, n;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int end = 0;

		if (sscanf(l, "Channel %*s of session %*s %" SCNu64 " events lost to write errors%n",
			   &n, &end) == 1 && end)
			sum += n;
	}
	return sum;
}

/* Is @dir an existing directory with something in it? */
static int record_used(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int used = 0;

	while (d && !used && (e = readdir(d)) != NULL)
		used = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return used;
}

/* The one-screen summary: events per name, discarded, processes, time span. */
static void record_summary(const char *dir, double wall_s, uint64_t wlost)
{
	char wl[64] = "";
	const char *paths[1] = { dir };
	struct record_count *rc = NULL;
	uint64_t **per = NULL, total = 0, discarded = 0, lost = 0;
	int64_t first = 0, last = 0;
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r;
	char err[SHMTRACE_RD_ERRLEN];
	size_t ntr, n = 0, cap = 0, k;
	int ret;

	fprintf(stderr, "tracectl: record: trace in %s\n", dir);
	if (shmtrace_rd_open(&r, paths, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracectl: record: no trace to summarise: %s\n", err);
		return;
	}
	ntr = shmtrace_rd_trace_count(r);
	per = calloc(ntr + 1, sizeof(*per));
	for (size_t i = 0; per && i < ntr; i++) {
		cap += shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i));
		per[i] = calloc(shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i)) + 1, sizeof(**per));
		if (!per[i])
			goto out;
	}
	rc = calloc(cap + 1, sizeof(*rc));
	if (!per || !rc)
		goto out;
	while ((ret = shmtrace_rd_next(r, &ev)) > 0) {
		int64_t t = shmtrace_rd_event_time_ns(ev);

		per[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))][shmtrace_rd_event_class_index(ev)]++;
		if (!total++)
			first = t;
		last = t;
	}
	if (ret < 0)
		fprintf(stderr, "tracectl: record: %s\n", shmtrace_rd_errmsg(r));
	for (size_t i = 0; i < ntr; i++) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, i);

		for (size_t j = 0; j < shmtrace_rd_trace_event_class_count(t); j++) {
			if (per[i][j]) {
				rc[n].name = shmtrace_rd_trace_event_class_name(t, j);
				rc[n++].n = per[i][j];
			}
		}
	}
	/* the same name in several processes: one line */
	qsort(rc, n, sizeof(*rc), record_cmp_name);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(rc[k - 1].name, rc[i].name))
			rc[k - 1].n += rc[i].n;
		else
			rc[k++] = rc[i];
	}
	qsort(rc, k, sizeof(*rc), record_cmp_count);
	for (size_t i = 0; i < shmtrace_rd_stream_count(r); i++) {
		discarded += shmtrace_rd_stream_discarded(shmtrace_rd_stream_at(r, i));
		lost += shmtrace_rd_stream_lost_packets(shmtrace_rd_stream_at(r, i));
	}
	if (wlost)
		snprintf(wl, sizeof(wl), ", %" PRIu64 " lost to write errors", wlost);
	fprintf(stderr, "tracectl: record: %zu process%s, %" PRIu64 " events in %.3f s "
		"(command ran %.3f s), %" PRIu64 " discarded%s%s\n", ntr, ntr == 1 ? "" : "es",
		total, total ? (double)(last - first) / 1e9 : 0.0, wall_s, discarded,
		lost && !wlost ? ", packets lost (overwritten)" : "", wl);
	for (size_t i = 0; i < k && i < RECORD_TOP; i++)
		fprintf(stderr, "  %12" PRIu64 "  %s\n", rc[i].n, rc[i].name);
	if (k > RECORD_TOP)
		fprintf(stderr, "  (%zu more event names: trace-read --count %s)\n",
			k - RECORD_TOP, dir);
out:
	for (size_t i = 0; per && i < ntr; i++)
		free(per[i]);
	free(per);
	free(rc);
	shmtrace_rd_close(r);
}

/*
 * A streamed session's summary, from its status: where it went and the
 * counts of every channel.
 */
static void record_net_summary(const char *home, const char *session)
{
	static const char *const keys[] = {
		"events recorded", "events discarded", "events lost without a buffer",
		"events lost to write errors",
		"events sent but not confirmed stored by a relay that went away",
	};
	uint64_t sum[5] = { 0 };
	char *text = NULL, *line, *save;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return;
	ctl_call(home, "record", VERB_STATUS, session, NULL, 0, NULL, out);
	fclose(out);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " ");
		if (!strncmp(line, "output: ", 8))
			fprintf(stderr, "tracectl: record: trace streamed to %s\n", line + 8);
		for (size_t i = 0; i < 5; i++)
			if (!strncmp(line, keys[i], strlen(keys[i])) && line[strlen(keys[i])] == ':')
				sum[i] += strtoull(line + strlen(keys[i]) + 1, NULL, 10);
	}
	fprintf(stderr, "tracectl: record: %" PRIu64 " events sent, %" PRIu64 " discarded, %"
		PRIu64 " lost (%" PRIu64 " of those sent not confirmed stored)\n", sum[0], sum[1],
		sum[2] + sum[3], sum[4]);
	free(text);
}

/*
 * --aggregate: the profile kept in the processes (aggregations.json), with
 * the function names the trace's state dumps give, printed by trace-read.
 */
static void record_profile(const char *dir)
{
	char prog[PATH_MAX + 16], exe[PATH_MAX];
	pid_t pid;

	if (ctl_exe_dir(exe, sizeof(exe)) < 0 ||
	    snprintf(prog, sizeof(prog), "%s/trace-read", exe) >= (int)sizeof(prog) ||
	    access(prog, X_OK) < 0)
		snprintf(prog, sizeof(prog), "trace-read");
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		dup2(STDERR_FILENO, STDOUT_FILENO);	/* the program's output stays its own */
		execlp(prog, "trace-read", "--aggregations", dir, (char *)NULL);
		fprintf(stderr, "tracectl: record: cannot run trace-read: %s\n", strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

const struct option record_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "preload", required_argument, NULL, 'p' },
	{ "event", required_argument, NULL, 'e' },
	{ "overwrite", no_argument, NULL, 'O' },
	{ "pool-size", required_argument, NULL, 'P' },
	{ "context", required_argument, NULL, 'C' },
	{ "no-wait", no_argument, NULL, 'W' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "allow-uid", required_argument, NULL, 'U' },
	{ "aggregate", no_argument, NULL, 'G' },
	CTL_NET_LONGOPTS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int record_main(const struct verb *v, int argc, char **argv)
{
	char home[1024], dir[PATH_MAX], session[64], preload[8192], stamp[32], cwd[PATH_MAX];
	const char *patterns[RECORD_MAX_PATTERNS + RECORD_NHELPERS + 2];
	static struct cmd_create create;
	struct cmd_context ctx = { .context = 0 };
	struct cmd_aggregate profile = { .name = "profile", .flags = CMD_AGG_PROFILE };
	struct cmd_events events = { .ll_kind = CMD_LL_ANY };
	char *tok, *save, *notices;
	const char *output = NULL, *base;
	unsigned int mask = 0;
	uint64_t pool;
	int c, npat = 0, no_wait = 0, status, ret, code, streamed, aggregate = 0;
	struct timespec t0, t1;
	struct tm tm;
	time_t now;
	FILE *stop_out;
	char *stop_text = NULL;
	size_t stop_len = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, v->shortopts, v->longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'p':
			if (record_parse_preload(optarg, &mask) < 0)
				return 2;
			break;
		case 'e':
			if (npat == RECORD_MAX_PATTERNS) {
				fprintf(stderr, "tracectl: record: too many patterns\n");
				return 2;
			}
			patterns[npat++] = optarg;
			break;
		case 'O':
			create.mode = SHM_MODE_OVERWRITE;
			break;
		case 'P':
			if (units_size(optarg, &pool) < 0 || pool < 1 || pool > SHM_MAX_SLOTS) {
				fprintf(stderr, "tracectl: record: --pool-size: 1 to %u buffers, not "
					"'%s'\n", SHM_MAX_SLOTS, optarg);
				return 2;
			}
			create.pool_size = (uint32_t)pool;
			break;
		case 'C':
			for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (!ctf_context_bit(tok)) {
					fprintf(stderr, "tracectl: record: --context: no field '%s' (see "
						"tracectl add-context --list)\n", tok);
					return 2;
				}
				ctx.context |= ctf_context_bit(tok);
			}
			break;
		case 'W':
			no_wait = 1;
			break;
		case 'T':
			if (ctl_timeout_set(optarg, "--timeout") < 0)
				return 2;
			break;
		case 'G':
			aggregate = 1;
			break;
		case 'U':
			if (ctl_parse_uids(optarg, &create) < 0)
				return 2;
			break;
		case 'S':
		case 'K':
		case 'A':
		case 'I':
			if (ctl_net_option(c, optarg, &create) < 0)
				return 2;
			break;
		case 'h':
			verb_help(v, stdout);
			return 0;
		default:
			verb_help(v, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		verb_help(v, stderr);
		return 2;
	}
	streamed = create.set_url[0] || create.ctrl_url[0] || create.data_url[0] || create.live;
	if (streamed && output) {
		fprintf(stderr, "tracectl: record: --output and a relay address exclude each other\n");
		return 2;
	}
	if (aggregate && (!(mask & RECORD_FUNC) || streamed)) {
		fprintf(stderr, "tracectl: record: --aggregate profiles functions: it needs "
			"--preload func (and libc for allocations), and a local output\n");
		return 2;
	}
	if (!npat && !mask)
		patterns[npat++] = "*";
	for (size_t i = 0; i < RECORD_NHELPERS; i++)
		/* with --aggregate, calls and allocations go to the profile only */
		if ((mask & (1u << i)) && !(aggregate && ((1u << i) & (RECORD_FUNC | RECORD_LIBC))))
			patterns[npat++] = record_helpers[i].pattern;
	patterns[npat++] = "shmtrace_proc:*";
	patterns[npat++] = "shmtrace_statedump:*";
	if (record_preload(mask, preload, sizeof(preload)) < 0)
		return RECORD_FAILED;
	if (ctl_home(home, sizeof(home)))
		return RECORD_FAILED;
	if (home[0] != '/') {	/* CMD's processes may change directory */
		if (!getcwd(cwd, sizeof(cwd)) || strlen(cwd) + 1 + strlen(home) >= sizeof(home)) {
			fprintf(stderr, "tracectl: record: SHMTRACE_HOME: path too long\n");
			return RECORD_FAILED;
		}
		memmove(home + strlen(cwd) + 1, home, strlen(home) + 1);
		memcpy(home, cwd, strlen(cwd));
		home[strlen(cwd)] = '/';
	}
	base = strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind];
	snprintf(session, sizeof(session), "record-%.24s-%d", base, (int)getpid());
	now = time(NULL);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (output && output[0] == '/')
		ret = snprintf(dir, sizeof(dir), "%s", output);
	else if (output)
		ret = getcwd(cwd, sizeof(cwd)) ? snprintf(dir, sizeof(dir), "%s/%s", cwd, output) :
		      -1;
	else
		ret = snprintf(dir, sizeof(dir), "%s/%s/%s-%s", home, HOME_TRACES, session, stamp);
	if (ret < 0 || ret >= (int)sizeof(dir)) {
		fprintf(stderr, "tracectl: record: output path too long\n");
		return 2;
	}
	if (!streamed && record_used(dir)) {
		fprintf(stderr, "tracectl: record: %s is not empty (an earlier run?): runs are "
			"never merged; remove it or choose another --output\n", dir);
		return RECORD_FAILED;
	}
	if (!streamed)
		snprintf(create.output, sizeof(create.output), "%s", dir);
	if (ctl_call(home, "record", VERB_CREATE, session, &create, 0, NULL, NULL))
		return RECORD_FAILED;
	if ((ctx.context && ctl_call(home, "record", VERB_ADD_CONTEXT, session, &ctx, 0, NULL,
				     NULL)) ||
	    (aggregate && ctl_call(home, "record", VERB_AGGREGATE, session, &profile, 0, NULL,
				   NULL)) ||
	    ctl_call(home, "record", VERB_ENABLE_EVENT, session, &events, (unsigned int)npat,
		     patterns, NULL) ||
	    ctl_call(home, "record", VERB_START, session, NULL, 0, NULL, NULL)) {
		ctl_call(home, "record", VERB_DESTROY, session, NULL, 0, NULL, NULL);
		return RECORD_FAILED;
	}
	record_check_cmd(argv[optind]);
	/* orphans of CMD's tree come back to us, not to init */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = record_run(argv + optind, preload, home);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (status >= 0)
		record_wait(home, session, base, no_wait);
	stop_out = open_memstream(&stop_text, &stop_len);	/* its write error lines */
	ret = ctl_call(home, "record", VERB_STOP, session, NULL, 0, NULL, stop_out);
	if (stop_out)
		fclose(stop_out);
	if (streamed)
		record_net_summary(home, session);
	notices = record_notices(home, session);
	ret |= ctl_call(home, "record", VERB_DESTROY, session, NULL, 0, NULL, NULL);
	if (status < 0) {
		free(notices);
		free(stop_text);
		return status == -ENOENT ? 127 : 126;
	}
	if (!streamed)
		record_summary(dir, (double)(t1.tv_sec - t0.tv_sec) +
			       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, record_wlost(stop_text));
	if (aggregate)
		record_profile(dir);
	free(stop_text);
	record_print_notices(notices);
	free(notices);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (ret) {
		fprintf(stderr, "tracectl: record: the trace is incomplete (exit status %d); %s "
			"exited with status %d\n", RECORD_FAILED, argv[optind], code);
		return RECORD_FAILED;
	}
	return code;
}
