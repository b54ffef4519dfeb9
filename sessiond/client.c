// SPDX-License-Identifier: MIT
/*
 * client.c - the session daemon's clients: connections whose first message
 * has not come yet, replies, peer checks.
 *
 * A new connection (on the main socket or the application socket) is
 * watched in the loop until its first message comes, never waited for, so
 * that a client that connects and sends nothing (or a thousand of them)
 * delays nobody: each gets PENDING_MS, and beyond PENDING_MAX the oldest
 * is closed. Its first message is read by the handler it was pended with
 * (the main socket's or the application socket's), which owns it from
 * then on: it registers it with the loop or closes it.
 *
 * Replies are typed records (common/proto.h): the verbs build them with
 * the reply builder below (reply_open() for a command's connection, then
 * reply_rec(), reply_fail(), reply_note(), reply_fd(), and reply_finish()
 * once), which alone knows the connection, so that no handler writes to
 * a client. Each record goes out as it is made (a reply has no size
 * limit); a failure is kept as its REC_ERROR and sent just before the
 * final MSG_REPLY, whose status is the handler's. Every message goes
 * through reply_send(), the one place that writes them: a client that
 * does not read them costs the daemon at most a second once, then the
 * rest of what it is sent is dropped (one connection at a time is
 * served, so one stuck client is remembered).
 *
 * State: the pending connections, the stuck client and the reply being
 * built, nothing else; a crash closes the connections (their clients see
 * the end of the socket).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "client.h"
#include "loop.h"
#include "support/log.h"
#include "common/proto.h"
#include "common/util.h"

#define PENDING_MAX	256
#define PENDING_MS	2000u

static struct pending {
	int fd;
	client_first_fn first;
	uint64_t since;
} pending[PENDING_MAX];
static unsigned int npending;

/* The client that stopped reading its replies: no more time spent on it. */
static int reply_stuck_fd = -1;

static void pending_drop(unsigned int i, int close_it)
{
	ev_del(pending[i].fd);
	if (close_it)
		close(pending[i].fd);
	memmove(&pending[i], &pending[i + 1], (npending - i - 1) * sizeof(pending[0]));
	npending--;
}

/* @fd's first message is there: to its handler. */
static void pending_ready(int fd, void *data)
{
	(void)data;
	for (unsigned int i = 0; i < npending; i++) {
		if (pending[i].fd == fd) {
			client_first_fn first = pending[i].first;

			pending_drop(i, 0);
			reply_stuck_fd = -1;	/* a new client */
			first(fd);
			return;
		}
	}
}

void client_pend(int fd, client_first_fn first)
{
	if (npending == PENDING_MAX) {
		log_warn("%u connections sent nothing yet: closing the oldest", npending);
		pending_drop(0, 1);
	}
	if (ev_add(fd, pending_ready, NULL) < 0) {
		close(fd);
		return;
	}
	pending[npending].fd = fd;
	pending[npending].first = first;
	pending[npending].since = now_ns(CLOCK_MONOTONIC);
	npending++;
}

void client_expire(void)
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
 * We are stopping: the connections not served yet (waiting to be
 * accepted on @listen_fd, or whose first message was not read) are told
 * so; their commands were not carried out, and tracectl asks the next
 * daemon.
 */
void client_stopping(int listen_fd)
{
	int fd;

	while ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		reply_refuse(fd, -ESHUTDOWN, RE_SHUTDOWN);
		close(fd);
	}
	while (npending) {
		reply_refuse(pending[0].fd, -ESHUTDOWN, RE_SHUTDOWN);
		pending_drop(0, 1);
	}
}

int client_wait_ms(int max)
{
	return npending && (max < 0 || max > (int)PENDING_MS / 4) ? (int)PENDING_MS / 4 : max;
}

int client_peer_ours(int fd, uid_t *uid)
{
	struct ucred cr = { .uid = (uid_t)-1 };
	socklen_t len = sizeof(cr);
	int ok = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0;

	if (uid)
		*uid = ok ? cr.uid : (uid_t)-1;
	return ok && cr.uid == geteuid();
}

/* The one function that writes a reply's messages. */
static void reply_send(int fd, unsigned int type, int status, const void *b1, size_t l1,
		       const void *b2, size_t l2, const int *fds, int nfds)
{
	if (fd < 0 || fd == reply_stuck_fd)
		return;	/* a reply to nobody (a trigger's action), or a stuck client */
	for (int tries = 0; tries < 100; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (proto_sendv(fd, type, status, b1, l1, b2, l2, fds, nfds) != -EAGAIN)
			return;
		poll(&pfd, 1, 10);
	}
	log_warn("a client does not read its replies: the rest is dropped");
	reply_stuck_fd = fd;
}

/* The reply being built: one command is served at a time. */
struct reply {
	int fd;
	int failed;			/* err holds the failure */
	struct rec_error err;
};

static struct reply the_reply = { .fd = -1 };
static struct reply aside_reply = { .fd = -1 };

struct reply *reply_open(int fd)
{
	memset(&the_reply, 0, sizeof(the_reply));
	the_reply.fd = fd;
	return &the_reply;
}

struct reply *reply_open_aside(int fd)
{
	memset(&aside_reply, 0, sizeof(aside_reply));
	aside_reply.fd = fd;
	return &aside_reply;
}

void reply_rec(struct reply *r, uint32_t kind, const void *rec, size_t len)
{
	struct msg_item h = { .kind = kind, .version = PROTO_REC_VERSION };

	reply_send(r->fd, MSG_REPLY_ITEM, 0, &h, sizeof(h), rec, len, NULL, 0);
}

void reply_fd(struct reply *r, int fd)
{
	reply_send(r->fd, MSG_REPLY_FD, 0, NULL, 0, NULL, 0, &fd, 1);
}

/* A string into a record's array: cut to fit, the rest zeroed. */
#define REC_SET(dst, src)	snprintf((dst), sizeof(dst), "%s", (src) ? (src) : "")

static void fill(struct rec_error *e, uint32_t code, int err, const struct reply_why *w)
{
	memset(e, 0, sizeof(*e));
	e->code = code;
	e->err = w->err ? w->err : err;
	memcpy(e->n, w->n, sizeof(e->n));
	REC_SET(e->session, w->session);
	REC_SET(e->name, w->name);
	REC_SET(e->name2, w->name2);
	REC_SET(e->detail, w->detail);
	REC_SET(e->path, w->path);
}

int reply_fail_(struct reply *r, int status, uint32_t code, const struct reply_why *w)
{
	if (!r->failed) {	/* the first failure is the one said */
		fill(&r->err, code, status < 0 ? -status : 0, w);
		r->failed = 1;
	}
	return status;
}

void reply_note_(struct reply *r, uint32_t code, const struct reply_why *w)
{
	struct rec_error e;

	fill(&e, code, 0, w);
	reply_rec(r, REC_NOTE, &e, sizeof(e));
}

int reply_detach(struct reply *r)
{
	int fd = r->fd;

	r->fd = -1;
	return fd;
}

int reply_finish(struct reply *r, int status)
{
	if (status < 0 && !r->failed)
		reply_fail(r, status, RE_ERRNO);
	if (status < 0)
		reply_rec(r, REC_ERROR, &r->err, sizeof(r->err));
	reply_send(r->fd, MSG_REPLY, status < 0 ? status : 0, NULL, 0, NULL, 0, NULL, 0);
	r->fd = -1;
	return status;
}

void reply_refuse(int fd, int status, uint32_t code)
{
	struct reply *r = reply_open(fd);

	reply_fail(r, status, code);
	reply_finish(r, status);
}
