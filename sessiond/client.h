/* SPDX-License-Identifier: MIT */
/*
 * client.h - the session daemon's clients (client.c): connections whose
 * first message has not come yet, replies, peer checks.
 */
#ifndef SHMTRACE_SESSIOND_CLIENT_H
#define SHMTRACE_SESSIOND_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/proto.h"

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

/*
 * The reply to a command (common/proto.h, "Replies"): the builder's
 * functions are the only way to answer a client. reply_open() starts the
 * reply on a command's connection (one at a time); reply_rec() sends a
 * record now; reply_fail() keeps the first failure (its code and fields,
 * @status's errno unless .err is given) and returns @status, for
 * `return reply_fail(r, -ENOENT, RE_NO_SESSION, .session = name);`;
 * reply_note() sends a REC_NOTE now; reply_fd() passes a descriptor
 * (MSG_REPLY_FD); reply_finish() sends the failure, when @status < 0 (a
 * generic RE_ERRNO when none was kept), then MSG_REPLY with @status.
 */
struct reply;

struct reply_why {
	int err;			/* errno when not the status's */
	uint64_t n[4];
	const char *session, *name, *name2, *detail, *path;
};

/* @fd -1: a reply to nobody (a trigger's action runs a verb): its records go nowhere. */
struct reply *reply_open(int fd);
/*
 * A second builder, for what a trigger answers (its action's verb, its
 * waiters): it may do so while a command is served (a process gone in the
 * middle of one), whose reply stays whole.
 */
struct reply *reply_open_aside(int fd);
/* The connection of @r, taken by its handler to answer later (reply_open() again). */
int reply_detach(struct reply *r);
void reply_rec(struct reply *r, uint32_t kind, const void *rec, size_t len);
void reply_fd(struct reply *r, int fd);
int reply_fail_(struct reply *r, int status, uint32_t code, const struct reply_why *w);
void reply_note_(struct reply *r, uint32_t code, const struct reply_why *w);
#define reply_fail(r, status, code, ...) \
	reply_fail_((r), (status), (code), &(const struct reply_why){ __VA_ARGS__ })
#define reply_note(r, code, ...) \
	reply_note_((r), (code), &(const struct reply_why){ __VA_ARGS__ })
int reply_finish(struct reply *r, int status);
/* A connection answered @status (@code) before any command was read. */
void reply_refuse(int fd, int status, uint32_t code);

#endif
