// SPDX-License-Identifier: MIT
/*
 * ctl-client.c - one command to the session daemon (ctl-client.h).
 *
 * A command is one MSG_CMD on a new connection to the daemon's control
 * socket; the daemon answers with any number of MSG_REPLY_TEXT and
 * MSG_REPLY_FD, then one MSG_REPLY whose status is the result. When no
 * daemon listens, `trace-sessiond --daemonize` is run (it returns once its
 * socket is ready) and the connection tried again.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ctl-client.h"
#include "home.h"
#include "units.h"

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
	if (home_resolve(home, cap) < 0) {
		fprintf(stderr, "tracectl: set SHMTRACE_HOME (no XDG_RUNTIME_DIR nor HOME)\n");
		return EXIT_RUNTIME;
	}
	if (home_prepare(home) < 0) {
		fprintf(stderr, "tracectl: %s must be a directory of ours, closed to others\n", home);
		return EXIT_RUNTIME;
	}
	return 0;
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
static void copy_fd(int fd, FILE *out)
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

/* Print the replies to @out until the final one; its exit status. */
static int replies(int fd, const char *name, FILE *out)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	int fds[PROTO_MAX_FDS];
	struct proto_hdr h;
	long n;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r;

		/* a signal our caller handles (record's interrupt) is not the
		 * daemon's silence: the reply is still coming */
		do
			r = poll(&pfd, 1, 60000);
		while (r < 0 && errno == EINTR);
		if (r <= 0) {
			fprintf(stderr, "tracectl: the session daemon does not answer\n");
			return EXIT_RUNTIME;
		}
		n = proto_recv(fd, buf, &h, fds, 0);
		if (n < 0) {
			fprintf(stderr, "tracectl: no reply from the session daemon\n");
			return EXIT_RUNTIME;
		}
		if (n > 0)
			((char *)buf)[n - 1] = 0;
		if (h.type == MSG_REPLY_TEXT && n > 0) {
			if (out)
				fputs((char *)buf, out);
		} else if (h.type == MSG_REPLY_FD) {
			copy_fd(fds[0], out);
			close(fds[0]);
		} else if (h.type == MSG_REPLY) {
			if (h.status == 0)
				return EXIT_OK;
			fprintf(stderr, "tracectl: %s: %s\n", name,
				n > 0 ? (char *)buf : strerror(-h.status));
			return EXIT_RUNTIME;
		}
	}
}

int ctl_call(const char *home, const char *name, enum proto_verb verb, const char *session,
	     const void *body, unsigned int nstr, const char *const *str, FILE *out)
{
	static char msg[PROTO_MAX_MSG - sizeof(struct proto_hdr)];
	long len;
	int fd, ret;

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
	fd = connect_daemon(home);
	if (fd == -ENOENT || fd == -ECONNREFUSED) {
		if (start_daemon() < 0) {
			fprintf(stderr, "tracectl: cannot start the session daemon (see %s/%s)\n",
				home, HOME_LOG);
			return EXIT_RUNTIME;
		}
		fd = connect_daemon(home);
	}
	if (fd < 0) {
		fprintf(stderr, "tracectl: cannot reach the session daemon in %s: %s\n", home,
			strerror(-fd));
		return EXIT_RUNTIME;
	}
	ret = proto_send(fd, MSG_CMD, 0, msg, (size_t)len, NULL, 0);
	if (ret < 0) {
		fprintf(stderr, "tracectl: cannot send the command: %s\n", strerror(-ret));
		ret = EXIT_RUNTIME;
	} else {
		ret = replies(fd, name, out);
	}
	close(fd);
	return ret;
}
