/* SPDX-License-Identifier: MIT */
/*
 * bad-client - sends malformed and truncated messages to the session
 * daemon of $SHMTRACE_HOME, each on its own connection, and checks that
 * every one is refused (an error reply or the connection closed) and that
 * the daemon still answers a well-formed command afterwards.
 *
 * bad-client segments: as a traced process (a registration of its own on
 * each connection), describes buffer and aggregation segments, well-formed
 * and not, each followed by MSG_APP_SYNC: the reply says the daemon took
 * the segment, the connection closed that it refused it. Each malformed
 * one differs from the well-formed one in one field (or its descriptor).
 * Needs an active session with an aggregation (its slot and definition are
 * read from the control page the daemon writes). Prints the count of each.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "common/agg.h"
#include "common/home.h"
#include "common/proto.h"
#include "common/shm.h"

static struct sockaddr_un sa = { .sun_family = AF_UNIX };

static int conn(void)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("bad-client: connect");
		exit(1);
	}
	return fd;
}

/*
 * 0: refused as it should be (the error's record and an error reply, or
 * the connection closed), 1: accepted.
 */
static int outcome(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct proto_hdr h;
	struct msg_item it;
	char buf[PROTO_MAX_MSG];
	ssize_t n;

	for (;;) {
		if (poll(&pfd, 1, 3000) <= 0)
			return 1;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return 0;
		if ((size_t)n < sizeof(h))
			return 1;
		memcpy(&h, buf, sizeof(h));
		if (h.type != MSG_REPLY_ITEM || (size_t)n < sizeof(h) + sizeof(it))
			return !(h.type == MSG_REPLY && h.status < 0);
		memcpy(&it, buf + sizeof(h), sizeof(it));
		if (it.kind != REC_ERROR)
			return 1;	/* answered */
	}
}

static int send_raw(const void *buf, size_t len)
{
	int fd = conn(), ret;

	if (send(fd, buf, len, 0) < 0 && len) {
		perror("bad-client: send");
		exit(1);
	}
	ret = outcome(fd);
	close(fd);
	return ret;
}

/* A MSG_CMD of @verb: a body of @bsize bytes of @fill, then @nstr strings in @args. */
static size_t cmd(char *buf, uint32_t verb, uint32_t bsize, int fill, uint32_t nstr,
		  const char *args, size_t alen)
{
	struct proto_hdr h = { PROTO_MAGIC, PROTO_VERSION, MSG_CMD, 0, 0 };
	struct msg_cmd c;
	char *p = buf + sizeof(h) + sizeof(c);

	memset(&c, 0, sizeof(c));
	c.verb = verb;
	c.body_size = bsize;
	c.nstr = nstr;
	h.size = (uint32_t)(sizeof(h) + sizeof(c) + bsize + alen);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &c, sizeof(c));
	memset(p, fill, bsize);
	memcpy(p + bsize, args, alen);
	return h.size;
}

static int memfd(size_t size)
{
	int fd = memfd_create("t", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		exit(1);
	return fd;
}

/* A real registration, then garbage on the same connection. */
static int app_then_garbage(void)
{
	struct msg_app_register r;
	int fds[3] = { memfd(SHM_CTL_SIZE), memfd(SHM_PROC_SIZE), -1 };
	int fd = conn(), ret, sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)	/* the wake socket */
		exit(1);
	fds[2] = sv[1];
	static const char junk[] = "not a message at all, definitely";

	memset(&r, 0, sizeof(r));
	r.pid = (uint32_t)getpid();
	r.abi = SHMTRACE_ABI_VERSION;
	r.max_events = SHM_MAX_EVENTS;
	r.max_chan = SHM_MAX_CHAN;
	strcpy(r.procname, "bad-client");
	if (proto_send(fd, MSG_APP_REGISTER, 0, &r, sizeof(r), fds, 3) < 0)
		exit(1);
	if (send(fd, junk, sizeof(junk), 0) < 0)
		exit(1);
	ret = outcome(fd);	/* the daemon closes the connection */
	close(fd);
	return ret;
}

/* ---- segments ---------------------------------------------------------------- */

static uint64_t reg_instance;

/* A new connection registered as a traced process; its control page in *@ctl. */
static int reg_conn(const struct shm_ctl_page **ctl)
{
	struct msg_app_register r;
	struct msg_sync s = { .seq = 1 };
	int fds[3] = { memfd(SHM_CTL_SIZE), memfd(SHM_PROC_SIZE), -1 };
	int fd = conn(), sv[2];
	void *p;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		exit(1);
	fds[2] = sv[1];
	memset(&r, 0, sizeof(r));
	r.pid = (uint32_t)getpid();
	r.abi = SHMTRACE_ABI_VERSION;
	r.max_events = SHM_MAX_EVENTS;
	r.max_chan = SHM_MAX_CHAN;
	r.instance = ++reg_instance;
	strcpy(r.procname, "bad-client");
	if (proto_send(fd, MSG_APP_REGISTER, 0, &r, sizeof(r), fds, 3) < 0 ||
	    proto_send(fd, MSG_APP_SYNC, 0, &s, sizeof(s), NULL, 0) < 0 || outcome(fd) != 1) {
		fprintf(stderr, "bad-client: registration refused\n");
		exit(1);
	}
	p = mmap(NULL, SHM_CTL_SIZE, PROT_READ, MAP_SHARED, fds[0], 0);
	if (p == MAP_FAILED)
		exit(1);
	*ctl = p;
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	close(sv[0]);
	return fd;
}

/*
 * Describe a segment (@type, @m of @len bytes, descriptor @sfd, or none
 * when -1) on a new registration, then sync: 1 taken, 0 refused.
 */
static int describe(unsigned int type, const void *m, size_t len, int sfd)
{
	const struct shm_ctl_page *ctl;
	struct msg_sync s = { .seq = 2 };
	int fd = reg_conn(&ctl), ret;

	if (proto_send(fd, type, 0, m, len, sfd >= 0 ? &sfd : NULL, sfd >= 0 ? 1 : 0) < 0 ||
	    proto_send(fd, MSG_APP_SYNC, 0, &s, sizeof(s), NULL, 0) < 0)
		ret = 0;	/* closed already */
	else
		ret = outcome(fd);
	if (sfd >= 0)
		close(sfd);
	munmap((void *)ctl, SHM_CTL_SIZE);
	close(fd);
	return ret;
}

static int unsealed(size_t size)
{
	int fd = memfd_create("t", 0);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		exit(1);
	return fd;
}

static int pipe_fd(void)
{
	int p[2];

	if (pipe(p) < 0)
		exit(1);
	close(p[1]);
	return p[0];
}

/* @want: 1 taken, 0 refused; counts the cases that went otherwise */
static int expect(const char *what, int want, int got)
{
	if (got == want)
		return 0;
	fprintf(stderr, "bad-client: %s: %s\n", what, got ? "taken" : "refused");
	return 1;
}

static int segments(void)
{
	const struct shm_ctl_page *ctl;
	const struct shm_ctl_agg *ca = NULL;
	struct msg_segment ok = { 0 }, m;
	struct msg_agg_seg aok = { 0 }, am;
	struct agg_geom g;
	unsigned int slot;
	int fd, bad = 0, nseg = 0, nagg = 0;

	/* a buffer segment of a channel that does not exist: well-formed, taken
	 * (and dropped: nothing to drain); the checks come first */
	ok.chan_id = 12345;
	ok.chan_slot = 0;
	ok.first_slot = 0;
	ok.nslots = 1;
	ok.subbuf_size = 4096;
	ok.num_subbuf = 2;
	ok.size = SHM_PAGE + shm_slot_hdr_size(2) + 2 * 4096;
	bad += expect("well-formed buffer segment", 1,
		      describe(MSG_APP_SEGMENT, &ok, sizeof(ok), memfd(ok.size)));
#define SEG(what, field, value, sfd) do {					\
		m = ok;								\
		m.field = value;						\
		bad += expect("buffer segment: " what, 0,			\
			      describe(MSG_APP_SEGMENT, &m, sizeof(m), sfd));	\
		nseg++;								\
	} while (0)
	SEG("one sub-buffer", num_subbuf, 1, memfd(ok.size));
	SEG("sub-buffers of 1000 bytes", subbuf_size, 1000, memfd(ok.size));
	SEG("no slot", nslots, 0, memfd(ok.size));
	SEG("slots past the last", first_slot, SHM_MAX_SLOTS, memfd(ok.size));
	SEG("segment index out of range", seg_index, SHM_MAX_SEGMENTS, memfd(ok.size));
	SEG("unknown context", context, 1u << 7, memfd(ok.size));
	SEG("size of another geometry", size, ok.size + SHM_PAGE, memfd(ok.size + SHM_PAGE));
	SEG("file smaller than said", size, ok.size, memfd(ok.size - SHM_PAGE));
	SEG("file not sealed", size, ok.size, unsealed(ok.size));
	SEG("a pipe", size, ok.size, pipe_fd());
	/* no descriptor at all: refused as a malformed message */
	bad += expect("buffer segment without its descriptor", 0,
		      describe(MSG_APP_SEGMENT, &ok, sizeof(ok), -1));

	/* the aggregation of the session, from the control page */
	fd = reg_conn(&ctl);
	for (slot = 0; slot < SHM_MAX_AGG && !ca; slot++)
		if (ctl->agg[slot].agg_id)
			ca = &ctl->agg[slot];
	if (!ca || agg_geom(&ca->def, &g) < 0) {
		fprintf(stderr, "bad-client: no aggregation in the control page\n");
		return 1;
	}
	aok.agg_id = ca->agg_id;
	aok.agg_slot = slot - 1;
	aok.ntables = 1;
	aok.capacity = ca->capacity;
	aok.table_size = shm_agg_table_size(&g, ca->capacity);
	aok.def_hash = agg_def_hash(&ca->def);
	aok.size = SHM_AGG_SEG_HDR + aok.table_size;
	munmap((void *)ctl, SHM_CTL_SIZE);
	close(fd);
	bad += expect("well-formed aggregation segment", 1,
		      describe(MSG_APP_AGG_SEG, &aok, sizeof(aok), memfd(aok.size)));
	am = aok;
	am.agg_id++;
	bad += expect("segment of an aggregation that is gone", 1,
		      describe(MSG_APP_AGG_SEG, &am, sizeof(am), memfd(aok.size)));
#define AGG(what, field, value, sfd) do {					\
		am = aok;							\
		am.field = value;						\
		bad += expect("aggregation segment: " what, 0,			\
			      describe(MSG_APP_AGG_SEG, &am, sizeof(am), sfd));	\
		nagg++;								\
	} while (0)
	AGG("no table", ntables, 0, memfd(aok.size));
	AGG("too many tables", ntables, SHM_AGG_MAX_TABLES + 1, memfd(aok.size));
	AGG("segment index out of range", seg_index, SHM_AGG_MAX_SEGMENTS, memfd(aok.size));
	AGG("another capacity", capacity, aok.capacity * 2, memfd(aok.size));
	AGG("another table size", table_size, aok.table_size + 64, memfd(aok.size));
	AGG("another definition", def_hash, aok.def_hash ^ 1, memfd(aok.size));
	AGG("size of two tables", size, aok.size + aok.table_size, memfd(aok.size + aok.table_size));
	AGG("file smaller than said", size, aok.size, memfd(aok.size - 64));
	AGG("file not sealed", size, aok.size, unsealed(aok.size));
	AGG("a pipe", size, aok.size, pipe_fd());
	if (bad)
		return 1;
	printf("buffer segments refused %d\naggregation segments refused %d\n", nseg, nagg);
	return 0;
}

int main(int argc, char **argv)
{
	char home[1024], buf[PROTO_MAX_MSG];
	struct proto_hdr h = { PROTO_MAGIC, PROTO_VERSION, MSG_CMD, 0, 0 };
	size_t n;
	int bad = 0, fd;

	if (home_resolve(home, sizeof(home)) < 0 ||
	    home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_SOCK) < 0)
		return 1;
	if (argc > 1)
		return strcmp(argv[1], "segments") ? 2 : segments();

	bad += send_raw("garbage", 7);				/* shorter than a header */
	memset(buf, 0xff, 64);
	bad += send_raw(buf, 64);				/* bad magic */
	n = cmd(buf, VERB_LIST, 0, 0, 0, "", 0);
	buf[4] = 9;
	bad += send_raw(buf, n);				/* bad version */
	n = cmd(buf, VERB_LIST, 0, 0, 0, "", 0);
	bad += send_raw(buf, n - 8);				/* truncated body */
	n = cmd(buf, VERB_LIST, 0, 0, 0, "", 0);
	((struct proto_hdr *)(void *)buf)->size += 100;
	bad += send_raw(buf, n);				/* size field lies */
	n = cmd(buf, VERB_ENABLE_EVENT, sizeof(struct cmd_events), 0, 2, "abc\0de", 6);
	bad += send_raw(buf, n);				/* unterminated argument */
	n = cmd(buf, VERB_ENABLE_EVENT, sizeof(struct cmd_events), 0, 1, "abc\0junk", 8);
	bad += send_raw(buf, n);				/* trailing bytes */
	n = cmd(buf, VERB_ENABLE_EVENT, sizeof(struct cmd_events) - 4, 0, 1, "abc", 4);
	bad += send_raw(buf, n);				/* body of another size */
	n = cmd(buf, VERB_ENABLE_EVENT, sizeof(struct cmd_events), 'x', 1, "abc", 4);
	bad += send_raw(buf, n);				/* unterminated name in the body */
	n = cmd(buf, VERB_START, 0, 0, 1, "abc", 4);
	bad += send_raw(buf, n);				/* a string where none goes */
	n = cmd(buf, 999, 0, 0, 0, "", 0);
	bad += send_raw(buf, n);				/* unknown verb */
	h.type = 77;
	h.size = sizeof(h);
	bad += send_raw(&h, sizeof(h));				/* unknown type */
	h.type = MSG_APP_REGISTER;
	h.size = sizeof(h) + sizeof(struct msg_app_register);
	memcpy(buf, &h, sizeof(h));
	memset(buf + sizeof(h), 0, sizeof(struct msg_app_register));
	bad += send_raw(buf, h.size);				/* registration without fds */
	bad += app_then_garbage();
	if (bad) {
		fprintf(stderr, "bad-client: %d malformed messages were not refused\n", bad);
		return 1;
	}
	/* the daemon still serves */
	fd = conn();
	n = cmd(buf, VERB_PING, 0, 0, 0, "", 0);
	if (send(fd, buf, n, 0) < 0 || outcome(fd) != 1) {
		fprintf(stderr, "bad-client: the daemon does not answer a ping\n");
		return 1;
	}
	printf("bad-client: 14 malformed messages refused, daemon alive\n");
	return 0;
}
