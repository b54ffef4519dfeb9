/* SPDX-License-Identifier: MIT */
/*
 * trace-sessiond - the session daemon: its start, its loop, its end.
 *
 * It owns sessions, channels and enabled-event patterns (session.c, the
 * verbs of cmd.c), keeps the registry of traced processes (app.c) and
 * writes their control pages (ctlpage.c), starts the consumer daemon and
 * restarts it if it dies, giving the new one everything (replay.c). This
 * file holds the home (its lock, the main socket, whose connections are
 * ours: client.c), the signals, and the loop: every descriptor is
 * registered with its handler (loop.c), and between two batches of events
 * the loop expires pending connections, takes the descriptor reserve back
 * (fdlimit.c), restarts a consumer, rotates sessions and sweeps the
 * processes' markers.
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
 *
 * State, this file's: the home, the lock of its pid file (held from before
 * the socket is bound to after it is removed), the main socket and the
 * signalfd. A crash leaves the pid file and the socket, which the next
 * daemon replaces once it holds the lock, and state.json (state.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "app.h"
#include "client.h"
#include "cmd.h"
#include "consumer.h"
#include "fdlimit.h"
#include "life.h"
#include "loop.h"
#include "replay.h"
#include "session.h"
#include "state.h"
#include "trigger.h"
#include "common/home.h"
#include "support/log.h"
#include "common/proto.h"
#include "support/protomsg.h"
#include "common/util.h"

static char home[1024];
static int listen_fd = -1;
static int sig_fd = -1;

/* A new connection's first message (it came) says what it is. */
static void client_first(int fd)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	long n;

	n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
	if (n == -EMFILE)
		fds_exhausted();
	if (n < 0) {
		log_warn("%s first message (%s)", n == -EMFILE ? "lost" : "malformed",
			 strerror((int)-n));
		if (n == -EPROTO)
			reply_refuse(fd, -EPROTO, RE_MALFORMED);
		close(fd);
		return;
	}
	switch (h.type) {
	case MSG_APP_REGISTER:
		if (app_accept(fd, buf, (size_t)n, fds) == 0)
			return;	/* the app's, watched */
		break;
	case MSG_CMD:
		apps_poll_all();
		if (session_command(fd, (const char *)buf, (size_t)n) == CMD_KEPT)
			return;	/* a waiter's, watched (trigger.c) */
		break;
	default:
		log_warn("unexpected first message type %u", h.type);
		reply_refuse(fd, -EPROTO, RE_MALFORMED);
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		break;
	}
	close(fd);
}

/* A connection on the main socket: of our uid, else refused. */
static void on_listen(int lfd, void *data)
{
	int fd = fds_accept(lfd);

	(void)data;
	if (fd < 0)
		return;
	if (!client_peer_ours(fd, NULL)) {
		log_warn("connection from another user refused");
		close(fd);
		return;
	}
	client_pend(fd, client_first);
}

static void on_signal(int fd, void *data)
{
	struct signalfd_siginfo si;

	(void)data;
	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			replay_check();
		else
			ev_quit();
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

	if (home_path(path, sizeof(path), home, HOME_PID) < 0)
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

	if (listen_fd < 0)
		return;
	ev_del(listen_fd);
	close(listen_fd);
	listen_fd = -1;
	if (home_path(path, sizeof(path), home, HOME_SOCK) == 0)
		unlink(path);
}

static void remove_runtime_files(void)
{
	char path[1100];

	close_listen();
	if (sd_lock_fd >= 0 && home_path(path, sizeof(path), home, HOME_PID) == 0)
		unlink(path);
	if (sd_lock_fd >= 0)
		close(sd_lock_fd);	/* the home is free */
	sd_lock_fd = -1;
}

static int listen_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, probe;

	if (home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_SOCK) < 0)
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
	listen_fd = fd;
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
	uint64_t last_sweep = now_ns(CLOCK_MONOTONIC);

	while (!ev_quitting()) {
		int timeout = client_wait_ms(trig_wait_ms(sessions_tick_ms()));

		timeout = consumer_wait_ms(timeout < 0 ? INT_MAX : timeout);
		if (ev_run_once(timeout) < 0)
			break;
		if (consumer_pid() == 0 && !ev_quitting())
			replay_check();
		client_expire();
		fds_round();
		if (!ev_quitting() && sessions_tick())
			state_save();	/* the chunk counts */
		if (!ev_quitting() && trig_tick())
			state_save();	/* the triggers' counts and keys */
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
	struct stat st;
	long fd_limit;
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
	fd_limit = fds_init();	/* a few descriptors per traced process */
	if (home_resolve(home, sizeof(home)) < 0) {
		log_err("no SHMTRACE_HOME (nor XDG_RUNTIME_DIR, nor HOME)");
		return 1;
	}
	if ((ret = home_prepare(home, &st)) < 0) {
		/* the mode and owner found, for a fix (ours: 0700 and this uid) */
		log_err("cannot use SHMTRACE_HOME %s: %s (found mode %04o, uid %u; "
			"wanted a directory of mode 0700 and uid %u)", home, strerror(-ret),
			(unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)geteuid());
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
	if (home_path(logpath, sizeof(logpath), home, HOME_LOG) == 0)
		log_init("trace-sessiond", daemonize ? logpath : NULL);
	ret = listen_socket();
	if (ret < 0) {
		log_err("cannot listen in %s: %s", home,
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
	sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ev_init() < 0 || apps_init(home) < 0) {
		log_err("out of memory");
		remove_runtime_files();
		if (ready[1] >= 0)
			(void)!write(ready[1], "e", 1);
		return 1;
	}
	fds_take();
	ev_add(listen_fd, on_listen, NULL);
	ev_add(sig_fd, on_signal, NULL);
	sessions_init();
	cmd_init(home);
	trig_init();
	/* the sessions of a daemon before us that did not stop them (killed) */
	if (state_load(home) > 0)
		app_socket_update();
	replay_init(home);
	log_info("listening in %s (%ld descriptors at most)", home, fd_limit);
	if (ready[1] >= 0) {
		(void)!write(ready[1], "k", 1);
		close(ready[1]);
	}
	apps_markers(1);
	loop();
	log_info("shutting down");
	/* no new client: a daemon started now waits for us to finish */
	client_stopping(listen_fd);
	trig_shutdown();
	close_listen();
	/* what processes sent before we were told to stop (a segment their
	 * threads already write into) is taken in before the final flush */
	apps_poll_all();
	sessions_shutdown();
	state_save();	/* a daemon after us starts with no session */
	apps_fini();
	consumer_fini();
	ev_del(sig_fd);
	close(sig_fd);
	ev_fini();
	remove_runtime_files();
	return 0;
}
