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
 * Replies go through reply_send(), the one place that writes them: a
 * client that does not read them costs the daemon at most a second once,
 * then the rest of what it is sent is dropped (one connection at a time
 * is served, so one stuck client is remembered).
 *
 * State: the pending connections and the stuck client, nothing else; a
 * crash closes the connections (their clients see the end of the socket).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "client.h"
#include "loop.h"
#include "log.h"
#include "proto.h"
#include "util.h"

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
		reply_end(fd, -ESHUTDOWN, "the session daemon is stopping");
		close(fd);
	}
	while (npending) {
		reply_end(pending[0].fd, -ESHUTDOWN, "the session daemon is stopping");
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

void reply_send(int fd, unsigned int type, int status, const char *text, size_t len)
{
	if (fd == reply_stuck_fd)
		return;
	for (int tries = 0; tries < 100; tries++) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (proto_send(fd, type, status, text, len, NULL, 0) != -EAGAIN)
			return;
		poll(&pfd, 1, 10);
	}
	log_warn("a client does not read its replies: the rest is dropped");
	reply_stuck_fd = fd;
}

static void vreply(int fd, unsigned int type, int status, const char *fmt, va_list ap)
{
	char text[8192];
	int n = 0;

	text[0] = 0;
	if (fmt)
		n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	reply_send(fd, type, status, text, (size_t)n + 1);
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
