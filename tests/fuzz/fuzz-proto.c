/* SPDX-License-Identifier: MIT */
/*
 * fuzz-proto.c - fuzz target for the parsers of untrusted bytes in common/.
 *
 * Each input is used three ways:
 *  1. as the records of an event description body: proto_event_decode()
 *     over the whole input; every record it accepts must be made of
 *     identifiers and valid types, re-encode to the same bytes with
 *     proto_event_encode(), and be declarable with ctfmeta_event();
 *  2. as a MSG_CMD body: proto_cmd_decode(), whose strings must tile the
 *     end of the body exactly when it accepts it, and which must encode
 *     again to as many bytes with proto_cmd_encode();
 *  3. as a MSG_REPLY_ITEM body: proto_item_decode(), which must accept a
 *     record of a kind it knows only when the body holds its size after
 *     the item header, with a version no earlier than ours and every char
 *     array terminated (checked here field by field, as tracectl then
 *     reads them), and skip only the kinds it does not know;
 *  4. as a whole message sent through a SOCK_SEQPACKET socketpair with
 *     descriptors attached: proto_recv() must accept it exactly when it is
 *     well-formed (an independent check of the header below), never leak a
 *     descriptor, and the accepted bodies are parsed as the daemons and
 *     tracectl do.
 *
 * The number of descriptors sent is the message type's, changed by bits
 * 16-17 of the status field (XOR its sign, so that usual statuses keep
 * the right count), so that mutations reach the wrong-count paths; an empty
 * input carries one descriptor.
 *
 * Any broken invariant aborts, which both libFuzzer and driver.c report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <shmtrace/shmtrace.h>
#include "support/ctfmeta.h"
#include "common/proto.h"
#include "support/protomsg.h"
#include "fuzz.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,	\
			__LINE__, #cond);					\
		abort();							\
	}									\
} while (0)

static int is_ident(const char *s)
{
	if (!*s)
		return 0;
	for (const char *p = s; *p; p++) {
		char c = *p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (c >= '0' && c <= '9' && p != s)))
			return 0;
	}
	return 1;
}

/* A record accepted by the decoder, which it read from rec[0..len). */
static void check_event(const struct proto_event *ev, const char *rec, size_t len)
{
	static char text[16384], wire[8192];
	char prov[PROTO_EVNAME_MAX], *colon;
	uint32_t types[PROTO_MAX_FIELDS];
	const char *fnames[PROTO_MAX_FIELDS];
	long n;

	CHECK(memchr(ev->name, 0, sizeof(ev->name)) != NULL);
	CHECK(ev->nfields <= PROTO_MAX_FIELDS);
	strcpy(prov, ev->name);
	colon = strchr(prov, ':');
	CHECK(colon != NULL);
	*colon = 0;
	CHECK(is_ident(prov) && is_ident(colon + 1));
	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct proto_field *f = &ev->fields[i];

		CHECK(memchr(f->name, 0, sizeof(f->name)) != NULL);
		CHECK(is_ident(f->name));
		CHECK(proto_type_valid(f->type));
		for (uint32_t j = 0; j < i; j++)
			CHECK(strcmp(f->name, ev->fields[j].name) != 0);
		types[i] = f->type;
		fnames[i] = f->name;
	}
	/* the encoder produces exactly the bytes the decoder accepted */
	n = proto_event_encode(wire, sizeof(wire), ev->id, ev->loglevel, prov, colon + 1,
			       ev->nfields, types, fnames);
	CHECK(n >= 0 && (size_t)n == len);
	CHECK(memcmp(wire, rec, len) == 0);
	/* and the metadata writer declares it */
	n = ctfmeta_event(text, sizeof(text), ev, 0);
	CHECK(n > 0 && (size_t)n == strlen(text));
}

/* Decode records from body[pos..len) as the daemons do. */
static void decode_events(const char *body, size_t len, size_t pos)
{
	struct proto_event ev;
	int ret;

	for (;;) {
		size_t prev = pos;

		ret = proto_event_decode(body, len, &pos, &ev);
		if (ret != 1)
			break;
		CHECK(pos > prev && pos <= len);
		check_event(&ev, body + prev, pos - prev);
	}
	CHECK(ret == 0 || ret == -EPROTO);
	if (ret == 0)
		CHECK(pos >= len);
}

static void fuzz_events(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that sanitizers see any over-read */
	char *buf = calloc(1, size ? size : 1);

	CHECK(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	decode_events(buf, size, 0);
	free(buf);
}

static void cmd_args(const char *body, size_t len)
{
	static struct proto_cmd c;
	static char again[PROTO_MAX_MSG];
	int ret;

	/* proto_recv guarantees the fixed part before the body is parsed */
	if (len < sizeof(struct msg_cmd))
		return;
	ret = proto_cmd_decode(body, len, &c);
	CHECK(ret == -EPROTO || ret == 0);
	if (ret == 0) {
		const char *p = c.nstr ? c.str[0] : body + len;
		long n;

		CHECK(memchr(c.session, 0, PROTO_NAME_MAX) != NULL);
		CHECK(c.nstr <= PROTO_CMD_MAX_STR);
		for (uint32_t i = 0; i < c.nstr; i++) {
			CHECK(c.str[i] == p);
			p += strlen(p) + 1;
			CHECK(p <= body + len);
		}
		CHECK(p == body + len);
		/* what was accepted encodes again to as many bytes */
		n = proto_cmd_encode(again, sizeof(again), c.verb, c.session, &c.b, c.nstr, c.str);
		CHECK(n == (long)len);
	}
}

static void fuzz_cmd(const uint8_t *data, size_t size)
{
	char *buf = calloc(1, size ? size : 1);

	CHECK(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	cmd_args(buf, size);
	free(buf);
}

#define TERMINATED(a)	CHECK(memchr((a), 0, sizeof(a)) != NULL)

/* A record of a reply, as tracectl receives it. */
static void check_item(const char *body, size_t len)
{
	static union proto_rec_body rec;
	struct msg_item h;
	uint32_t kind = 0;
	int ret = proto_item_decode(body, len, &kind, &rec);

	CHECK(ret == 1 || ret == 0 || ret == -EPROTO);
	if (len < sizeof(h)) {
		CHECK(ret == -EPROTO);
		return;
	}
	memcpy(&h, body, sizeof(h));
	CHECK(kind == h.kind);
	if (ret == 0) {
		CHECK(proto_rec_size(kind) == 0);
		return;
	}
	if (ret < 0)
		return;
	CHECK(proto_rec_size(kind) != 0 && len - sizeof(h) >= proto_rec_size(kind));
	CHECK(h.version >= PROTO_REC_VERSION);
	switch (kind) {
	case REC_SESSION:
		TERMINATED(rec.session.name);
		TERMINATED(rec.session.output);
		TERMINATED(rec.session.relay_path);
		TERMINATED(rec.session.stream_why);
		break;
	case REC_CHANNEL:
		TERMINATED(rec.channel.session);
		TERMINATED(rec.channel.name);
		TERMINATED(rec.channel.stats.werr_path);
		break;
	case REC_ENABLER:
		TERMINATED(rec.enabler.pattern);
		TERMINATED(rec.enabler.filter);
		break;
	case REC_AGGREGATION:
		for (int i = 0; i < CMD_AGG_KEYS; i++)
			TERMINATED(rec.agg.key[i].field);
		for (int i = 0; i < CMD_AGG_FUNCS; i++)
			TERMINATED(rec.agg.func[i].field);
		TERMINATED(rec.agg.filter);
		break;
	case REC_EVENT:
		for (int i = 0; i < PROTO_MAX_FIELDS; i++)
			TERMINATED(rec.event.field[i].name);
		TERMINATED(rec.event.name);
		break;
	case REC_NOTE:
	case REC_ERROR:
		TERMINATED(rec.error.name);
		TERMINATED(rec.error.detail);
		TERMINATED(rec.error.path);
		break;
	default:
		break;
	}
}

static void fuzz_item(const uint8_t *data, size_t size)
{
	char *buf = calloc(1, size ? size : 1);

	CHECK(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	check_item(buf, size);
	free(buf);
}

/* An accepted notice: its path is the rest of the body, one NUL at its end. */
static void check_notice(const char *body, size_t len)
{
	struct msg_app_notice m;
	const char *path;

	if (proto_notice_decode(body, len, &m, &path) < 0)
		return;
	CHECK(path == body + sizeof(m));
	CHECK(sizeof(m) + m.path_len == len);
	CHECK(m.kind > 0 && m.kind < NOTICE_MAX && m.pid > 0 && m.pid <= PROTO_PID_MAX);
	CHECK(strlen(path) + 1 == m.path_len && m.path_len <= PROTO_PATH_MAX);
}

static int sv[2] = { -1, -1 };

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	close(fd);
	return fd;
}

static int fds_to_send(const uint8_t *data, size_t size)
{
	struct proto_hdr h;
	int n, sel;

	if (size == 0)
		return 1;
	if (size < sizeof(h))
		return data[0] % 3 == 2;
	memcpy(&h, data, sizeof(h));
	n = proto_nfds(h.type);
	sel = ((h.status >> 16) ^ (h.status >> 31)) & 3;
	if (sel == 1)
		n++;
	else if (sel == 2 && n > 0)
		n--;
	else if (sel == 3)
		n += PROTO_MAX_FDS;	/* more than proto_recv takes */
	return n;
}

static void fuzz_recv(const uint8_t *data, size_t size)
{
	static char buf[PROTO_MAX_MSG];
	struct iovec iov = { .iov_base = (void *)data, .iov_len = size };
	union {
		char b[CMSG_SPACE(sizeof(int) * 2 * PROTO_MAX_FDS)];
		struct cmsghdr align;
	} cm;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct proto_hdr h, want;
	int fds[PROTO_MAX_FDS], sent[2 * PROTO_MAX_FDS];
	int nfds = fds_to_send(data, size), low, valid;
	long ret;
	char c;

	if (size > PROTO_MAX_MSG + 256)
		return;
	if (sv[0] < 0) {
		int sndbuf = 4 * PROTO_MAX_MSG;

		CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
		CHECK(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) == 0);
	}
	low = lowest_free_fd();
	for (int i = 0; i < nfds; i++) {
		sent[i] = memfd_create("fuzz", MFD_CLOEXEC);
		CHECK(sent[i] >= 0);
	}
	if (nfds) {
		struct cmsghdr *cmh;

		memset(&cm, 0, sizeof(cm));
		msg.msg_control = cm.b;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		cmh = CMSG_FIRSTHDR(&msg);
		cmh->cmsg_level = SOL_SOCKET;
		cmh->cmsg_type = SCM_RIGHTS;
		cmh->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(cmh), sent, sizeof(int) * (size_t)nfds);
	}
	CHECK(sendmsg(sv[0], &msg, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)size);
	for (int i = 0; i < nfds; i++)
		close(sent[i]);

	/* what proto_recv must accept */
	valid = size >= sizeof(want) && size <= PROTO_MAX_MSG;
	if (valid) {
		long min;

		memcpy(&want, data, sizeof(want));
		min = proto_body_min(want.type);
		valid = want.magic == PROTO_MAGIC && want.version == PROTO_VERSION &&
			want.size == size && min >= 0 && size - sizeof(want) >= (size_t)min &&
			nfds == proto_nfds(want.type);
	}

	for (int i = 0; i < PROTO_MAX_FDS; i++)
		fds[i] = -1;
	ret = proto_recv(sv[1], buf, &h, fds, MSG_DONTWAIT);
	if (valid) {
		CHECK(ret >= 0 && (size_t)ret == size - sizeof(h));
		CHECK(memcmp(&h, &want, sizeof(h)) == 0);
		CHECK(memcmp(buf, data + sizeof(h), (size_t)ret) == 0);
		for (int i = 0; i < nfds; i++) {
			CHECK(fds[i] >= 0);
			CHECK(fcntl(fds[i], F_GETFD) == FD_CLOEXEC);
		}
		/* the body, parsed as the daemons parse it */
		switch (h.type) {
		case MSG_CMD:
			cmd_args(buf, (size_t)ret);
			break;
		case MSG_APP_EVENTS:
		case MSG_C_EVENTS:
			decode_events(buf, (size_t)ret, sizeof(struct msg_events));
			break;
		case MSG_APP_NOTICE:
			check_notice(buf, (size_t)ret);
			break;
		case MSG_REPLY_ITEM:
			check_item(buf, (size_t)ret);
			break;
		default:
			break;
		}
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
	} else {
		CHECK(ret == -EPROTO || (size == 0 && ret == -ECONNRESET));
		for (int i = 0; i < PROTO_MAX_FDS; i++)
			CHECK(fds[i] == -1);
	}
	/* exactly one message consumed; no descriptor left behind */
	CHECK(recv(sv[1], &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN);
	if (lowest_free_fd() != low) {
		fprintf(stderr, "descriptor leak: proto_recv returned %ld for a %zu-byte message "
			"with %d descriptors\n", ret, size, nfds);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_events(data, size);
	fuzz_cmd(data, size);
	fuzz_item(data, size);
	fuzz_recv(data, size);
	return 0;
}
