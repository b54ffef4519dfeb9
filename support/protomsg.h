/* SPDX-License-Identifier: MIT */
/*
 * protomsg.h - the protocol as the daemons and the tools receive it
 * (protomsg.c): a message read and checked against its type, a command,
 * a reply record and a process's notice decoded and bounded, the rules
 * of names. The layouts are common/proto.h's.
 */
#ifndef SHMTRACE_SUPPORT_PROTOMSG_H
#define SHMTRACE_SUPPORT_PROTOMSG_H

#include <stddef.h>
#include <stdint.h>
#include "common/proto.h"

/* The size of a record of @kind (our version), 0 for a kind we do not know. */
size_t proto_rec_size(uint32_t kind);

/*
 * A MSG_REPLY_ITEM body of @len bytes: its kind in *@kind and, for a kind
 * we know, its record copied into @rec (our version's size, every char
 * array checked to hold a NUL). 1 with the record, 0 for a kind we do not
 * know (skip it), -EPROTO for a record that is short, of an earlier
 * version, or has an unterminated string.
 */
int proto_item_decode(const void *body, size_t len, uint32_t *kind, union proto_rec_body *rec);

/* Fixed body size of a type, or -1 for an unknown type. */
long proto_body_min(unsigned int type);
/* Descriptors a type must carry. */
int proto_nfds(unsigned int type);

/*
 * Receive one message into @buf (PROTO_MAX_MSG bytes). Returns the body
 * length (>= 0) with *type set, 0 fds or the type's fds in @fds; -EAGAIN,
 * -ECONNRESET on end of stream, -EPROTO on a malformed message, -EMFILE
 * when the descriptors it carried could not all be received (the
 * descriptor limit; the message is lost). Any descriptors received with a
 * message refused are closed.
 */
long proto_recv(int fd, void *buf, struct proto_hdr *hdr, int *fds, int flags);

/*
 * MSG_APP_NOTICE body: checks version, kind, pid (1..PROTO_PID_MAX), that
 * the path fills the rest of the body (path_len bytes, 2..PROTO_PATH_MAX)
 * and holds exactly one NUL, its last byte. 0 with *@m and *@path set, or
 * -EPROTO.
 */
#define PROTO_PID_MAX		4194304u	/* the kernel's largest pid_max */
int proto_notice_decode(const char *body, size_t len, struct msg_app_notice *m,
			const char **path);

/* Session, channel and aggregation names: 1 if @n follows the rules. */
#define PROTO_NAME_RULES "1 to 63 bytes, no '/', space nor control character, " \
	"not beginning with '.'"
int proto_name_ok(const char *n);

/*
 * A MSG_CMD body of @len bytes into @c: a known verb, exactly its body
 * (copied into @c->b), every char array of it terminated, the number of
 * strings the verb takes, each terminated, the last one ending the
 * message. 0, or -EPROTO.
 */
int proto_cmd_decode(const char *body, size_t len, struct proto_cmd *c);

/*
 * A MSG_CMD body into @buf (@cap bytes): @verb for @session, the verb's
 * body @b (its size is the verb's), then @nstr strings. Its bytes, or
 * -EINVAL, -EMSGSIZE.
 */
long proto_cmd_encode(char *buf, size_t cap, uint32_t verb, const char *session,
		      const void *b, unsigned int nstr, const char *const *str);

#endif
