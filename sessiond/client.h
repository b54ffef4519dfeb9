/* SPDX-License-Identifier: MIT */
/*
 * client.h - the session daemon's clients (client.c): connections whose
 * first message has not come yet, replies, peer checks.
 */
#ifndef SHMTRACE_SESSIOND_CLIENT_H
#define SHMTRACE_SESSIOND_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

/* A connection's first message is readable: read it, then register @fd
 * (ev_add()) or close it. */
typedef void (*client_first_fn)(int fd);

/* Wait for @fd's first message in the loop; PENDING_MS at most. */
void client_pend(int fd, client_first_fn first);
/* Close the connections that sent nothing in time. */
void client_expire(void);
/* We are stopping: connections waiting on @listen_fd and those pending told so. */
void client_stopping(int listen_fd);
/* How long the loop may sleep with connections pending (ms), at most @max. */
int client_wait_ms(int max);

/* Is the peer of @fd of our uid? Its uid in *@uid (-1 when unknown). */
int client_peer_ours(int fd, uid_t *uid);

/* The one function that writes a reply: @type (MSG_REPLY_TEXT or MSG_REPLY),
 * @status, @text of @len bytes (its NUL included). */
void reply_send(int fd, unsigned int type, int status, const char *text, size_t len);
int reply_text(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int reply_end(int fd, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
