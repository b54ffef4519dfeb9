/* SPDX-License-Identifier: MIT */
/*
 * consumer.c - the session daemon's link to the consumer daemon: started,
 * called, given up (killed and reaped), taken over from a daemon before us.
 *
 * The consumer is a child started with one end of a socket pair. Every
 * request is answered in order (consumer_callv() waits for the reply,
 * SHMTRACE_CONSUMER_TIMEOUT ms at most, 10000 by default), so that an
 * event's description is in the consumer's metadata before any control
 * page enables it, and a FLUSH reply means everything committed is on
 * disk.
 *
 * A consumer that dies, or does not answer in time (stopped, hung), or
 * answers nonsense is killed (SIGKILL by pid, then reaped: never two
 * consumers writing one trace); replay.c starts the next one and gives
 * it every channel, process, event and segment again, and it continues
 * each trace where its progress records say (consumerd/progress.c), so a
 * replacement loses and repeats nothing. consumer_wait_ms() says when the
 * next start may be tried: once a second at most.
 *
 * State, this file's alone: the consumer's socket, pid and (for one taken
 * over, not our child) pidfd, watched in the loop. A crash of the session
 * daemon leaves the consumer running: the next daemon takes it over
 * (consumer_adopt(), consumerd/adopt.c).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "consumer.h"
#include "fdlimit.h"
#include "common/home.h"
#include "loop.h"
#include "support/log.h"
#include "common/util.h"
#include "support/protomsg.h"

#define CONSUMER_TIMEOUT_MS	10000

static int consumer_reap(pid_t pid, int pidfd);
static int consumer_dead(pid_t pid, int pidfd);
static void consumer_drop(int closed);

static const char *c_home;
static int c_fd = -1;			/* -1 when the consumer is down */
static pid_t c_pid;			/* 0 when none runs */
static int c_pidfd = -1;		/* one we took over (not our child), else -1 */
static char sd_consumerd[PATH_MAX];
static uint64_t sd_consumer_started;
static int sd_consumer_timeout_ms = CONSUMER_TIMEOUT_MS;

static void self_dir_prog(char *out, size_t cap, const char *prog)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	out[0] = 0;
	if (n <= 0)
		return;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = 0;
	if (strlen(exe) + 1 + strlen(prog) < cap)
		sprintf(out, "%s/%s", exe, prog);
}

static void find_consumerd(void)
{
	const char *e = getenv("SHMTRACE_CONSUMERD");

	if (e && *e) {
		snprintf(sd_consumerd, sizeof(sd_consumerd), "%s", e);
		return;
	}
	self_dir_prog(sd_consumerd, sizeof(sd_consumerd), "trace-consumerd");
	if (!sd_consumerd[0] || access(sd_consumerd, X_OK) < 0)
		snprintf(sd_consumerd, sizeof(sd_consumerd), "%s/trace-consumerd", BINDIR);
}

int consumer_start(void)
{
	int sv[2];
	pid_t pid;
	char fdarg[16];

	sd_consumer_started = now_ns(CLOCK_MONOTONIC);	/* tried: the next in a second */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0) {
		sigset_t all;

		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		dup2(sv[1], 3);
		snprintf(fdarg, sizeof(fdarg), "%d", 3);
		execl(sd_consumerd, "trace-consumerd", "--fd", fdarg, "--home", c_home, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	c_fd = sv[0];
	c_pid = pid;
	log_info("consumer daemon started, pid %d", (int)pid);
	return 0;
}

/* Has consumer @pid exited (our child, or one we took over, its @pidfd)? */
static int consumer_dead(pid_t pid, int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	char path[64], buf[512], *p;

	if (pidfd >= 0)
		return poll(&pfd, 1, 0) == 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 1;
	return p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/*
 * Wait until consumer @pid is gone: reaped if it is our child (its wait
 * status returned), else (one we took over) seen exit through @pidfd, 10 s
 * at most (-1 returned).
 */
static int consumer_reap(pid_t pid, int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int status = -1;
	pid_t r;

	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (r != pid)
		status = -1;
	if (pidfd >= 0)
		poll(&pfd, 1, 10000);
	return status;
}

/* The consumer we took over exited (its pidfd in the loop). */
static void consumer_exited(int fd, void *data)
{
	(void)fd;
	(void)data;
	log_err("consumer daemon %d exited", (int)c_pid);
	consumer_lost();
}

/*
 * A consumer that a session daemon before us started and that outlived
 * it (consumerd/adopt.c): taken over. Each process it drains is handed to
 * @each (its fds are @each's, whatever it returns), and what it holds is
 * in *@out. 0, or -errno (there is none, or it did not answer: then it
 * was killed).
 */
int consumer_adopt(int (*each)(const struct msg_c_app *m, const int *fds),
		   struct msg_c_adopt_end *out, unsigned int *napps)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	const struct msg_c_adopt_end *end = (const void *)buf;
	struct msg_c_adopt req = { .version = PROTO_ADOPT_VERSION };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	uint64_t deadline;
	int fd, pidfd = -1;

	*napps = 0;
	if (home_path(sa.sun_path, sizeof(sa.sun_path), c_home, HOME_CSOCK) < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -ENOENT;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.uid != geteuid() ||
	    cr.pid <= 0) {
		close(fd);
		return -EPERM;
	}
	pidfd = pidfd_open(cr.pid, 0);
	if (proto_send(fd, MSG_C_ADOPT, 0, &req, sizeof(req), NULL, 0) < 0)
		goto fail;
	deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)sd_consumer_timeout_ms * 1000000u;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int fds[PROTO_MAX_FDS];
		struct proto_hdr h;
		long n;

		if (now >= deadline || poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) <= 0)
			goto fail;
		n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			goto fail;
		if (h.type == MSG_C_ADOPT_END)
			break;
		if (h.type != MSG_C_ADOPT_APP) {
			for (int i = 0; i < proto_nfds(h.type); i++)
				close(fds[i]);
			goto fail;
		}
		if (each((const struct msg_c_app *)(const void *)buf, fds) == 0)
			(*napps)++;
	}
	c_fd = fd;
	c_pid = cr.pid;
	c_pidfd = pidfd;
	if (pidfd >= 0)
		ev_add(pidfd, consumer_exited, NULL);
	memcpy(out, end, sizeof(*out));
	return 0;
fail:
	log_err("the consumer daemon %d left running could not be taken over: killed",
		(int)cr.pid);
	close(fd);
	kill(cr.pid, SIGKILL);
	consumer_reap(cr.pid, pidfd);
	if (pidfd >= 0)
		close(pidfd);
	return -EPROTO;
}

/*
 * A consumer of this home that is not ours and could not be taken over
 * (its socket gone, say) must not write beside the one we start: killed.
 */
void consumer_stale(void)
{
	char path[1100], text[64], comm[64];
	long pid;
	int pidfd;

	if (home_path(path, sizeof(path), c_home, HOME_CPID) < 0 ||
	    read_small(path, text, sizeof(text)) < 0 || (pid = atol(text)) <= 0 ||
	    pid == getpid())
		return;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (read_small(path, comm, sizeof(comm)) < 0 || strncmp(comm, "trace-consumerd", 15))
		return;
	pidfd = pidfd_open((pid_t)pid, 0);
	if (pidfd >= 0 && consumer_dead((pid_t)pid, pidfd)) {
		close(pidfd);	/* a zombie: already dead, nothing of it writes */
		return;
	}
	if (pidfd < 0 || pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return;
	}
	log_warn("consumer daemon %ld of this home was left running: killed", pid);
	consumer_reap((pid_t)pid, pidfd);
	close(pidfd);
}

void consumer_setup(const char *home)
{
	const char *e = getenv("SHMTRACE_CONSUMER_TIMEOUT");

	c_home = home;
	if (e && atoi(e) > 0)
		sd_consumer_timeout_ms = atoi(e);
	find_consumerd();
}

const char *consumer_program(void)
{
	return sd_consumerd;
}

int consumer_running(void)
{
	return c_fd >= 0;
}

pid_t consumer_pid(void)
{
	return c_pid;
}

/* At exit: the consumer told (its socket closed) and waited for. */
void consumer_fini(void)
{
	if (c_fd < 0)
		return;
	close(c_fd);
	c_fd = -1;
	if (c_pid > 0)
		consumer_reap(c_pid, c_pidfd);
	if (c_pidfd >= 0) {
		ev_del(c_pidfd);
		close(c_pidfd);
	}
	c_pidfd = -1;
}

/*
 * The consumer is of no use any more (gone, hung, or it broke the
 * protocol): our end closed, the process killed and reaped, so that it
 * never writes again beside its successor.
 */
void consumer_lost(void)
{
	consumer_drop(0);
}

/*
 * ... @closed: it closed its end first (it died, perhaps before the kernel
 * told us by SIGCHLD): said as an exit, not as our kill.
 */
static void consumer_drop(int closed)
{
	pid_t pid = c_pid;
	int status;

	if (c_fd >= 0)
		close(c_fd);
	c_fd = -1;
	if (pid <= 0)
		return;
	/* (one that is already dead, a zombie, is only reaped) */
	if (!consumer_dead(pid, c_pidfd) && kill(pid, SIGKILL) == 0 && !closed)
		log_err("consumer daemon %d killed: a new one continues its traces", (int)pid);
	status = consumer_reap(pid, c_pidfd);
	if (closed && status >= 0)
		log_err("consumer daemon %d exited (status 0x%x)", (int)pid, status);
	else if (closed)
		log_err("consumer daemon %d exited (its connection closed)", (int)pid);
	if (c_pidfd >= 0) {
		ev_del(c_pidfd);
		close(c_pidfd);
	}
	c_pidfd = -1;
	c_pid = 0;
}

/*
 * Send a request to the consumer and wait for its reply
 * (sd_consumer_timeout_ms at most). Returns the reply's status, or
 * -EPIPE when the consumer is gone (or was given up: consumer_lost()).
 */
int consumer_callv(unsigned int type, const void *b1, size_t l1, const void *b2, size_t l2,
		   const int *fds, int nfds, void *reply, size_t reply_len)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct pollfd pfd;
	struct proto_hdr h;
	int rfds[PROTO_MAX_FDS];
	uint64_t deadline;
	long n;
	int ret;

	if (c_fd < 0)
		return -EPIPE;
	ret = proto_sendv(c_fd, type, 0, b1, l1, b2, l2, fds, nfds);
	if (ret < 0) {
		log_err("consumer request %u: %s", type, strerror(-ret));
		consumer_drop(ret == -EPIPE || ret == -ECONNRESET);
		return -EPIPE;
	}
	pfd.fd = c_fd;
	pfd.events = POLLIN;
	deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)sd_consumer_timeout_ms * 1000000u;
	for (;;) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		ret = now < deadline ? poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) : 0;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			log_err("consumer daemon %d does not answer request %u in %d ms",
				(int)c_pid, type, sd_consumer_timeout_ms);
			consumer_lost();
			return -EPIPE;
		}
		n = proto_recv(c_fd, buf, &h, rfds, 0);
		if (n == -EMFILE) {
			/* its reply came, without the descriptor it carried */
			log_err("consumer reply to request %u lost: the descriptor limit is "
				"reached", type);
			fds_exhausted();
			return -EMFILE;
		}
		if (n < 0 || (h.type != MSG_REPLY && h.type != MSG_C_STATS_REPLY &&
			      h.type != MSG_C_CLEAR_REPLY)) {
			if (n != -ECONNRESET)
				log_err("bad reply from the consumer");
			consumer_drop(n == -ECONNRESET);
			return -EPIPE;
		}
		if (reply && h.type != MSG_REPLY && (size_t)n >= reply_len)
			memcpy(reply, buf, reply_len);
		return h.status;
	}
}

int consumer_call(unsigned int type, const void *body, size_t len, const int *fds, int nfds,
		  void *reply, size_t reply_len)
{
	return consumer_callv(type, body, len, NULL, 0, fds, nfds, reply, reply_len);
}

/* SIGCHLD: reap our children; 1 when the consumer was one of them (it is gone). */
int consumer_reap_exited(void)
{
	int status, gone = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid != c_pid)
			continue;
		log_err("consumer daemon %d exited (status 0x%x)", (int)pid, status);
		c_pid = 0;
		consumer_lost();
		gone = 1;
	}
	return gone;
}

int consumer_wait_ms(int max)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), at = sd_consumer_started + 1000000000ull;

	if (c_pid || ev_quitting())
		return max;
	if (now >= at)
		return 0;
	return (at - now) / 1000000u + 1 < (uint64_t)max ? (int)((at - now) / 1000000u) + 1 : max;
}
