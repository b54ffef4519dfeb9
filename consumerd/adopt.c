// SPDX-License-Identifier: MIT
/*
 * adopt.c - the consumer outlives its session daemon, and is taken over by
 * the next one.
 *
 * A session daemon killed (SIGKILL, a crash) closes its end of our
 * request socket. We do not stop for that: the traced processes go on
 * writing into buffers that only we still drain, so we go on writing
 * their traces (nothing they commit meanwhile is lost), orphaned. A
 * session daemon started later (any tracectl command starts one) finds
 * us on our own socket, `$SHMTRACE_HOME/consumerd.sock`, and sends
 * MSG_C_ADOPT; we answer with every process we drain (its identity and
 * its pages, MSG_C_ADOPT_APP) and what else we hold (MSG_C_ADOPT_END),
 * and from then on that connection is our session daemon's, served like
 * the first one. The daemon gives us the processes' segments again as
 * they register with it; we know them (seg.c) and map nothing twice.
 *
 * While orphaned we look once a second whether each process still runs
 * (its pid and start time, /proc): one that is gone is drained out and
 * its traces closed, as its session daemon would have told us. With no
 * process left, we exit, everything written: a session daemon started
 * later starts a consumer of its own. Unless we hold what is nowhere
 * else: the aggregation results of processes that are gone. Then we wait
 * for a taker ADOPT_LINGER_S at most, and say what goes with us if none
 * comes.
 *
 * The socket is in the home (0700) and a peer must have our uid; it is
 * listened on only while orphaned (a connection made while we have a
 * session daemon waits, then is served once that one is gone: only one
 * session daemon runs per home). We remove the socket file at exit only
 * if it is still ours (its inode).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "adopt.h"
#include "aggr.h"
#include "app.h"
#include "chan.h"
#include "common/home.h"
#include "support/log.h"
#include "common/proto.h"
#include "support/protomsg.h"
#include "common/util.h"
#include "support/sysutil.h"

static int ad_fd = -1;
static int ad_epfd = -1;
static uint64_t ad_key;
static int ad_orphan;
static uint64_t ad_next_look;
static uint64_t ad_alone_since;		/* no process left since (0: some left) */
static char ad_path[1100];
static struct stat ad_st;

int adopt_init(const char *home, int epfd, uint64_t key)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	ad_epfd = epfd;
	ad_key = key;
	if (home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_CSOCK) < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* the session daemon killed any consumer before us in this home */
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(sa.sun_path, 0600) < 0 ||
	    listen(fd, 4) < 0 || stat(sa.sun_path, &ad_st) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	snprintf(ad_path, sizeof(ad_path), "%s", sa.sun_path);
	ad_fd = fd;
	return 0;
}

void adopt_fini(void)
{
	struct stat st;

	if (ad_fd < 0)
		return;
	if (stat(ad_path, &st) == 0 && st.st_ino == ad_st.st_ino && st.st_dev == ad_st.st_dev)
		unlink(ad_path);
	close(ad_fd);
	ad_fd = -1;
}

int adopt_orphaned(void)
{
	return ad_orphan;
}

void adopt_lost(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ad_key };

	if (ad_orphan)
		return;
	ad_orphan = 1;
	ad_next_look = 0;
	if (ad_fd >= 0)
		epoll_ctl(ad_epfd, EPOLL_CTL_ADD, ad_fd, &ev);
	log_warn("the session daemon is gone: its processes' traces go on, until a session "
		 "daemon takes us over or they all end");
}

/* Send, waiting for room (the taker reads as we write): 0 or -errno. */
static int adopt_send(int fd, unsigned int type, const void *body, size_t len, const int *fds,
		      int nfds)
{
	for (int tries = 0; tries < 1000; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int ret = proto_send(fd, type, 0, body, len, fds, nfds);

		if (ret != -EAGAIN)
			return ret;
		poll(&pfd, 1, 10);
	}
	return -ETIMEDOUT;
}

/* Everything we hold, to the session daemon taking us over on @fd. */
static int adopt_inventory(int fd)
{
	struct msg_c_adopt_end end;
	struct cds_lfht_iter it;
	struct c_chan *ch;
	struct c_app *a;
	int ret;

	memset(&end, 0, sizeof(end));
	capp_for_each(&it, a) {
		struct msg_c_app m = {
			.app_id = a->id, .pid = a->pid, .clock = a->clock,
			.starttime = a->starttime, .instance = a->instance, .uid = a->uid,
			.signo = a->signo,
		};
		int fds[3] = { a->proc_fd, a->wake_fd, a->ctl_fd };

		if (a->id > end.max_app_id)
			end.max_app_id = a->id;
		if (capp_is_gone(a))
			continue;	/* its buffers kept for snapshots: ours alone */
		memcpy(m.procname, a->procname, sizeof(m.procname));
		ret = adopt_send(fd, MSG_C_ADOPT_APP, &m, sizeof(m), fds, 3);
		if (ret < 0)
			return ret;
		end.napps++;
	}
	chan_for_each(&it, ch)
		if (end.nchans < ARRAY_SIZE(end.chan_id))
			end.chan_id[end.nchans++] = ch->id;
	end.naggs = cagg_ids(end.agg_id, ARRAY_SIZE(end.agg_id));
	return adopt_send(fd, MSG_C_ADOPT_END, &end, sizeof(end), NULL, 0);
}

int adopt_accept(void)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	const struct msg_c_adopt *m = (const void *)buf;
	struct pollfd pfd = { .events = POLLIN };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS], fd;
	long n;

	fd = accept4(ad_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.uid != geteuid()) {
		log_warn("a connection of another user refused");
		goto refuse;
	}
	/* its first message comes at once, or it is not a session daemon */
	pfd.fd = fd;
	if (poll(&pfd, 1, 2000) != 1)
		goto refuse;
	n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
	if (n < 0 || h.type != MSG_C_ADOPT || m->version != PROTO_ADOPT_VERSION) {
		if (n >= 0)
			for (int i = 0; i < proto_nfds(h.type); i++)
				close(fds[i]);
		log_warn("a connection that is no session daemon taking us over refused");
		goto refuse;
	}
	if (adopt_inventory(fd) < 0) {
		log_err("the session daemon taking us over went away");
		goto refuse;
	}
	epoll_ctl(ad_epfd, EPOLL_CTL_DEL, ad_fd, NULL);
	ad_orphan = 0;
	ad_alone_since = 0;
	log_info("taken over by the session daemon, pid %d", (int)cr.pid);
	return fd;
refuse:
	close(fd);
	return -EPROTO;
}

int adopt_tick(uint64_t now, void (*gone)(struct c_app *a))
{
	struct cds_lfht_iter it;
	struct c_app *a;
	unsigned int held;
	int left = 0;

	if (!ad_orphan || now < ad_next_look)
		return 0;
	ad_next_look = now + 1000000000ull;
	capp_for_each(&it, a) {
		if (capp_is_gone(a))
			continue;	/* (its buffers kept a while, app.c) */
		if (proc_live((pid_t)a->pid, a->starttime)) {
			left++;
			continue;
		}
		log_info("%s[%u] is gone", a->procname, a->pid);
		gone(a);
	}
	if (left) {
		ad_alone_since = 0;
		return 0;
	}
	held = cagg_held();
	if (!held)
		return 1;
	if (!ad_alone_since) {
		ad_alone_since = now;
		log_info("no process left; %u aggregations hold results of processes that are "
			 "gone: waiting %d s for a session daemon to take them", held, ADOPT_LINGER_S);
	}
	if (now - ad_alone_since < ADOPT_LINGER_S * 1000000000ull)
		return 0;
	log_err("no session daemon took us over in %d s: the results of %u aggregations of "
		"processes that are gone are lost", ADOPT_LINGER_S, held);
	return 1;
}
