/* SPDX-License-Identifier: MIT */
/*
 * bad-client - sends malformed and truncated messages to the session
 * daemon of $SHMTRACE_HOME, each on its own connection, and checks that
 * every one is refused (an error reply or the connection closed) and that
 * the daemon still answers a well-formed command afterwards.
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
#include "home.h"
#include "proto.h"
#include "shm.h"

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

/* 0: refused as it should be (error reply or closed), 1: accepted. */
static int outcome(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct proto_hdr h;
	char buf[PROTO_MAX_MSG];
	ssize_t n;

	if (poll(&pfd, 1, 3000) <= 0)
		return 1;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n <= 0)
		return 0;
	if ((size_t)n < sizeof(h))
		return 1;
	memcpy(&h, buf, sizeof(h));
	return !(h.type == MSG_REPLY && h.status < 0);
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

int main(void)
{
	char home[1024], buf[PROTO_MAX_MSG];
	struct proto_hdr h = { PROTO_MAGIC, PROTO_VERSION, MSG_CMD, 0, 0 };
	size_t n;
	int bad = 0, fd;

	if (home_resolve(home, sizeof(home)) < 0 ||
	    home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_SOCK) < 0)
		return 1;

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
