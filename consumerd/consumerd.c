/* SPDX-License-Identifier: MIT */
/*
 * trace-consumerd - the consumer daemon.
 *
 * Started by the session daemon with one end of a socket pair (--fd). It
 * receives channels (chan.c), traced processes with their process page
 * and wake socket (app.c), event descriptions (meta.c) and buffer
 * segments (seg.c), maps the segments and writes every committed packet
 * to CTF stream files (drain.c), in one trace per process and session
 * output (trace.c). Each of those files opens with its invariants.
 *
 * Waiting: the daemon never spins. While data flows it polls every
 * POLL_NS (see loop()), so that writers make no system call; a process
 * idle for 50 ms is put to sleep, and its writers wake the daemon with a
 * datagram on its wake socket when they publish a packet (wake.c). A
 * timer wakes the daemon for each channel's flush interval, when the
 * committed part of open packets is written too, so idle threads' events
 * reach the disk.
 *
 * Requests are served in order and each is answered once done: a FLUSH
 * reply means everything committed before it is in the files. When the
 * session daemon goes away we go on, orphaned, until the next one takes
 * us over or every process is gone (adopt.c); SIGTERM drains everything
 * and exits.
 *
 * Threads: this loop runs on the main thread, which alone changes the
 * tables of channels and processes (chan.c, app.c) and holds the RCU read
 * lock except while it sleeps; draining is done in rounds by the workers
 * (worker.c), during which the main thread changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "adopt.h"
#include "aggr.h"
#include "app.h"
#include "chan.h"
#include "clock.h"
#include "drain.h"
#include "common/home.h"
#include "support/log.h"
#include "reclaim.h"
#include "relaydata.h"
#include "rotate.h"
#include "seg.h"
#include "snapshot.h"
#include "stats.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "wake.h"
#include "worker.h"
#include "support/protomsg.h"

static int cd_fd = -1;
static int cd_epfd = -1;
static volatile sig_atomic_t cd_quit;

static void on_term(int sig)
{
	cd_quit = 1;
}

#define EP_CTL		((uint64_t)-1)
#define EP_ADOPT	((uint64_t)-2)

static void ep_add(int fd, uint64_t key, uint32_t flags)
{
	struct epoll_event ev = { .events = EPOLLIN | flags, .data.u64 = key };

	epoll_ctl(cd_epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void app_gone(struct c_app *a)
{
	if (capp_is_gone(a))
		return;
	cagg_app_gone(a->id);
	capp_gone(a, now_ns(CLOCK_MONOTONIC));
}

static void handle_app_del(uint64_t id)
{
	struct c_app *a = capp_find(id);

	if (a)
		app_gone(a);
}

/* Our session daemon is gone: we go on, orphaned (adopt.c). */
static void ctl_lost(void)
{
	epoll_ctl(cd_epfd, EPOLL_CTL_DEL, cd_fd, NULL);
	close(cd_fd);
	cd_fd = -1;
	adopt_lost();
}

static void handle_request(void)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	long n = proto_recv(cd_fd, buf, &h, fds, MSG_DONTWAIT);
	const struct msg_c_id *id = (const void *)buf;
	struct msg_c_stats st;
	struct c_app *a;
	int ret = 0;

	if (n == -EAGAIN)
		return;
	if (n < 0) {
		if (n != -ECONNRESET)
			log_err("malformed request from the session daemon");
		ctl_lost();
		return;
	}
	switch (h.type) {
	case MSG_C_CHANNEL_ADD:
		ret = chan_add((const void *)buf, fds[0]);
		break;
	case MSG_C_CHANNEL_DEL:
		chan_del(id->id);
		break;
	case MSG_C_FLUSH:
		drain_flush(id->id);
		break;
	case MSG_C_RELAY_ADD:
		ret = rdata_add((const void *)buf, fds);
		break;
	case MSG_C_RELAY_DEL:
		rdata_del(id->id);
		break;
	case MSG_C_RELAY_CHECK:
		ret = rdata_check(id->id);
		break;
	case MSG_C_APP_ADD:
		ret = capp_add((const void *)buf, fds);
		break;
	case MSG_C_APP_DEL:
		handle_app_del(id->id);
		break;
	case MSG_C_EVENTS:
		a = capp_find(((const struct msg_events *)(const void *)buf)->app_id);
		ret = a ? capp_add_events(a, (const char *)buf, (size_t)n) : -ENOENT;
		break;
	case MSG_C_SNAPSHOT: {
		const struct msg_c_snapshot *sn = (const void *)buf;

		drain_all(DRAIN_COMPLETE);
		ret = memchr(sn->output, 0, sizeof(sn->output)) ?
		      snapshot_chan(sn->chan_id, sn->output, sn->max_size) : -EINVAL;
		break;
	}
	case MSG_C_CLEAR: {
		struct c_chan *ch = chan_find(id->id);
		struct msg_c_clear_reply rep;

		memset(&rep, 0, sizeof(rep));
		ret = ch ? clear_output(ch, &rep) : -EINVAL;
		if (ret < 0)
			log_warn("request %u failed: %s", h.type, strerror(-ret));
		proto_send(cd_fd, MSG_C_CLEAR_REPLY, ret, &rep, sizeof(rep), NULL, 0);
		return;
	}
	case MSG_C_ROTATE: {
		const struct msg_c_snapshot *sn = (const void *)buf;
		struct c_chan *ch = chan_find(sn->chan_id);

		ret = ch && memchr(sn->output, 0, sizeof(sn->output)) && sn->output[0] == '/' ?
		      rotate_output(ch, sn->output) : -EINVAL;
		break;
	}
	case MSG_C_AGG_ADD:
		ret = cagg_add((const void *)buf);
		break;
	case MSG_C_AGG_DEL:
		cagg_del(id->id);
		break;
	case MSG_C_AGG_SEG:
		ret = capp_find(((const struct msg_agg_seg *)(const void *)buf)->app_id) ?
		      cagg_seg((const void *)buf, fds[0]) : -ENOENT;
		close(fds[0]);
		break;
	case MSG_C_AGG_SHOW:
		ret = cagg_show((const void *)buf, fds[0]);
		close(fds[0]);
		break;
	case MSG_C_AGG_EVAL:
		ret = cagg_eval((const void *)buf, fds[0]);
		close(fds[0]);
		break;
	case MSG_C_SEGMENT:
		a = capp_find(((const struct msg_segment *)(const void *)buf)->app_id);
		ret = a ? seg_add(a, (const void *)buf, fds[0]) : -ENOENT;
		close(fds[0]);
		break;
	case MSG_C_STATS:
		drain_all(DRAIN_COMPLETE);
		stats_chan(id->id, &st);
		proto_send(cd_fd, MSG_C_STATS_REPLY, 0, &st, sizeof(st), NULL, 0);
		return;
	default:
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		ret = -EINVAL;
		break;
	}
	/* a snapshot of buffers that hold nothing is an answer (the session
	 * daemon says it), not a fault: a trigger may ask for many */
	if (ret < 0 && !(h.type == MSG_C_SNAPSHOT && ret == -ENOENT))
		log_warn("request %u failed: %s", h.type, strerror(-ret));
	proto_send(cd_fd, MSG_REPLY, ret, NULL, 0, NULL, 0);
}

/*
 * While a process's data flows, its streams are polled every POLL_NS
 * without telling its writers that we sleep, so that they never make a
 * system call to wake us, and a ring is written out when its writer pauses
 * or it is a quarter full (DRAIN_LAZY): the consumer then takes the CPU
 * from busy traced threads less often when they share the CPUs. Idle
 * processes sleep (wake_sleep_idle()); when all do, so does the consumer,
 * until a writer wakes it or a flush is due (then every stream is looked
 * at, those of processes asleep too).
 */
#define POLL_NS		200000

static void loop(void)
{
	struct epoll_event evs[64];

	while (!cd_quit) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int n, stuck;

		wk_round(DRAIN_LAZY, NULL, chan_flush_due(now), now);
		rdata_tick();
		if (wake_sleep_idle(now, &stuck)) {
			struct timespec ts = { 0, POLL_NS };
			struct pollfd pfd = { .fd = cd_epfd, .events = POLLIN };

			urcu_memb_read_unlock();
			n = ppoll(&pfd, 1, &ts, NULL) > 0 ? epoll_wait(cd_epfd, evs, 64, 0) : 0;
			urcu_memb_read_lock();
		} else {
			/* until the next channel flush is due, at most a second */
			int timeout = chan_flush_timeout(now_ns(CLOCK_MONOTONIC), rdata_timeout(1000));

			if (stuck && timeout > 100)
				timeout = 100;	/* could not write it: retry, do not spin */
			urcu_memb_read_unlock();
			n = epoll_wait(cd_epfd, evs, 64, timeout);
			urcu_memb_read_lock();
		}
		for (int i = 0; i < n; i++) {
			uint64_t key = evs[i].data.u64;

			if (key == EP_CTL) {
				if (cd_fd < 0)
					continue;	/* lost earlier in this batch */
				if (evs[i].events & (EPOLLHUP | EPOLLERR) && !(evs[i].events & EPOLLIN))
					ctl_lost();
				else
					handle_request();
			} else if (key == EP_ADOPT) {
				int fd = adopt_accept();

				if (fd >= 0) {
					cd_fd = fd;
					ep_add(cd_fd, EP_CTL, 0);
				}
			} else if (key & NET_KEY) {
				rdata_event(key, evs[i].events);
			} else {
				wake_socket(key);
			}
		}
		/* orphaned with no process left to drain: nothing more to do */
		if (adopt_tick(now_ns(CLOCK_MONOTONIC), app_gone))
			cd_quit = 1;
		capp_expire(now_ns(CLOCK_MONOTONIC));
		reclaim_tick(now_ns(CLOCK_MONOTONIC));
	}
}

static void usage(FILE *out)
{
	fprintf(out, "usage: trace-consumerd --fd FD [--home DIR] [--workers N]\n"
		"The shmtrace consumer daemon; trace-sessiond starts it.\n"
		"  --workers N  threads that drain and compress (default: the CPUs this\n"
		"               process may run on, or $SHMTRACE_CONSUMER_WORKERS; 1: none,\n"
		"               the main thread drains)\n");
}

/* The CPUs we may run on. */
static unsigned int cpus_allowed(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

/* A worker count: 1 to WORKERS_MAX, or 0 if @s is not one. */
#define WORKERS_MAX	256

static unsigned int parse_workers(const char *s)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	return errno || end == s || *end || n < 1 || n > WORKERS_MAX || s[0] == '-' ?
	       0 : (unsigned int)n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "home", required_argument, NULL, 'H' },
		{ "workers", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char home[1024] = "", logpath[1100], pidpath[1100] = "";
	const char *env = getenv("SHMTRACE_CONSUMER_WORKERS");
	unsigned int workers = 0;
	long nofile;
	int c, ret;

	while ((c = getopt_long(argc, argv, "f:H:w:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'f': cd_fd = atoi(optarg); break;
		case 'H': snprintf(home, sizeof(home), "%s", optarg); break;
		case 'w':
			workers = parse_workers(optarg);
			if (!workers) {
				fprintf(stderr, "trace-consumerd: --workers takes 1 to %d, not '%s'\n",
					WORKERS_MAX, optarg);
				return 1;
			}
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("trace-consumerd %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (cd_fd < 0 || optind != argc) {
		usage(stderr);
		return 1;
	}
	if (home[0] && home_path(logpath, sizeof(logpath), home, HOME_CLOG) == 0)
		log_init("trace-consumerd", logpath);
	else
		log_init("trace-consumerd", NULL);
	/* the terminal's interrupt and hangup reach the whole group: they are
	 * for the session daemon, which stops the sessions, then lets us go */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	/*
	 * Run ahead of the traced programs when allowed (a stall of the
	 * consumer longer than a buffer's worth of events means discards);
	 * without the privilege, stay as we are.
	 */
	if (setpriority(PRIO_PROCESS, 0, -10) < 0)
		log_dbg("cannot raise the consumer's priority: %s", strerror(errno));
	signal(SIGTERM, on_term);
	clock_init(home);
	/* a descriptor per stream file and process: take all the kernel allows */
	nofile = nofile_raise();
	if (nofile < 0)
		log_dbg("cannot raise the descriptor limit: %s", strerror((int)-nofile));
	if (!workers && env && *env && !(workers = parse_workers(env)))
		log_warn("ignoring SHMTRACE_CONSUMER_WORKERS='%s': not 1 to %d", env, WORKERS_MAX);
	if (!workers)
		workers = cpus_allowed();
	urcu_memb_register_thread();
	if (chan_init() < 0 || capp_init() < 0) {
		log_err("out of memory");
		return 1;
	}
	wk_init(workers);
	urcu_memb_read_lock();
	if (home[0] && home_path(pidpath, sizeof(pidpath), home, HOME_CPID) == 0) {
		char num[32];
		int pfd = open(pidpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (pfd >= 0) {
			write_all(pfd, num, (size_t)snprintf(num, sizeof(num), "%d\n", (int)getpid()));
			close(pfd);
		}
	}
	cd_epfd = epoll_create1(EPOLL_CLOEXEC);
	ep_add(cd_fd, EP_CTL, 0);
	if (home[0] && (ret = adopt_init(home, cd_epfd, EP_ADOPT)) < 0)
		log_warn("no socket for a session daemon to take us over: %s", strerror(-ret));
	rdata_init(cd_epfd);
	wake_init(cd_epfd);
	log_info("started (%u workers at most)", workers > 1 ? workers : 0);
	loop();
	{
		struct cds_lfht_iter it;
		struct c_chan *ch;
		struct c_app *a;

		capp_for_each(&it, a)
			capp_free(a);
		chan_for_each(&it, ch)
			chan_remove(ch);
	}
	urcu_memb_read_unlock();
	wk_fini();
	capp_fini();
	chan_fini();
	adopt_fini();
	if (pidpath[0]) {
		char num[32];

		/* ours only: a consumer after us may have written it */
		if (read_small(pidpath, num, sizeof(num)) > 0 && atoi(num) == (int)getpid())
			unlink(pidpath);
	}
	log_info("exiting");
	return 0;
}
