/* SPDX-License-Identifier: MIT */
/*
 * allow.c - processes of other uids, for a session daemon running as root
 * whose sessions allow them (tracectl create --allow-uid UID,...|all).
 *
 * Such processes cannot enter SHMTRACE_HOME (0700) and the main socket
 * refuses their uid; they register on the application socket instead, an
 * abstract AF_UNIX address derived from the home (home.h), open only while
 * a session allows another uid. Invariants:
 * - Nothing of another uid is accepted unless a session allows that uid:
 *   a connection's SO_PEERCRED uid is checked against the sessions' allowed
 *   sets before anything is read, and the socket does not exist while no
 *   session allows another uid.
 * - The application socket serves traced processes only: a connection's
 *   first message must be MSG_APP_REGISTER, handled as on the main socket
 *   (app_accept); a command is refused and the connection closed. Later
 *   messages are traced processes' (app_message). The home, the control
 *   socket, the pid files and the traces stay private.
 * - A process of another uid is traced only by the channels of sessions
 *   that allow its uid (allow_chan_mask(), applied to its control page),
 *   and only those sessions keep its notices.
 * - Only root may allow: the library trusts an application socket only
 *   when its listener is root (home_app_connect()).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "sessiond.h"
#include "home.h"
#include "log.h"

/* Does @s trace processes of @uid? Ours always. */
int allow_uid(const struct session *s, uid_t uid)
{
	if (uid == geteuid() || s->allow_all)
		return 1;
	for (unsigned int i = 0; i < s->nallow; i++)
		if (s->allow[i] == uid)
			return 1;
	return 0;
}

static int allow_any(uid_t uid)
{
	for (const struct session *s = sd.sessions; s; s = s->next)
		if (allow_uid(s, uid))
			return 1;
	return 0;
}

/* The channel slots that may record events of a process of @uid. */
unsigned int allow_chan_mask(uid_t uid)
{
	unsigned int m = 0;

	if (uid == geteuid())
		return ~0u;
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if (sd.chan[i] && allow_uid(sd.chan[i]->session, uid))
			m |= 1u << i;
	return m;
}

static int allow_listen(void)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, ret;

	if (sd.app_listen_fd >= 0)
		return 0;
	home_app_addr(sd.home, &sa, &len);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ev.data.fd = fd;
	if (epoll_ctl(sd.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	sd.app_listen_fd = fd;
	log_info("application socket open: processes of other uids may register");
	return 0;
}

/* Close the application socket when no session allows another uid. */
void allow_update(void)
{
	for (const struct session *s = sd.sessions; s; s = s->next)
		if (s->allow_all || s->nallow)
			return;
	if (sd.app_listen_fd < 0)
		return;
	epoll_ctl(sd.epfd, EPOLL_CTL_DEL, sd.app_listen_fd, NULL);
	close(sd.app_listen_fd);
	sd.app_listen_fd = -1;
	log_info("application socket closed");
}

/*
 * create's allowed uids (tracectl turns names into numbers). Replies and
 * returns < 0 when refused.
 */
int allow_create(int fd, struct session *s, const struct cmd_create *c)
{
	int ret;

	if (!c->allow_all && !c->nallow)
		return 0;
	if (geteuid() != 0)
		return reply_end(fd, -EPERM, "--allow-uid needs a session daemon running as root "
				 "(this one runs as uid %u)", (unsigned int)geteuid());
	_Static_assert(PROTO_ALLOW_MAX <= SESSION_MAX_ALLOW, "allowed uids");
	s->allow_all = c->allow_all != 0;
	for (uint32_t i = 0; i < c->nallow; i++) {
		if (c->allow[i] == UINT32_MAX)
			return reply_end(fd, -EINVAL, "--allow-uid: %u is not a uid", c->allow[i]);
		s->allow[s->nallow++] = (uid_t)c->allow[i];
	}
	ret = allow_listen();
	if (ret < 0)
		return reply_end(fd, ret, "cannot open the application socket for other uids: %s",
				 ret == -EADDRINUSE ? "its address is taken by another process" :
				 strerror(-ret));
	return 0;
}

/*
 * A connection on the application socket: a traced process of an allowed
 * uid, checked before anything is read. Returns the descriptor, whose first
 * message allow_first() reads once it came (sessiond.c), or -1.
 */
int allow_accept(void)
{
	struct ucred cr = { .uid = (uid_t)-1 };
	socklen_t crlen = sizeof(cr);
	int fd = accept_conn(sd.app_listen_fd, 2);

	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0 || !allow_any(cr.uid)) {
		log_warn("application socket: uid %u refused, no session allows it",
			 (unsigned int)cr.uid);
		close(fd);
		return -1;
	}
	return fd;
}

/* The first message on the application socket: a registration, nothing else. */
void allow_first(int fd)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct ucred cr = { .uid = (uid_t)-1 };
	socklen_t crlen = sizeof(cr);
	struct epoll_event ev = { .events = EPOLLIN };
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	long n;

	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen);
	n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
	if (n == -EMFILE)
		fds_exhausted();
	if (n < 0) {
		log_warn("application socket: %s first message (%s)",
			 n == -EMFILE ? "lost" : "malformed", strerror((int)-n));
		close(fd);
		return;
	}
	if (h.type != MSG_APP_REGISTER) {
		log_warn("application socket: message type %u from uid %u refused: only traced "
			 "processes register here", h.type, (unsigned int)cr.uid);
		reply_end(fd, -EPERM, "only traced processes register on this socket");
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		close(fd);
		return;
	}
	if (app_accept(fd, buf, (size_t)n, fds) < 0) {
		close(fd);
		return;
	}
	ev.data.fd = fd;
	epoll_ctl(sd.epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* For tracectl status: the uids the session allows besides ours. */
void allow_status(int fd, const struct session *s)
{
	char list[SESSION_MAX_ALLOW * 12] = "";
	size_t n = 0;

	if (s->allow_all) {
		reply_text(fd, "  processes of every uid allowed\n");
		return;
	}
	if (!s->nallow)
		return;
	for (unsigned int i = 0; i < s->nallow; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u", i ? "," : "",
				      (unsigned int)s->allow[i]);
	reply_text(fd, "  processes of uid %s allowed\n", list);
}
