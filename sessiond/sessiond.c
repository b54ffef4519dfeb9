/* SPDX-License-Identifier: MIT */
/*
 * trace-sessiond - the session daemon.
 *
 * Owns sessions, channels and enabled-event patterns; keeps the registry of
 * traced processes and writes their control pages; starts the consumer
 * daemon and restarts it if it dies, replaying channels, processes, events
 * and buffer segments to the new one.
 *
 * Trust: the listening socket lives in SHMTRACE_HOME (0700) and every
 * connection's peer credentials must carry our uid. Everything a client
 * sends is checked by proto_recv() and the handlers; a malformed message
 * gets an error reply (or the connection closed, for traced processes),
 * is logged, and the daemon goes on serving. A traced process that dies
 * only closes its socket: the daemon tells the consumer to drain it.
 *
 * On SIGTERM or SIGINT, active sessions are stopped and flushed and every
 * session is destroyed (closing its trace files) before the daemon exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sessiond.h"
#include "home.h"
#include "log.h"
#include "util.h"

struct sessiond sd = { .listen_fd = -1, .app_listen_fd = -1, .sig_fd = -1, .consumer_fd = -1,
			.consumer_pidfd = -1, .epfd = -1 };

/* The client that stopped reading its replies: no more time spent on it. */
static int reply_stuck_fd = -1;

static void vreply(int fd, unsigned int type, int status, const char *fmt, va_list ap)
{
	char text[8192];
	int n = 0;

	if (fd == reply_stuck_fd)
		return;
	text[0] = 0;
	if (fmt)
		n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	for (int tries = 0; tries < 100; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (proto_send(fd, type, status, text, (size_t)n + 1, NULL, 0) != -EAGAIN)
			return;
		poll(&pfd, 1, 10);
	}
	log_warn("a client does not read its replies: the rest is dropped");
	reply_stuck_fd = fd;
}

int reply_text(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreply(fd, MSG_REPLY_TEXT, 0, fmt, ap);
	va_end(ap);
	return 0;
}

int reply_end(int fd, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreply(fd, MSG_REPLY, status, fmt, ap);
	va_end(ap);
	return status;
}

static int peer_ok(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return 0;
	return cr.uid == geteuid();
}

static void ep_add(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	epoll_ctl(sd.epfd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * Connections whose first message has not come yet: watched in the loop,
 * never waited for, so that a client that connects and sends nothing (or
 * a thousand of them) delays nobody. Each gets PENDING_MS; beyond
 * PENDING_MAX the oldest is closed.
 */
#define PENDING_MAX	256
#define PENDING_MS	2000u

static struct pending {
	int fd;
	int app_socket;		/* came on the application socket (allow.c) */
	uint64_t since;
} pending[PENDING_MAX];
static unsigned int npending;

static void pending_drop(unsigned int i, int close_it)
{
	epoll_ctl(sd.epfd, EPOLL_CTL_DEL, pending[i].fd, NULL);
	if (close_it)
		close(pending[i].fd);
	memmove(&pending[i], &pending[i + 1], (npending - i - 1) * sizeof(pending[0]));
	npending--;
}

static void pending_add(int fd, int app_socket)
{
	if (npending == PENDING_MAX) {
		log_warn("%u connections sent nothing yet: closing the oldest", npending);
		pending_drop(0, 1);
	}
	pending[npending].fd = fd;
	pending[npending].app_socket = app_socket;
	pending[npending].since = now_ns(CLOCK_MONOTONIC);
	npending++;
	ep_add(fd);
}

static int pending_find(int fd)
{
	for (unsigned int i = 0; i < npending; i++)
		if (pending[i].fd == fd)
			return (int)i;
	return -1;
}

/* Close the connections that sent nothing for PENDING_MS. */
static void pending_expire(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	unsigned int n = 0;

	while (npending && now - pending[0].since >= PENDING_MS * 1000000ull) {
		pending_drop(0, 1);
		n++;
	}
	if (n)
		log_warn("%u clients sent nothing for %u ms: closed", n, PENDING_MS);
}

/*
 * The descriptor limit (a handful per traced process). FD_RESERVE
 * descriptors are held from the start; when accept() or a message meets
 * the limit they are let go, and until twice as many are free again new
 * processes are refused (they are not traced; the log says how many), so
 * that tracectl is still served and /proc still read. A listening socket
 * whose connection cannot be accepted even then stays out of the loop for
 * the rest of the round: no busy loop on it.
 */
#define FD_RESERVE	16

static int fd_reserve[FD_RESERVE];
static unsigned int fd_held;		/* of fd_reserve, open */
static int fd_short;			/* the reserve was let go */
static unsigned long fd_refused;	/* processes refused since */
static unsigned long fd_refused_all;	/* ... since the start */
static uint64_t fd_tried;		/* when we last tried to take it back */
static long fd_limit;
static int listen_paused;		/* 1: the main socket, 2: the application socket */

static void close_all(const int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		close(fds[i]);
}

/* Take the reserve (back): all of it, and only with as many free again. */
static void fds_take(void)
{
	int fds[2 * FD_RESERVE];
	unsigned int n = 0, want = fd_short ? 2 * FD_RESERVE : FD_RESERVE;

	fd_tried = now_ns(CLOCK_MONOTONIC);
	while (n < want && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	if (n < want) {
		close_all(fds, n);
		return;
	}
	close_all(fds + FD_RESERVE, n - FD_RESERVE);
	memcpy(fd_reserve, fds, sizeof(fd_reserve));
	fd_held = FD_RESERVE;
	if (fd_short)
		log_info("descriptors free again: new processes are traced again (%lu were "
			 "refused)", fd_refused);
	fd_short = 0;
}

void fds_exhausted(void)
{
	if (fd_short)
		return;
	close_all(fd_reserve, fd_held);
	fd_held = 0;
	fd_short = 1;
	fd_refused = 0;
	log_warn("descriptor limit (%ld) reached: new processes are not traced until some "
		 "exit (start the daemon with a higher hard limit, ulimit -Hn, to trace more)",
		 fd_limit);
}

int fds_refuse(pid_t pid)
{
	if (!fd_short)
		return 0;
	fd_refused_all++;
	if (!fd_refused++)
		log_warn("pid %d not traced: the descriptor limit is reached", (int)pid);
	return 1;
}

void fds_status(int fd)
{
	if (fd_refused_all)
		reply_text(fd, "  processes not traced, refused at the descriptor limit (%ld): %lu\n",
			   fd_limit, fd_refused_all);
}

/* accept() on @lfd (bit @which of listen_paused), or -1. */
int accept_conn(int lfd, int which)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		fds_exhausted();
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			struct epoll_event ev = { .events = 0, .data.fd = lfd };

			epoll_ctl(sd.epfd, EPOLL_CTL_MOD, lfd, &ev);
			listen_paused |= which;
		}
	}
	return fd;
}

/* Once per round of the loop: listen again, take the reserve back. */
static void fds_round(void)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (listen_paused & 1) {
		ev.data.fd = sd.listen_fd;
		epoll_ctl(sd.epfd, EPOLL_CTL_MOD, sd.listen_fd, &ev);
	}
	if ((listen_paused & 2) && sd.app_listen_fd >= 0) {
		ev.data.fd = sd.app_listen_fd;
		epoll_ctl(sd.epfd, EPOLL_CTL_MOD, sd.app_listen_fd, &ev);
	}
	listen_paused = 0;
	if (fd_short && now_ns(CLOCK_MONOTONIC) - fd_tried >= 1000000000ull)
		fds_take();
}

/*
 * We are stopping: the connections not served yet (waiting to be
 * accepted, or whose first message was not read) are told so; their
 * commands were not carried out, and tracectl asks the next daemon.
 */
static void clients_stopping(void)
{
	int fd;

	while ((fd = accept4(sd.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		reply_end(fd, -ESHUTDOWN, "the session daemon is stopping");
		close(fd);
	}
	while (npending) {
		reply_end(pending[0].fd, -ESHUTDOWN, "the session daemon is stopping");
		pending_drop(0, 1);
	}
}

/* A new connection's first message (it came) says what it is. */
static void client_first(int fd)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	long n;

	reply_stuck_fd = -1;
	n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
	if (n == -EMFILE)
		fds_exhausted();
	if (n < 0) {
		log_warn("%s first message (%s)", n == -EMFILE ? "lost" : "malformed",
			 strerror((int)-n));
		if (n == -EPROTO)
			reply_end(fd, -EPROTO, "malformed message");
		close(fd);
		return;
	}
	switch (h.type) {
	case MSG_APP_REGISTER:
		if (app_accept(fd, buf, (size_t)n, fds) == 0) {
			ep_add(fd);
			return;
		}
		break;
	case MSG_CMD:
		apps_poll_all();
		session_command(fd, (const char *)buf, (size_t)n);
		break;
	default:
		log_warn("unexpected first message type %u", h.type);
		reply_end(fd, -EPROTO, "unexpected message type %u", h.type);
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		break;
	}
	close(fd);
}

static void on_listen(void)
{
	int fd = accept_conn(sd.listen_fd, 1);

	if (fd < 0)
		return;
	if (!peer_ok(fd)) {
		log_warn("connection from another user refused");
		close(fd);
		return;
	}
	pending_add(fd, 0);
}

static void on_signal(void)
{
	struct signalfd_siginfo si;

	while (read(sd.sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			consumer_check();
		else
			sd.quit = 1;
	}
}

/*
 * The home is ours while we hold the lock (flock) of its pid file, from
 * before we bind the socket to after we removed it at exit: a daemon
 * that exits never removes its successor's socket or pid file, since
 * the successor waits for the lock (a few seconds at most: the exiting
 * one closes its socket at once, then stops its sessions) before it
 * binds. Returns 0 with sd_lock_fd held, or -EADDRINUSE.
 */
static int sd_lock_fd = -1;

static int home_lock(void)
{
	char path[1100], num[32];
	struct stat a, b;
	int fd, n;

	if (home_path(path, sizeof(path), sd.home, HOME_PID) < 0)
		return -ENAMETOOLONG;
	for (int tries = 0; tries < 100; tries++) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			/* the file we locked may have been removed by the one before */
			if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
			    a.st_dev == b.st_dev)
				break;
		} else if (errno != EWOULDBLOCK) {
			int ret = -errno;

			close(fd);
			return ret;
		}
		close(fd);
		fd = -1;
		usleep(100000);
	}
	if (fd < 0)
		return -EADDRINUSE;
	n = snprintf(num, sizeof(num), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, num, (size_t)n, 0) != n)
		log_warn("cannot write %s: %s", path, strerror(errno));
	sd_lock_fd = fd;
	return 0;
}

/* Our socket (it is ours: we hold the home's lock), closed and removed. */
static void close_listen(void)
{
	char path[1100];

	if (sd.listen_fd < 0)
		return;
	epoll_ctl(sd.epfd, EPOLL_CTL_DEL, sd.listen_fd, NULL);
	close(sd.listen_fd);
	sd.listen_fd = -1;
	if (home_path(path, sizeof(path), sd.home, HOME_SOCK) == 0)
		unlink(path);
}

static void remove_runtime_files(void)
{
	char path[1100];

	close_listen();
	if (sd_lock_fd >= 0 && home_path(path, sizeof(path), sd.home, HOME_PID) == 0)
		unlink(path);
	if (sd_lock_fd >= 0)
		close(sd_lock_fd);	/* the home is free */
	sd_lock_fd = -1;
}

static int listen_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, probe;

	if (home_path(sa.sun_path, sizeof(sa.sun_path), sd.home, HOME_SOCK) < 0)
		return -ENAMETOOLONG;
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(probe);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	fd = home_lock();
	if (fd < 0)
		return fd;
	unlink(sa.sun_path);	/* a dead daemon's */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(sa.sun_path, 0600) < 0 ||
	    listen(fd, SOMAXCONN) < 0) {
		int ret = -errno;

		close(fd);
		remove_runtime_files();
		return ret;
	}
	sd.listen_fd = fd;
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: trace-sessiond [--daemonize] [--help] [--version]\n"
		"\n"
		"The shmtrace session daemon. It listens in $SHMTRACE_HOME (default\n"
		"$XDG_RUNTIME_DIR/shmtrace, else ~/.shmtrace), writes its pid to\n"
		"sessiond.pid and its log to sessiond.log there, and starts\n"
		"trace-consumerd ($SHMTRACE_CONSUMERD overrides its path).\n"
		"\n"
		"  -d, --daemonize  detach and run in the background; the command\n"
		"                   returns once the daemon accepts connections\n");
}

static void loop(void)
{
	struct epoll_event evs[64];
	uint64_t last_sweep = now_ns(CLOCK_MONOTONIC);

	while (!sd.quit) {
		int timeout = sessions_tick_ms(), n, k;

		if (npending && timeout > (int)PENDING_MS / 4)
			timeout = (int)PENDING_MS / 4;
		timeout = consumer_wait_ms(timeout < 0 ? INT_MAX : timeout);
		n = epoll_wait(sd.epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n && !sd.quit; i++) {
			int fd = evs[i].data.fd;
			struct app *a;

			if (fd == sd.listen_fd) {
				on_listen();
			} else if (fd == sd.app_listen_fd) {
				if ((fd = allow_accept()) >= 0)
					pending_add(fd, 1);
			} else if ((k = pending_find(fd)) >= 0) {
				int app_socket = pending[k].app_socket;

				pending_drop((unsigned int)k, 0);
				if (app_socket)
					allow_first(fd);
				else
					client_first(fd);
			} else if (fd == sd.sig_fd)
				on_signal();
			else if (consumer_event(fd))
				;
			else if ((a = app_by_sock(fd)) != NULL)
				app_messages(a);
			else if ((a = app_by_pidfd(fd)) != NULL)
				app_remove(a);	/* a detached process exited */
		}
		if (sd.consumer_pid == 0 && !sd.quit)
			consumer_check();
		pending_expire();
		fds_round();
		if (!sd.quit)
			sessions_tick();
		if (now_ns(CLOCK_MONOTONIC) - last_sweep >= MARKER_SWEEP_MS * 1000000ull) {
			apps_markers(0);
			last_sweep = now_ns(CLOCK_MONOTONIC);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "daemonize", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int daemonize = 0, c, ready[2] = { -1, -1 }, ret = -ENOENT;
	char logpath[1100];
	sigset_t mask;

	while ((c = getopt_long(argc, argv, "dhV", opts, NULL)) != -1) {
		switch (c) {
		case 'd': daemonize = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("trace-sessiond %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	log_init("trace-sessiond", NULL);
	fd_limit = nofile_raise();	/* a few descriptors per traced process */
	if (home_resolve(sd.home, sizeof(sd.home)) < 0 || (ret = home_prepare(sd.home)) < 0) {
		log_err("cannot use SHMTRACE_HOME %s: %s", sd.home,
			strerror(sd.home[0] ? -ret : ENOENT));
		return 1;
	}
	if (daemonize) {
		pid_t pid;
		char b;

		if (pipe2(ready, O_CLOEXEC) < 0)
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid > 0) {
			close(ready[1]);
			return read(ready[0], &b, 1) == 1 && b == 'k' ? 0 : 1;
		}
		close(ready[0]);
		setsid();
		if (fork() > 0)
			_exit(0);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			close(null);
		}
	}
	if (home_path(logpath, sizeof(logpath), sd.home, HOME_LOG) == 0)
		log_init("trace-sessiond", daemonize ? logpath : NULL);
	ret = listen_socket();
	if (ret < 0) {
		log_err("cannot listen in %s: %s", sd.home,
			ret == -EADDRINUSE ? "a session daemon already runs there" : strerror(-ret));
		if (ready[1] >= 0)
			(void)!write(ready[1], "e", 1);
		return 1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sd.sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	sd.epfd = epoll_create1(EPOLL_CLOEXEC);
	/* after the signals are blocked: liburcu's threads inherit that */
	if (apps_init() < 0) {
		log_err("out of memory");
		remove_runtime_files();
		if (ready[1] >= 0)
			(void)!write(ready[1], "e", 1);
		return 1;
	}
	fds_take();
	ep_add(sd.listen_fd);
	ep_add(sd.sig_fd);
	sd.next_chan_id = now_ns(CLOCK_REALTIME);
	/* the sessions of a daemon before us that did not stop them (killed) */
	if (state_load() > 0)
		allow_update();
	consumer_init();
	log_info("listening in %s (%ld descriptors at most)", sd.home, fd_limit);
	if (ready[1] >= 0) {
		(void)!write(ready[1], "k", 1);
		close(ready[1]);
	}
	apps_markers(1);
	loop();
	log_info("shutting down");
	/* no new client: a daemon started now waits for us to finish */
	clients_stopping();
	close_listen();
	/* what processes sent before we were told to stop (a segment their
	 * threads already write into) is taken in before the final flush */
	apps_poll_all();
	sessions_shutdown();
	while (sd.apps)
		app_remove(sd.apps);
	apps_gone_fini();
	apps_fini();
	consumer_fini();
	remove_runtime_files();
	return 0;
}
