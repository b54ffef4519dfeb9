/* SPDX-License-Identifier: MIT */
/*
 * proto.c - sending protocol messages, and the event descriptions a
 * traced process sends (proto.h): what every component needs, the traced
 * process included. Receiving and checking the rest is
 * support/protomsg.c's.
 *
 * Invariants: a message is one sendmsg() that never blocks (a full
 * socket is -EAGAIN, a short send -EPROTO). The event description
 * decoder reads with explicit bounds and accepts only identifier-like
 * names, because names end up in CTF metadata text and in file names.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>
#include "common/proto.h"

int proto_sendv(int fd, unsigned int type, int status, const void *b1, size_t l1,
		const void *b2, size_t l2, const int *fds, int nfds)
{
	struct proto_hdr h = {
		.magic = PROTO_MAGIC, .version = PROTO_VERSION, .type = (uint16_t)type,
		.size = (uint32_t)(sizeof(h) + l1 + l2), .status = status,
	};
	struct iovec iov[3] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)b1, .iov_len = l1 },
		{ .iov_base = (void *)b2, .iov_len = l2 },
	};
	union {
		char buf[CMSG_SPACE(sizeof(int) * PROTO_MAX_FDS)];
		struct cmsghdr align;
	} cm;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 3 };
	ssize_t n;

	if (sizeof(h) + l1 + l2 > PROTO_MAX_MSG || nfds < 0 || nfds > PROTO_MAX_FDS)
		return -EMSGSIZE;
	if (nfds) {
		struct cmsghdr *c;

		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	do {
		n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == h.size ? 0 : -EPROTO;
}

int proto_send(int fd, unsigned int type, int status, const void *body, size_t len,
	       const int *fds, int nfds)
{
	return proto_sendv(fd, type, status, body, len, NULL, 0, fds, nfds);
}

static int ident_ok(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (c >= '0' && c <= '9' && i > 0)))
			return 0;
	}
	return 1;
}

int proto_type_valid(uint32_t type)
{
	if (type & SHMTRACE_TYPE_SEQ)
		return (type & ~(uint32_t)SHMTRACE_TYPE_SEQ) >= SHMTRACE_TYPE_U8 &&
		       (type & ~(uint32_t)SHMTRACE_TYPE_SEQ) <= SHMTRACE_TYPE_S64;
	return type >= SHMTRACE_TYPE_U8 && type <= SHMTRACE_TYPE_STRING;
}

static int put(char *buf, size_t cap, size_t *pos, const void *p, size_t n)
{
	if (cap - *pos < n)
		return -ENOSPC;
	memcpy(buf + *pos, p, n);
	*pos += n;
	return 0;
}

long proto_event_encode(char *buf, size_t cap, uint32_t id, int32_t loglevel,
			const char *provider, const char *name, uint32_t nfields,
			const uint32_t *types, const char *const *fnames)
{
	size_t pos = 0, lp = strlen(provider), ln = strlen(name);
	uint16_t nf = (uint16_t)nfields, l16 = (uint16_t)(lp + 1 + ln);

	if (nfields > PROTO_MAX_FIELDS || lp + 1 + ln >= PROTO_EVNAME_MAX)
		return -EINVAL;
	if (put(buf, cap, &pos, &id, 4) || put(buf, cap, &pos, &loglevel, 4) ||
	    put(buf, cap, &pos, &nf, 2) || put(buf, cap, &pos, &l16, 2) ||
	    put(buf, cap, &pos, provider, lp) || put(buf, cap, &pos, ":", 1) ||
	    put(buf, cap, &pos, name, ln))
		return -ENOSPC;
	for (uint32_t i = 0; i < nfields; i++) {
		size_t lf = strlen(fnames[i]);

		l16 = (uint16_t)lf;
		if (lf >= PROTO_FIELDNAME_MAX)
			return -EINVAL;
		if (put(buf, cap, &pos, &types[i], 4) || put(buf, cap, &pos, &l16, 2) ||
		    put(buf, cap, &pos, fnames[i], lf))
			return -ENOSPC;
	}
	return (long)pos;
}

static int get(const char *buf, size_t len, size_t *pos, void *p, size_t n)
{
	if (len - *pos < n)
		return -EPROTO;
	memcpy(p, buf + *pos, n);
	*pos += n;
	return 0;
}

int proto_event_decode(const char *buf, size_t len, size_t *pos, struct proto_event *ev)
{
	uint16_t nf, ln;
	const char *colon;

	if (*pos >= len)
		return 0;
	if (get(buf, len, pos, &ev->id, 4) || get(buf, len, pos, &ev->loglevel, 4) ||
	    get(buf, len, pos, &nf, 2) || get(buf, len, pos, &ln, 2))
		return -EPROTO;
	if (nf > PROTO_MAX_FIELDS || ln >= PROTO_EVNAME_MAX || get(buf, len, pos, ev->name, ln))
		return -EPROTO;
	ev->name[ln] = 0;
	colon = memchr(ev->name, ':', ln);
	if (!colon || !ident_ok(ev->name, (size_t)(colon - ev->name)) ||
	    !ident_ok(colon + 1, ln - (size_t)(colon - ev->name) - 1))
		return -EPROTO;
	ev->nfields = nf;
	for (uint32_t i = 0; i < nf; i++) {
		struct proto_field *f = &ev->fields[i];

		if (get(buf, len, pos, &f->type, 4) || get(buf, len, pos, &ln, 2) ||
		    ln >= PROTO_FIELDNAME_MAX || get(buf, len, pos, f->name, ln))
			return -EPROTO;
		f->name[ln] = 0;
		if (!ident_ok(f->name, ln) || !proto_type_valid(f->type))
			return -EPROTO;
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(ev->fields[j].name, f->name))
				return -EPROTO;
	}
	/* a sequence x declares x_length too: no other field may use it */
	for (uint32_t i = 0; i < nf; i++) {
		const struct proto_field *f = &ev->fields[i];
		size_t l = strlen(f->name);

		if (!(f->type & SHMTRACE_TYPE_SEQ))
			continue;
		for (uint32_t j = 0; j < nf; j++)
			if (!strncmp(ev->fields[j].name, f->name, l) &&
			    !strcmp(ev->fields[j].name + l, "_length"))
				return -EPROTO;
	}
	return 1;
}

