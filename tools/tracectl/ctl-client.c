// SPDX-License-Identifier: MIT
/*
 * ctl-client.c - one command to the session daemon (ctl-client.h).
 *
 * A command is one MSG_CMD on a new connection to the daemon's control
 * socket; the daemon answers with any number of MSG_REPLY_ITEM (typed
 * records) and MSG_REPLY_FD, then one MSG_REPLY whose status is the
 * result. The records are collected, each checked by proto_item_decode()
 * (its size, its version, every string terminated: the daemon is not
 * trusted), in a struct ctl_reply that the caller renders (render.h):
 * nothing here prints a reply, and nothing reads one as text. When no
 * daemon listens, `trace-sessiond --daemonize` is run (it returns once its
 * socket is ready) and the connection tried again.
 *
 * Every wait on the daemon is bounded: connecting (a full backlog), sending
 * (a full queue) and each reply. A request gives up once the daemon said
 * nothing for its timeout: --timeout, else SHMTRACE_CTL_TIMEOUT, else the
 * verb's default (ctl_verb_timeout()). The verbs whose default is long
 * (they wait for the consumer to write traces out, or for a relay) also
 * give up after CTL_TIMEOUT_NS when the daemon is seen unable to answer
 * (stopped, a zombie, gone); a timeout given (0 included: no limit) is
 * kept to the letter. Giving up names the daemon's pid (its
 * socket's peer credentials) and its state (/proc/PID/stat). Giving up
 * cancels nothing: a command the daemon received is carried out when it
 * runs again. Nothing else of the caller is bounded: record's own waits
 * (its command, the processes that outlive it) are no requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ctl-client.h"
#include "common/home.h"
#include "support/units.h"
#include "common/util.h"
#include "support/protomsg.h"

#define NS_PER_MS	UINT64_C(1000000)

/* Why the request in progress got no reply, for its ctl_reply (ctl_request()). */
static struct ctl_fail fail_now;

/* No reply: @code for scripts, the sentence (also said on standard error). */
static void __attribute__((format(printf, 3, 4))) no_reply(const char *name, const char *code,
							   const char *fmt, ...)
{
	va_list ap;

	snprintf(fail_now.code, sizeof(fail_now.code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(fail_now.message, sizeof(fail_now.message), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tracectl: %s: %s\n", name, fail_now.message);
}

/* --timeout or SHMTRACE_CTL_TIMEOUT, once given: that of every request */
static uint64_t ctl_timeout;
static int ctl_timeout_given;

/* A request's wait on the daemon: silence allowed, and since when. */
struct ctl_wait {
	uint64_t limit;		/* ns; 0: no limit */
	uint64_t early;		/* ns after which a daemon unable to answer is given up; 0: never */
	uint64_t since;		/* CLOCK_MONOTONIC ns, start of the silence */
	pid_t pid;		/* the daemon, 0 when unknown */
};

uint64_t ctl_verb_timeout(enum proto_verb verb)
{
	switch (verb) {
	case VERB_CREATE:	/* a relay: up to 3 s per step */
	case VERB_STOP:		/* every recorded event written out */
	case VERB_DESTROY:	/* the same, when the session is active */
	case VERB_ROTATE:
	case VERB_SNAPSHOT:
	case VERB_CLEAR:	/* written out before it is removed */
	case VERB_SHOW_AGG:	/* merged by the consumer */
		return CTL_TIMEOUT_LONG_NS;
	default:
		return CTL_TIMEOUT_NS;
	}
}

int ctl_timeout_set(const char *arg, const char *from)
{
	uint64_t ns = 0;
	int ret = units_duration(arg, &ns);

	if (ret < 0 || ns > CTL_TIMEOUT_MAX_NS) {
		fprintf(stderr, "tracectl: %s '%s': %s\n", from, arg,
			ret < 0 ? units_why(ret, 0) : "at most 24h (0: no limit)");
		return -EINVAL;
	}
	ctl_timeout = ns;
	ctl_timeout_given = 1;
	return 0;
}

int ctl_timeout_env(void)
{
	const char *e = getenv("SHMTRACE_CTL_TIMEOUT");

	if (!e || !*e || ctl_timeout_given)
		return 0;
	return ctl_timeout_set(e, "SHMTRACE_CTL_TIMEOUT");
}

/* The state of process @pid in words, from /proc/PID/stat ("gone" without one). */
static const char *proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return "unknown";
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "gone";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "gone";
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the name may hold anything, ')' too */
	if (!p || p[1] != ' ')
		return "unknown";
	switch (p[2]) {
	case 'R': return "running";
	case 'S': return "sleeping";
	case 'D': return "waiting in the kernel (uninterruptible)";
	case 'T': return "stopped";
	case 't': return "stopped by a debugger";
	case 'Z': return "zombie";
	case 'X': return "dead";
	case 'I': return "idle";
	default: return "unknown";
	}
}

/* Can the daemon still answer? No when it is stopped, a zombie or gone. */
static int daemon_may_answer(pid_t pid)
{
	const char *st = proc_state(pid);

	return strcmp(st, "stopped") && strcmp(st, "stopped by a debugger") &&
	       strcmp(st, "zombie") && strcmp(st, "dead") && strcmp(st, "gone");
}

/* "10s", "1.5s", "250ms": @ns for a message. */
static void duration_text(uint64_t ns, char *buf, size_t len)
{
	if (ns % (1000 * NS_PER_MS) == 0)
		snprintf(buf, len, "%" PRIu64 "s", ns / (1000 * NS_PER_MS));
	else if (ns % NS_PER_MS == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / NS_PER_MS);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
}

/*
 * Giving up on the daemon: said with its pid and state, and the timeout
 * (or, when it is seen unable to answer before, the time waited);
 * EXIT_RUNTIME.
 */
static int gave_up(const struct ctl_wait *w, const char *name, const char *doing)
{
	uint64_t waited = now_ns(CLOCK_MONOTONIC) - w->since;
	char d[32];

	waited = w->limit && waited >= w->limit ? w->limit : waited - waited % (1000 * NS_PER_MS);
	duration_text(waited, d, sizeof(d));
	fail_now.daemon_pid = w->pid > 0 ? w->pid : 0;
	snprintf(fail_now.daemon_state, sizeof(fail_now.daemon_state), "%s", proc_state(w->pid));
	snprintf(fail_now.doing, sizeof(fail_now.doing), "%s", doing);
	fail_now.waited_ms = waited / NS_PER_MS;
	if (w->pid > 0)
		no_reply(name, "no-answer", "the session daemon (pid %d, %s) did not %s within %s",
			 (int)w->pid, fail_now.daemon_state, doing, d);
	else
		no_reply(name, "no-answer", "the session daemon did not %s within %s", doing, d);
	return EXIT_RUNTIME;
}

/*
 * Wait for @events on @fd within @w: 1 when ready, 0 when the wait is
 * over (the limit reached, or the daemon unable to answer), < 0 an error.
 * A signal our caller handles (record's interrupt) is not the daemon's
 * silence: the wait goes on.
 */
static int ctl_wait(const struct ctl_wait *w, int fd, short events)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		uint64_t waited = now_ns(CLOCK_MONOTONIC) - w->since, ms = 1000;
		int r;

		if (w->limit && waited >= w->limit)
			return 0;
		if (w->early && waited >= w->early && !daemon_may_answer(w->pid))
			return 0;
		/* slices of at most a second, so that the state is looked at */
		if (w->limit && (w->limit - waited + NS_PER_MS - 1) / NS_PER_MS < ms)
			ms = (w->limit - waited + NS_PER_MS - 1) / NS_PER_MS;
		r = poll(&pfd, 1, (int)ms);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
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

int ctl_home(char *home, size_t cap)
{
	struct stat st;
	int ret;

	if (home_resolve(home, cap) < 0) {
		fprintf(stderr, "tracectl: set SHMTRACE_HOME (no XDG_RUNTIME_DIR nor HOME)\n");
		return EXIT_RUNTIME;
	}
	ret = home_prepare(home, &st);
	if (!ret)
		return 0;
	if (!st.st_mode)	/* nothing there, and it could not be made */
		fprintf(stderr, "tracectl: SHMTRACE_HOME %s cannot be made: %s\n", home,
			strerror(-ret));
	else if (ret == -ENOTDIR)
		fprintf(stderr, "tracectl: SHMTRACE_HOME %s is not a directory (%s): choose "
			"another\n", home, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
	else if (ret == -EPERM && st.st_uid != geteuid())
		fprintf(stderr, "tracectl: SHMTRACE_HOME %s belongs to uid %u, not to uid %u: "
			"choose a directory of your own\n", home, (unsigned)st.st_uid,
			(unsigned)geteuid());
	else
		fprintf(stderr, "tracectl: SHMTRACE_HOME %s has mode %04o, open to others: "
			"chmod 700 %s\n", home, (unsigned)(st.st_mode & 07777), home);
	return EXIT_RUNTIME;
}

int ctl_abspath(const char *arg, char *out, size_t cap)
{
	char cwd[PATH_MAX];

	if (arg[0] == '/')
		return snprintf(out, cap, "%s", arg) < (int)cap ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return snprintf(out, cap, "%s/%s", cwd, arg) < (int)cap ? 0 : -ENAMETOOLONG;
}

int ctl_parse_uids(const char *arg, struct cmd_create *c)
{
	char buf[1024], *save = NULL;

	c->allow_all = 0;
	c->nallow = 0;
	if (!strcmp(arg, "all")) {
		c->allow_all = 1;
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		goto bad;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned long long uid;
		char *end;

		errno = 0;
		uid = strtoull(w, &end, 10);
		if (errno || *end || end == w || *w == '-' || uid >= UINT32_MAX) {
			struct passwd *pw = getpwnam(w);

			if (!pw) {
				fprintf(stderr, "tracectl: --allow-uid: no user named '%s'\n", w);
				return -EINVAL;
			}
			uid = pw->pw_uid;
		}
		if (c->nallow == PROTO_ALLOW_MAX)
			goto bad;
		c->allow[c->nallow++] = (uint32_t)uid;
	}
	if (c->nallow)
		return 0;
bad:
	fprintf(stderr, "tracectl: --allow-uid: all, or up to %d uids or user names separated "
		"by commas\n", PROTO_ALLOW_MAX);
	return -EINVAL;
}

int ctl_net_option(int c, const char *arg, struct cmd_create *cr)
{
	char *dst = c == 'S' ? cr->set_url : c == 'K' ? cr->ctrl_url : cr->data_url;
	uint64_t ns = 0;
	int ret;

	if (c == 'I') {
		cr->live = 1;
		cr->live_us = 0;
		if (!arg)
			return 0;
		/* as lttng's --live: a bare number is microseconds */
		ret = units_duration(arg, &ns);
		if (ret == -EDOM) {
			char us[64];

			snprintf(us, sizeof(us), "%.60sus", arg);
			ret = units_duration(us, &ns);
		}
		if (ret < 0 || ns < 1000 || ns / 1000 > 3600000000ull) {
			fprintf(stderr, "tracectl: --live=PERIOD: microseconds, or with a unit, "
				"from 1us to 1h, not '%s'\n", arg);
			return -EINVAL;
		}
		cr->live_us = (uint32_t)(ns / 1000);
		return 0;
	}
	if (snprintf(dst, PROTO_URL_MAX, "%s", arg) >= PROTO_URL_MAX) {
		fprintf(stderr, "tracectl: address too long (at most %d bytes)\n", PROTO_URL_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

/* The pid of the session daemon of @home, from its pid file; 0 when unknown. */
static pid_t pidfile_pid(const char *home)
{
	char path[PATH_MAX], buf[32];
	FILE *f;
	long pid = 0;

	if (home_path(path, sizeof(path), home, HOME_PID) < 0)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", &pid) != 1 || pid <= 0 ||
	    pid > INT32_MAX)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

/*
 * A connection to the daemon of @home, non-blocking (a full backlog is
 * waited for within @w, whose pid it sets), or -errno; -ETIMEDOUT said.
 */
static int connect_daemon(const char *home, struct ctl_wait *w, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	int fd, ret;

	if (home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_SOCK) < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	w->since = now_ns(CLOCK_MONOTONIC);
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		struct timespec ts = { 0, 10 * (long)NS_PER_MS };

		ret = -errno;
		if (ret == -EINTR)
			continue;
		if (ret != -EAGAIN) {	/* a full backlog: the daemon is behind, or stopped */
			close(fd);
			return ret;
		}
		w->pid = pidfile_pid(home);
		if (w->limit && now_ns(CLOCK_MONOTONIC) - w->since >= w->limit) {
			close(fd);
			gave_up(w, name, "take the connection");
			return -ETIMEDOUT;
		}
		if (w->early && now_ns(CLOCK_MONOTONIC) - w->since >= w->early &&
		    !daemon_may_answer(w->pid)) {
			close(fd);
			gave_up(w, name, "take the connection");
			return -ETIMEDOUT;
		}
		nanosleep(&ts, NULL);
	}
	/* the peer of a connected socket: the process that listens, the daemon */
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) && cr.pid > 0)
		w->pid = cr.pid;
	else
		w->pid = pidfile_pid(home);
	return fd;
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

/* The daemon of @home that said it is stopping: gone, or waited for as long as @w allows. */
static void daemon_gone(const char *home, const struct ctl_wait *w)
{
	pid_t pid = pidfile_pid(home);

	while (pid > 0 && kill(pid, 0) == 0 && daemon_may_answer(pid) &&
	       (!w->limit || now_ns(CLOCK_MONOTONIC) - w->since < w->limit)) {
		struct timespec ts = { 0, 20000000 };

		nanosleep(&ts, NULL);
	}
}

void ctl_reply_free(struct ctl_reply *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		free((void *)rep->rec[i].body);
	free(rep->rec);
	free(rep->file);
	memset(rep, 0, sizeof(*rep));
}

/* What the daemon passed in a memfd (MSG_REPLY_FD), from its start, into @rep. */
static int keep_fd(int fd, struct ctl_reply *rep)
{
	FILE *f;
	char chunk[65536];
	off_t off = 0;
	ssize_t n;

	free(rep->file);
	rep->file = NULL;
	rep->file_len = 0;
	f = open_memstream(&rep->file, &rep->file_len);
	if (!f)
		return -ENOMEM;
	while ((n = pread(fd, chunk, sizeof(chunk), off)) > 0) {
		fwrite(chunk, 1, (size_t)n, f);
		off += n;
	}
	if (fclose(f) != 0 || n < 0)
		return -EIO;
	rep->has_file = 1;
	return 0;
}

/* One record (MSG_REPLY_ITEM) into @rep: 0, or -EPROTO (malformed), -ENOMEM. */
static int keep_item(const void *body, size_t len, struct ctl_reply *rep)
{
	static union proto_rec_body rec;
	uint32_t kind;
	size_t size;
	void *copy;
	int ret = proto_item_decode(body, len, &kind, &rec);

	if (ret <= 0)
		return ret;	/* 0: a kind of a later daemon, skipped */
	size = proto_rec_size(kind);
	if (rep->n == rep->cap) {
		size_t cap = rep->cap ? 2 * rep->cap : 64;
		struct ctl_rec *v = realloc(rep->rec, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rep->rec = v;
		rep->cap = cap;
	}
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, &rec, size);
	rep->rec[rep->n].kind = kind;
	rep->rec[rep->n++].body = copy;
	if (kind == REC_ERROR)
		rep->error = copy;
	return 0;
}

/* Collect the replies into @rep until the final one; its exit status. */
static int replies(int fd, const char *name, struct ctl_reply *rep, struct ctl_wait *w)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	int fds[PROTO_MAX_FDS], heard = 0;
	struct proto_hdr h;
	long n;

	for (;;) {
		int r = ctl_wait(w, fd, POLLIN), ret = 0;

		if (r == 0)
			return gave_up(w, name, "answer");
		if (r < 0) {
			fail_now.err = -r;
			no_reply(name, "unreachable", "%s", strerror(-r));
			return EXIT_RUNTIME;
		}
		n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
		if (n == -EAGAIN)
			continue;
		w->since = now_ns(CLOCK_MONOTONIC);	/* it speaks: a new silence */
		if (n < 0 && !heard && w->pid > 0 && !daemon_may_answer(w->pid))
			return -EPIPE;	/* it died before it said anything */
		if (n < 0) {
			fail_now.err = n == -EPROTO ? EPROTO : (int)-n;
			no_reply(name, n == -EPROTO ? "malformed-reply" : "no-reply",
				 "no reply from the session daemon");
			return EXIT_RUNTIME;
		}
		heard = 1;
		if (h.type == MSG_REPLY_ITEM) {
			ret = keep_item(buf, (size_t)n, rep);
		} else if (h.type == MSG_REPLY_FD) {
			ret = keep_fd(fds[0], rep);
			close(fds[0]);
		} else if (h.type == MSG_REPLY) {
			if (h.status == -ESHUTDOWN)
				return -ESHUTDOWN;	/* not carried out: ask the next one */
			rep->answered = 1;
			rep->status = h.status > 0 ? -EPROTO : h.status;
			return rep->status == 0 ? EXIT_OK : EXIT_RUNTIME;
		} else {
			ret = -EPROTO;	/* (a descriptor it carried was closed) */
		}
		if (ret < 0) {
			fail_now.err = -ret;
			if (ret == -EPROTO)
				no_reply(name, "malformed-reply", "a malformed reply from the session "
					 "daemon (of another version?)");
			else
				no_reply(name, "no-reply", "%s", strerror(-ret));
			return EXIT_RUNTIME;
		}
	}
}

int ctl_request(const char *home, const char *name, enum proto_verb verb, const char *session,
		const void *body, unsigned int nstr, const char *const *str, struct ctl_reply *rep)
{
	static char msg[PROTO_MAX_MSG - sizeof(struct proto_hdr)];
	struct ctl_wait w = { 0 };
	int fd, ret, stopping = 0;
	long len;

	memset(rep, 0, sizeof(*rep));
	memset(&fail_now, 0, sizeof(fail_now));
	if (strlen(session) >= PROTO_NAME_MAX) {
		fprintf(stderr, "tracectl: %s: a session name has at most %d bytes\n", name,
			PROTO_NAME_MAX - 1);
		return EXIT_USAGE;
	}
	len = proto_cmd_encode(msg, sizeof(msg), verb, session, body, nstr, str);
	if (len < 0) {
		fprintf(stderr, "tracectl: %s: arguments too long\n", name);
		return EXIT_USAGE;
	}
	w.limit = ctl_timeout_given ? ctl_timeout : ctl_verb_timeout(verb);
	/* a timeout given is kept to the letter; a long default is not */
	w.early = !ctl_timeout_given && w.limit > CTL_TIMEOUT_NS ? CTL_TIMEOUT_NS : 0;
again:
	fd = connect_daemon(home, &w, name);
	if (fd == -ENOENT || fd == -ECONNREFUSED) {
		if (start_daemon() < 0) {
			no_reply(name, "no-daemon", "cannot start the session daemon (see %s/%s)", home,
				 HOME_LOG);
			rep->fail = fail_now;
			return EXIT_RUNTIME;
		}
		fd = connect_daemon(home, &w, name);
	}
	if (fd == -ETIMEDOUT) {
		rep->fail = fail_now;
		return EXIT_RUNTIME;	/* said */
	}
	if (fd < 0) {
		fail_now.err = -fd;
		no_reply(name, "unreachable", "cannot reach the session daemon in %s: %s", home,
			 strerror(-fd));
		rep->fail = fail_now;
		return EXIT_RUNTIME;
	}
	w.since = now_ns(CLOCK_MONOTONIC);
	for (;;) {
		int r;

		ret = proto_send(fd, MSG_CMD, 0, msg, (size_t)len, NULL, 0);
		if (ret != -EAGAIN)
			break;
		/* its queue is full: room comes when it reads */
		r = ctl_wait(&w, fd, POLLOUT);
		if (r <= 0) {
			ret = r ? r : -ETIMEDOUT;
			break;
		}
	}
	if (ret == -ETIMEDOUT) {
		ret = gave_up(&w, name, "take the command");
	} else if (ret < 0) {
		fail_now.err = -ret;
		no_reply(name, "unreachable", "cannot send the command: %s", strerror(-ret));
		ret = EXIT_RUNTIME;
	} else {
		ctl_reply_free(rep);
		ret = replies(fd, name, rep, &w);
	}
	close(fd);
	if ((ret == -ESHUTDOWN || ret == -EPIPE) && !stopping++) {
		/* the daemon was stopping and did not read the command, or it died
		 * (killed) before it answered anything: once it is gone, the next
		 * one (started if need be) is asked */
		daemon_gone(home, &w);
		goto again;
	}
	if (ret == -ESHUTDOWN || ret == -EPIPE) {
		fail_now.err = -ret;
		if (ret == -EPIPE)
			no_reply(name, "no-reply", "no reply from the session daemon");
		else
			no_reply(name, "shutdown", "the session daemon is stopping");
		ret = EXIT_RUNTIME;
	}
	if (ret != EXIT_OK && !rep->answered)
		rep->fail = fail_now;
	return ret;
}
