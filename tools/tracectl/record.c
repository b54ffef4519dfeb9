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
#include "support/ctfmeta.h"
#include "common/execcheck.h"
#include "common/home.h"
#include "common/shm.h"
#include "ctl-client.h"
#include "record.h"
#include "render.h"
#include "support/noticetext.h"
#include "why.h"
#include "support/units.h"
#include "common/util.h"
#include "support/sysutil.h"
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

/* CMD itself will not be traced: why (enum proto_notice, 0: it will), and its path */
static uint32_t record_cmd_kind;
static char record_cmd_path[PATH_MAX];

/* Say when CMD itself will not be traced. */
static void record_check_cmd(const char *cmd)
{
	char path[PATH_MAX];
	const char *why = NULL, *then = "nor the programs it runs: the loader removes LD_PRELOAD "
				       "from their environment";
	uint32_t uid = 0;

	if (exec_resolve(cmd, getenv("PATH"), path, sizeof(path)) < 0)
		return;
	record_cmd_kind = (uint32_t)exec_check(AT_FDCWD, path, 0, &uid);
	snprintf(record_cmd_path, sizeof(record_cmd_path), "%s", path);
	switch (record_cmd_kind) {
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
		record_cmd_kind = 0;
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

/* The traced processes of CMD that still run: at the last look, and when named. */
#define RECORD_MAX_LEFT	64
struct record_left {
	pid_t pid;
	char name[PROTO_PROCNAME];
};
static struct record_left record_seen[RECORD_MAX_LEFT], record_left[RECORD_MAX_LEFT];
static unsigned int record_nseen, record_nleft;
static int record_waited;		/* record went on tracing them */

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
	struct ctl_reply rep;
	size_t used = 0;
	int n = 0;

	while (waitpid(-1, NULL, WNOHANG) > 0)
		;	/* orphans that came back to us and exited */
	*pending = 0;
	if (ctl_request(home, "record", VERB_PROCESSES, session, NULL, 0, NULL, &rep)) {
		ctl_reply_free(&rep);
		return -1;	/* @names keeps what the last look found */
	}
	names[0] = 0;
	record_nseen = 0;
	for (size_t i = 0; i < rep.n; i++) {
		const struct rec_process *p = rep.rec[i].body;
		uint64_t now;
		int k;

		if (rep.rec[i].kind != REC_PROCESS || p->pid <= 1 || p->pid > INT32_MAX ||
		    proc_starttime((pid_t)p->pid, &now) < 0 || now != p->starttime ||
		    !record_descends((pid_t)p->pid))
			continue;
		n++;
		if (record_nseen < RECORD_MAX_LEFT) {
			record_seen[record_nseen].pid = (pid_t)p->pid;
			snprintf(record_seen[record_nseen++].name, PROTO_PROCNAME, "%s", p->name);
		}
		k = snprintf(names + used, cap - used, "%s%s[%u]", used ? ", " : "", p->name, p->pid);
		if (k > 0 && (size_t)k < cap - used)
			used += (size_t)k;
	}
	ctl_reply_free(&rep);
	if (!n)
		*pending = record_pending_count();
	return n;
}

/* We are a child subreaper (record_subreaper) */
static int record_subreaper;

/*
 * No process descends from us any more: the orphans of CMD's tree come
 * back to us (we are their subreaper), so one still alive would have an
 * ancestor among our children, and we have none (those that exited
 * reaped here). The processes that CMD started and that the session
 * daemon knows are then all gone: what they sent it before is taken in
 * before our next request (every command first reads what the traced
 * processes sent, their hang-ups too).
 */
static int record_childless(void)
{
	pid_t w;

	if (!record_subreaper)
		return 0;
	while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
		;
	return w < 0 && errno == ECHILD;
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
	sigset_t chld, o_mask;

	record_stop = 0;
	if (record_childless())
		return;	/* the usual end: nothing of CMD's runs, nothing to ask */
	sigemptyset(&stop.sa_mask);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &o_mask);	/* taken by sigtimedwait() below */
	sigaction(SIGINT, &stop, &o_int);
	sigaction(SIGTERM, &stop, &o_term);
	sigaction(SIGHUP, &stop, &o_hup);
	while (!record_stop && !record_childless()) {
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
			memcpy(record_left, record_seen, sizeof(record_left));
			record_nleft = record_nseen;
			record_waited = !no_wait;
			if (no_wait)
				break;
		}
		{
			/* quick at first (most programs are done by then), then
			 * light; the exit of a child of ours ends the nap */
			long ms = now_ns(CLOCK_MONOTONIC) - t0 < 2000000000ull ? 50 : 250;
			struct timespec ts = { 0, ms * 1000000 };

			sigtimedwait(&chld, NULL, &ts);
		}
	}
	if (record_stop && warned)
		fprintf(stderr, "tracectl: record: interrupted (%s): no longer traced: %s\n",
			strsignal(record_stop), names);
	if (record_stop && !warned) {	/* interrupted before they were named */
		memcpy(record_left, record_seen, sizeof(record_left));
		record_nleft = record_nseen;
		record_waited = 1;
	}
	sigaction(SIGINT, &o_int, NULL);
	sigaction(SIGTERM, &o_term, NULL);
	sigaction(SIGHUP, &o_hup, NULL);
	sigprocmask(SIG_SETMASK, &o_mask, NULL);
}

/* The session's notices (what was not traced, and why), in @rep (REC_NOTICE records). */
static void record_notices(const char *home, const char *session, struct ctl_reply *rep)
{
	if (ctl_request(home, "record", VERB_NOTICES, session, NULL, 0, NULL, rep))
		ctl_reply_free(rep);
}

static void record_print_notices(const struct ctl_reply *rep)
{
	char text[PROTO_PATH_MAX + 512];
	int first = 1;

	for (size_t i = 0; i < rep->n; i++) {
		if (rep->rec[i].kind != REC_NOTICE)
			continue;
		if (first)
			fprintf(stderr, "tracectl: record: not traced:\n");
		first = 0;
		notice_words(rep->rec[i].body, text, sizeof(text));
		fprintf(stderr, "  %s\n", text);
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

/* What the trace holds, as read: processes, events per name, discarded, time span. */
struct record_read {
	struct shmtrace_rd_reader *r;	/* (the names below are its) */
	char err[SHMTRACE_RD_ERRLEN];	/* not read: why */
	size_t ntr;			/* traces: processes */
	uint64_t total, discarded, lost_packets;
	int64_t first, last;
	struct record_count *rc;	/* per name, most first */
	size_t k;
};

/* Read the trace in @dir into @rr: 0, or -1 with rr->err. */
static int record_read(const char *dir, struct record_read *rr)
{
	const char *paths[1] = { dir };
	uint64_t **per = NULL;
	const struct shmtrace_rd_event *ev;
	size_t cap = 0, n = 0;
	int ret = -1;

	memset(rr, 0, sizeof(*rr));
	if (shmtrace_rd_open(&rr->r, paths, 1, rr->err, sizeof(rr->err)) < 0) {
		rr->r = NULL;
		return -1;
	}
	rr->ntr = shmtrace_rd_trace_count(rr->r);
	per = calloc(rr->ntr + 1, sizeof(*per));
	for (size_t i = 0; per && i < rr->ntr; i++) {
		size_t nc = shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(rr->r, i));

		cap += nc;
		per[i] = calloc(nc + 1, sizeof(**per));
		if (!per[i])
			goto out;
	}
	rr->rc = calloc(cap + 1, sizeof(*rr->rc));
	if (!per || !rr->rc) {
		snprintf(rr->err, sizeof(rr->err), "out of memory");
		goto out;
	}
	while ((ret = shmtrace_rd_next(rr->r, &ev)) > 0) {
		int64_t t = shmtrace_rd_event_time_ns(ev);

		per[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))][shmtrace_rd_event_class_index(ev)]++;
		if (!rr->total++)
			rr->first = t;
		rr->last = t;
	}
	if (ret < 0)
		fprintf(stderr, "tracectl: record: %s\n", shmtrace_rd_errmsg(rr->r));
	ret = 0;
	for (size_t i = 0; i < rr->ntr; i++) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(rr->r, i);

		for (size_t j = 0; j < shmtrace_rd_trace_event_class_count(t); j++) {
			if (per[i][j]) {
				rr->rc[n].name = shmtrace_rd_trace_event_class_name(t, j);
				rr->rc[n++].n = per[i][j];
			}
		}
	}
	/* the same name in several processes: one line */
	qsort(rr->rc, n, sizeof(*rr->rc), record_cmp_name);
	for (size_t i = 0; i < n; i++) {
		if (rr->k && !strcmp(rr->rc[rr->k - 1].name, rr->rc[i].name))
			rr->rc[rr->k - 1].n += rr->rc[i].n;
		else
			rr->rc[rr->k++] = rr->rc[i];
	}
	qsort(rr->rc, rr->k, sizeof(*rr->rc), record_cmp_count);
	for (size_t i = 0; i < shmtrace_rd_stream_count(rr->r); i++) {
		rr->discarded += shmtrace_rd_stream_discarded(shmtrace_rd_stream_at(rr->r, i));
		rr->lost_packets += shmtrace_rd_stream_lost_packets(shmtrace_rd_stream_at(rr->r, i));
	}
out:
	for (size_t i = 0; per && i < rr->ntr; i++)
		free(per[i]);
	free(per);
	return ret;
}

static void record_read_free(struct record_read *rr)
{
	free(rr->rc);
	if (rr->r)
		shmtrace_rd_close(rr->r);
	memset(rr, 0, sizeof(*rr));
}

/* The one-screen summary: events per name, discarded, processes, time span. */
static void record_summary_text(const char *dir, const struct record_read *rr, double wall_s,
				uint64_t wlost)
{
	char wl[64] = "";

	fprintf(stderr, "tracectl: record: trace in %s\n", dir);
	if (!rr->r) {
		fprintf(stderr, "tracectl: record: no trace to summarise: %s\n", rr->err);
		return;
	}
	if (wlost)
		snprintf(wl, sizeof(wl), ", %" PRIu64 " lost to write errors", wlost);
	fprintf(stderr, "tracectl: record: %zu process%s, %" PRIu64 " events in %.3f s "
		"(command ran %.3f s), %" PRIu64 " discarded%s%s\n", rr->ntr,
		rr->ntr == 1 ? "" : "es", rr->total,
		rr->total ? (double)(rr->last - rr->first) / 1e9 : 0.0, wall_s, rr->discarded,
		rr->lost_packets && !wlost ? ", packets lost (overwritten)" : "", wl);
	for (size_t i = 0; i < rr->k && i < RECORD_TOP; i++)
		fprintf(stderr, "  %12" PRIu64 "  %s\n", rr->rc[i].n, rr->rc[i].name);
	if (rr->k > RECORD_TOP)
		fprintf(stderr, "  (%zu more event names: trace-read --count %s)\n",
			rr->k - RECORD_TOP, dir);
}

/* A streamed session's summary, from stop's reply: where it went and what was sent. */
static void record_net_text(const struct rt_session *rs)
{
	struct rsummary sum;

	rsummary_of(rs, &sum);
	fprintf(stderr, "tracectl: record: trace streamed to %s (on the relay: %s)\n",
		rs->s->output, rs->s->relay_path);
	fprintf(stderr, "tracectl: record: %" PRIu64 " events sent, %" PRIu64 " discarded, %"
		PRIu64 " lost (%" PRIu64 " of those sent not confirmed stored)\n", sum.recorded,
		sum.discarded, sum.nobuf + sum.wlost, sum.unconfirmed);
}

/* Everything record has to say, for --format json: one document, one line. */
struct record_end {
	const char *session, *dir, *cmd;
	int streamed, aggregate;
	const struct rt_session *stopped;	/* stop's reply: the daemon's counters */
	const struct ctl_reply *stop;
	const struct record_read *read;
	const struct ctl_reply *notices;
	uint64_t wall_ns;
	int status;				/* CMD's wait status, < 0: it did not run */
	int exit;				/* ours */
};

static void record_summary_json(const struct record_end *e)
{
	struct jw w;

	jw_init(&w, stderr);
	jw_obj(&w);
	jw_ku64(&w, "version", CTL_JSON_VERSION);
	jw_kstr(&w, "command", "record");
	jw_kstr(&w, "session", e->session);
	if (e->stopped) {
		jw_key(&w, "summary");
		json_summary(&w, e->stopped);
	} else {
		jw_knull(&w, "summary");
	}
	if (e->streamed || !e->read) {
		jw_knull(&w, "trace");
	} else {
		const struct record_read *rr = e->read;

		jw_kobj(&w, "trace");
		jw_kstr(&w, "path", e->dir);
		if (!rr->r) {
			jw_kstr(&w, "error", rr->err);
		} else {
			jw_knull(&w, "error");
			jw_ku64(&w, "processes", rr->ntr);
			jw_ku64(&w, "events", rr->total);
			jw_ku64(&w, "discarded", rr->discarded);
			jw_ku64(&w, "packets_lost", rr->lost_packets);
			jw_ku64(&w, "span_ns", rr->total ? (uint64_t)(rr->last - rr->first) : 0);
			jw_karr(&w, "events_by_name");
			for (size_t i = 0; i < rr->k; i++) {
				jw_obj(&w);
				jw_kstr(&w, "name", rr->rc[i].name);
				jw_ku64(&w, "count", rr->rc[i].n);
				jw_end(&w);
			}
			jw_end_arr(&w);
		}
		jw_kbool(&w, "aggregations", e->aggregate != 0);
		jw_end(&w);
	}
	jw_karr(&w, "notices");
	for (size_t i = 0; e->notices && i < e->notices->n; i++)
		if (e->notices->rec[i].kind == REC_NOTICE)
			json_notice(&w, e->notices->rec[i].body);
	jw_end_arr(&w);
	/* the processes CMD left running when it exited */
	jw_karr(&w, "left_running");
	for (unsigned int i = 0; i < record_nleft; i++) {
		jw_obj(&w);
		jw_ku64(&w, "pid", (uint64_t)record_left[i].pid);
		jw_kstr(&w, "name", record_left[i].name);
		jw_end(&w);
	}
	jw_end_arr(&w);
	jw_kbool(&w, "waited_for_them", record_waited != 0);
	if (record_stop)
		jw_ku64(&w, "interrupted_by", (uint64_t)record_stop);
	else
		jw_knull(&w, "interrupted_by");
	jw_kobj(&w, "run");
	jw_kstr(&w, "program", e->cmd);
	if (record_cmd_kind) {	/* CMD itself cannot be traced, seen before it ran */
		jw_kobj(&w, "not_traced");
		jw_kstr(&w, "kind", notice_kind_name(record_cmd_kind));
		jw_kstr(&w, "path", record_cmd_path);
		jw_end(&w);
	} else {
		jw_knull(&w, "not_traced");
	}
	jw_ku64(&w, "duration_ns", e->wall_ns);
	if (e->status >= 0 && WIFEXITED(e->status)) {
		jw_ku64(&w, "exit_status", (uint64_t)WEXITSTATUS(e->status));
		jw_knull(&w, "signal");
	} else if (e->status >= 0) {
		jw_knull(&w, "exit_status");
		jw_ku64(&w, "signal", (uint64_t)WTERMSIG(e->status));
	} else {
		jw_knull(&w, "exit_status");
		jw_knull(&w, "signal");
	}
	if (e->status < 0)	/* it could not be run: why */
		jw_ku64(&w, "exec_errno", (uint64_t)-e->status);
	else
		jw_knull(&w, "exec_errno");
	jw_end(&w);
	jw_kbool(&w, "incomplete", e->exit == RECORD_FAILED);
	jw_ku64(&w, "exit_status", (uint64_t)e->exit);
	if (e->stop && e->stop->answered && e->stop->status < 0) {
		jw_key(&w, "error");
		if (e->stop->error) {
			why_json(&w, e->stop->error);
		} else {
			struct rec_error er = { .code = RE_ERRNO, .err = -e->stop->status };

			why_json(&w, &er);
		}
	}
	jw_end(&w);
	fputc('\n', stderr);
	fflush(stderr);
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

/*
 * record stops before its command ran: its document says why (@e, the
 * daemon's, or @f: no reply), exit RECORD_FAILED.
 */
static void record_fail_json(const char *session, const struct rec_error *e,
			     const struct ctl_fail *f)
{
	struct jw w;

	jw_init(&w, stderr);
	jw_obj(&w);
	jw_ku64(&w, "version", CTL_JSON_VERSION);
	jw_kstr(&w, "command", "record");
	jw_kstr(&w, "session", session);
	jw_kbool(&w, "incomplete", true);
	jw_ku64(&w, "exit_status", RECORD_FAILED);
	jw_key(&w, "error");
	if (e)
		why_json(&w, e);
	else
		json_fail(&w, f);
	jw_end(&w);
	fputc('\n', stderr);
}

/*
 * One request of ours; its refusal said: in words, and with @fmt CTL_JSON
 * also as record's document when record stops there. 0, or the exit
 * status.
 */
static int record_ask(const char *home, const char *session, enum proto_verb verb,
		      const void *body, unsigned int nstr, const char *const *str,
		      enum ctl_format fmt)
{
	struct ctl_reply rep;
	int ret = ctl_request(home, "record", verb, session, body, nstr, str, &rep);

	if (ret && rep.answered)
		render_refusal("record", &rep);
	if (ret && rep.answered && fmt == CTL_JSON) {
		struct rec_error e = { .code = RE_ERRNO, .err = -rep.status };

		record_fail_json(session, rep.error ? rep.error : &e, NULL);
	} else if (ret && fmt == CTL_JSON && rep.fail.code[0]) {
		record_fail_json(session, NULL, &rep.fail);	/* no reply */
	}
	ctl_reply_free(&rep);
	return ret;
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
	{ "format", required_argument, NULL, 'J' },
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
	char *tok, *save;
	const char *output = NULL, *base;
	unsigned int mask = 0;
	uint64_t pool;
	int c, npat = 0, no_wait = 0, status, ret, code, streamed, aggregate = 0;
	struct timespec t0, t1;
	struct tm tm;
	time_t now;
	enum ctl_format fmt = CTL_TEXT;
	struct ctl_reply stop = { 0 }, notices = { 0 };
	struct record_read rr = { 0 };
	struct record_end end = { 0 };
	struct rtree st;
	uint64_t wlost = 0;

	optind = 1;
	while ((c = verb_getopt(v, argc, argv)) != -1) {
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
		case 'J':
			if (ctl_format_parse("record", optarg, &fmt) < 0)
				return 2;
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
		default:	/* verb_getopt() said what was wrong */
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
	if (!streamed && dir_used(dir)) {
		struct rec_error e = { .code = RE_OUTPUT_USED, .err = EEXIST };
		char text[PROTO_PATH_MAX + 256];

		snprintf(e.path, sizeof(e.path), "%s", dir);
		why_text(&e, text, sizeof(text));
		fprintf(stderr, "tracectl: record: %s\n", text);
		if (fmt == CTL_JSON)
			record_fail_json(session, &e, NULL);
		return RECORD_FAILED;
	}
	if (!streamed)
		snprintf(create.output, sizeof(create.output), "%s", dir);
	if (record_ask(home, session, VERB_CREATE, &create, 0, NULL, fmt))
		return RECORD_FAILED;
	if ((ctx.context && record_ask(home, session, VERB_ADD_CONTEXT, &ctx, 0, NULL, fmt)) ||
	    (aggregate && record_ask(home, session, VERB_AGGREGATE, &profile, 0, NULL, fmt)) ||
	    record_ask(home, session, VERB_ENABLE_EVENT, &events, (unsigned int)npat, patterns,
		       fmt) ||
	    record_ask(home, session, VERB_START, NULL, 0, NULL, fmt)) {
		record_ask(home, session, VERB_DESTROY, NULL, 0, NULL, CTL_TEXT);
		return RECORD_FAILED;
	}
	record_check_cmd(argv[optind]);
	/* orphans of CMD's tree come back to us, not to init */
	record_subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = record_run(argv + optind, preload, home);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (status >= 0)
		record_wait(home, session, base, no_wait);
	/* stop's reply: the session and its channels with every counter */
	ret = ctl_request(home, "record", VERB_STOP, session, NULL, 0, NULL, &stop);
	if (ret && stop.answered)
		render_refusal("record", &stop);
	if (stop.answered && rtree_build(&stop, &st) == 0)
		end.stopped = rtree_session(&st, session);
	if (end.stopped) {
		struct rsummary sum;

		rsummary_of(end.stopped, &sum);
		wlost = sum.wlost;
	}
	if (streamed && end.stopped && fmt == CTL_TEXT)
		record_net_text(end.stopped);
	record_notices(home, session, &notices);
	ret |= record_ask(home, session, VERB_DESTROY, NULL, 0, NULL, CTL_TEXT);
	code = status < 0 ? (status == -ENOENT ? 127 : 126) :
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (status >= 0 && !streamed)
		record_read(dir, &rr);
	if (status >= 0 && !streamed && fmt == CTL_TEXT)
		record_summary_text(dir, &rr, (double)(t1.tv_sec - t0.tv_sec) +
				    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, wlost);
	if (status >= 0 && aggregate && fmt == CTL_TEXT)
		record_profile(dir);
	if (status >= 0 && fmt == CTL_TEXT)
		record_print_notices(&notices);
	if (ret && status >= 0 && fmt == CTL_TEXT)
		fprintf(stderr, "tracectl: record: the trace is incomplete (exit status %d); %s "
			"exited with status %d\n", RECORD_FAILED, argv[optind], code);
	if (ret && status >= 0)
		code = RECORD_FAILED;
	if (fmt == CTL_JSON) {
		end.session = session;
		end.dir = dir;
		end.cmd = argv[optind];
		end.streamed = streamed;
		end.aggregate = aggregate;
		end.stop = &stop;
		end.read = status >= 0 && !streamed ? &rr : NULL;
		end.notices = &notices;
		end.wall_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
			      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
		end.status = status;
		end.exit = code;
		record_summary_json(&end);
	}
	record_read_free(&rr);
	if (end.stopped)
		rtree_free(&st);
	ctl_reply_free(&stop);
	ctl_reply_free(&notices);
	return code;
}
