/* SPDX-License-Identifier: MIT */
/*
 * consumer.c - the session daemon's consumer daemon: started, called,
 * replaced.
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
 * consumers writing one trace) and replaced; the new one is given every
 * channel, process, event and segment again (apps_replay()) and continues
 * each trace where its progress records say (consumerd/progress.c), so a
 * replacement loses and repeats nothing. A consumer that keeps dying is
 * started again at most once a second by the loop (consumer_check());
 * a command that needs one now (a stop's flush) asks consumer_revive().
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sessiond.h"
#include "home.h"
#include "log.h"
#include "util.h"

#define CONSUMER_TIMEOUT_MS	10000

static void consumer_reap(pid_t pid, int pidfd);
static int consumer_dead(pid_t pid, int pidfd);
static void consumer_lost(void);
static void consumer_reconcile(const struct msg_c_adopt_end *end);

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

static int consumer_start(void)
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
		execl(sd_consumerd, "trace-consumerd", "--fd", fdarg, "--home", sd.home, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	sd.consumer_fd = sv[0];
	sd.consumer_pid = pid;
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
 * Wait until consumer @pid is gone: reaped if it is our child, else (one
 * we took over) seen exit through @pidfd, 10 s at most.
 */
static void consumer_reap(pid_t pid, int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (pidfd >= 0)
		poll(&pfd, 1, 10000);
}

/*
 * A consumer that a session daemon before us started and that outlived
 * it (consumerd/adopt.c): taken over, with the processes it drains, which
 * are ours again (detached until they register with us). 0, or -errno
 * (there is none, or it did not answer: then it was killed).
 */
static int consumer_adopt(void)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	const struct msg_c_adopt_end *end = (const void *)buf;
	struct msg_c_adopt req = { .version = PROTO_ADOPT_VERSION };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	uint64_t deadline;
	unsigned int napps = 0;
	int fd, pidfd = -1;

	if (home_path(sa.sun_path, sizeof(sa.sun_path), sd.home, HOME_CSOCK) < 0)
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
		if (app_adopt((const struct msg_c_app *)(const void *)buf, fds) == 0)
			napps++;
	}
	sd.consumer_fd = fd;
	sd.consumer_pid = cr.pid;
	sd.consumer_pidfd = pidfd;
	if (pidfd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = pidfd };

		epoll_ctl(sd.epfd, EPOLL_CTL_ADD, pidfd, &ev);
	}
	if (end->max_app_id > sd.next_app_id)
		sd.next_app_id = end->max_app_id;
	log_info("took over the consumer daemon %d, with %u processes", (int)cr.pid, napps);
	consumer_reconcile(end);
	apps_adopted();
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
 * The consumer taken over, told what the sessions we took over (state.c)
 * hold: channels and aggregations it lacks (ours are saved after the
 * consumer heard of them, but for a daemon killed in between), and those
 * it has that are no longer ours, drained out and forgotten.
 */
static void consumer_reconcile(const struct msg_c_adopt_end *end)
{
	uint32_t nch = end->nchans < SHM_MAX_CHAN ? end->nchans : SHM_MAX_CHAN;

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		uint32_t k = 0;

		if (!sd.chan[i])
			continue;
		while (k < nch && end->chan_id[k] != sd.chan[i]->id)
			k++;
		if (k == nch)
			channel_to_consumer(sd.chan[i]);
	}
	for (uint32_t k = 0; k < nch; k++) {
		struct msg_c_id m = { .id = end->chan_id[k] };
		unsigned int i = 0;

		while (i < SHM_MAX_CHAN && !(sd.chan[i] && sd.chan[i]->id == m.id))
			i++;
		if (i == SHM_MAX_CHAN)
			consumer_call(MSG_C_CHANNEL_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	}
	aggs_reconcile(end->agg_id, end->naggs < SHM_MAX_AGG ? end->naggs : SHM_MAX_AGG);
}

/*
 * A consumer of this home that is not ours and could not be taken over
 * (its socket gone, say) must not write beside the one we start: killed.
 */
static void consumer_stale(void)
{
	char path[1100], text[64], comm[64];
	long pid;
	int pidfd;

	if (home_path(path, sizeof(path), sd.home, HOME_CPID) < 0 ||
	    read_small(path, text, sizeof(text)) < 0 || (pid = atol(text)) <= 0 ||
	    pid == getpid())
		return;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (read_small(path, comm, sizeof(comm)) < 0 || strncmp(comm, "trace-consumerd", 15))
		return;
	pidfd = pidfd_open((pid_t)pid, 0);
	if (pidfd < 0 || pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return;
	}
	log_warn("consumer daemon %ld of this home was left running: killed", pid);
	consumer_reap((pid_t)pid, pidfd);
	close(pidfd);
}

void consumer_init(void)
{
	const char *e = getenv("SHMTRACE_CONSUMER_TIMEOUT");

	if (e && atoi(e) > 0)
		sd_consumer_timeout_ms = atoi(e);
	find_consumerd();
	if (consumer_adopt() == 0)
		return;
	consumer_stale();
	if (consumer_start() < 0)
		log_err("cannot start the consumer daemon %s", sd_consumerd);
	else if (sd.sessions)
		apps_replay();	/* the sessions taken over (state.c) */
}

/* Its descriptor in the loop said that the consumer we took over exited. */
int consumer_event(int fd)
{
	if (fd != sd.consumer_pidfd || fd < 0)
		return 0;
	log_err("consumer daemon %d exited", (int)sd.consumer_pid);
	consumer_lost();
	return 1;
}

/* At exit: the consumer told (its socket closed) and waited for. */
void consumer_fini(void)
{
	if (sd.consumer_fd < 0)
		return;
	close(sd.consumer_fd);
	sd.consumer_fd = -1;
	if (sd.consumer_pid > 0)
		consumer_reap(sd.consumer_pid, sd.consumer_pidfd);
	if (sd.consumer_pidfd >= 0)
		close(sd.consumer_pidfd);
	sd.consumer_pidfd = -1;
}

/*
 * The consumer is of no use any more (gone, hung, or it broke the
 * protocol): our end closed, the process killed and reaped, so that it
 * never writes again beside its successor.
 */
static void consumer_lost(void)
{
	pid_t pid = sd.consumer_pid;

	if (sd.consumer_fd >= 0)
		close(sd.consumer_fd);
	sd.consumer_fd = -1;
	if (pid <= 0)
		return;
	/* (one that is already dead, a zombie, is only reaped) */
	if (!consumer_dead(pid, sd.consumer_pidfd) && kill(pid, SIGKILL) == 0)
		log_err("consumer daemon %d killed: a new one continues its traces", (int)pid);
	consumer_reap(pid, sd.consumer_pidfd);
	if (sd.consumer_pidfd >= 0) {
		epoll_ctl(sd.epfd, EPOLL_CTL_DEL, sd.consumer_pidfd, NULL);
		close(sd.consumer_pidfd);
	}
	sd.consumer_pidfd = -1;
	sd.consumer_pid = 0;
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

	if (sd.consumer_fd < 0)
		return -EPIPE;
	ret = proto_sendv(sd.consumer_fd, type, 0, b1, l1, b2, l2, fds, nfds);
	if (ret < 0) {
		log_err("consumer request %u: %s", type, strerror(-ret));
		consumer_lost();
		return -EPIPE;
	}
	pfd.fd = sd.consumer_fd;
	pfd.events = POLLIN;
	deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)sd_consumer_timeout_ms * 1000000u;
	for (;;) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		ret = now < deadline ? poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) : 0;
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			log_err("consumer daemon %d does not answer request %u in %d ms",
				(int)sd.consumer_pid, type, sd_consumer_timeout_ms);
			consumer_lost();
			return -EPIPE;
		}
		n = proto_recv(sd.consumer_fd, buf, &h, rfds, 0);
		if (n == -EMFILE) {
			/* its reply came, without the descriptor it carried */
			log_err("consumer reply to request %u lost: the descriptor limit is "
				"reached", type);
			fds_exhausted();
			return -EMFILE;
		}
		if (n < 0 || (h.type != MSG_REPLY && h.type != MSG_C_STATS_REPLY)) {
			if (n != -ECONNRESET)
				log_err("bad reply from the consumer");
			consumer_lost();
			return -EPIPE;
		}
		if (reply && h.type == MSG_C_STATS_REPLY && (size_t)n >= reply_len)
			memcpy(reply, buf, reply_len);
		return h.status;
	}
}

int consumer_call(unsigned int type, const void *body, size_t len, const int *fds, int nfds,
		  void *reply, size_t reply_len)
{
	return consumer_callv(type, body, len, NULL, 0, fds, nfds, reply, reply_len);
}

/* A consumer again, now, given everything to drain; 0 or -EPIPE. */
int consumer_revive(void)
{
	if (sd.consumer_fd >= 0)
		return 0;
	consumer_lost();
	if (sd.quit || consumer_start() < 0)
		return -EPIPE;
	apps_replay();
	return sd.consumer_fd >= 0 ? 0 : -EPIPE;
}

/* SIGCHLD, or no consumer: reap it, and start another (once a second at most). */
void consumer_check(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid != sd.consumer_pid)
			continue;
		log_err("consumer daemon %d exited (status 0x%x)", (int)pid, status);
		sd.consumer_pid = 0;
		consumer_lost();
	}
	if (sd.consumer_pid == 0 && !sd.quit && consumer_wait_ms(1) == 0) {
		if (consumer_start() == 0)
			apps_replay();
	}
}

int consumer_wait_ms(int max)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), at = sd_consumer_started + 1000000000ull;

	if (sd.consumer_pid || sd.quit)
		return max;
	if (now >= at)
		return 0;
	return (at - now) / 1000000u + 1 < (uint64_t)max ? (int)((at - now) / 1000000u) + 1 : max;
}
