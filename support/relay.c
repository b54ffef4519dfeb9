// SPDX-License-Identifier: MIT
/*
 * relay.c - encoding of lttng-relayd messages, relay addresses, and the
 * bounded blocking exchanges of the session daemon (relay.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>
#include "support/relay.h"
#include "common/util.h"

void rly_hdr(uint8_t *b, uint32_t cmd, uint64_t size)
{
	rly_put64(b, 0);
	rly_put64(b + 8, size);
	rly_put32(b + 16, cmd);
	rly_put32(b + 20, 0);
}

void rly_data_hdr(uint8_t *b, uint64_t handle, uint64_t net_seq, uint32_t size)
{
	rly_put64(b, 0);
	rly_put64(b + 8, handle);
	rly_put64(b + 16, net_seq);
	rly_put32(b + 24, size);
	rly_put32(b + 28, 0);
}

void rly_index(uint8_t *b, const struct rly_index *ix)
{
	const uint64_t v[10] = {
		ix->handle, ix->net_seq, ix->packet_bytes * 8, ix->content_bytes * 8,
		ix->ts_begin, ix->ts_end, ix->discarded, ix->stream_id, ix->instance_id,
		ix->packet_seq,
	};

	rly_hdr(b, RLY_SEND_INDEX, RLY_INDEX_BODY);
	for (int i = 0; i < 10; i++)
		rly_put64(b + RLY_HDR + 8 * i, v[i]);
}

void rly_pair(uint8_t *b, uint32_t cmd, uint64_t handle, uint64_t seq)
{
	rly_hdr(b, cmd, RLY_PAIR_BODY);
	rly_put64(b + RLY_HDR, handle);
	rly_put64(b + RLY_HDR + 8, seq);
}

int rly_add_stream(uint8_t *b, const char *name, const char *path)
{
	size_t nl = strlen(name), pl = strlen(path);

	if (nl >= RLY_CHAN_NAME || pl >= RLY_PATH_USE)
		return -ENAMETOOLONG;
	rly_hdr(b, RLY_ADD_STREAM, RLY_ADD_STREAM_BODY);
	memset(b + RLY_HDR, 0, RLY_ADD_STREAM_BODY);
	memcpy(b + RLY_HDR, name, nl);
	memcpy(b + RLY_HDR + RLY_CHAN_NAME, path, pl);
	/* tracefile size and count: 0, one file per stream */
	return 0;
}

/* HOST, [HOST6] or HOST:rest; *@rest after the host (at ':' or end). */
static int url_host(const char *p, char *host, size_t len, const char **rest)
{
	const char *end;
	size_t n;

	if (*p == '[') {
		end = strchr(p, ']');
		if (!end)
			return -EINVAL;
		p++;
		n = (size_t)(end - p);
		*rest = end + 1;
	} else {
		end = strchr(p, ':');
		n = end ? (size_t)(end - p) : strlen(p);
		*rest = p + n;
	}
	if (n == 0 || n >= len || memchr(p, '/', n))
		return -EINVAL;
	memcpy(host, p, n);
	host[n] = 0;
	return 0;
}

static int url_port(const char **p, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (**p != ':')
		return 0;
	errno = 0;
	v = strtoul(*p + 1, &end, 10);
	if (errno || end == *p + 1 || v == 0 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	*p = end;
	return 0;
}

static const char *url_scheme(const char *url, int net)
{
	static const char *const schemes[] = { "net://", "net6://", "tcp://", "tcp6://" };

	for (int i = 0; i < 4; i++) {
		size_t n = strlen(schemes[i]);

		if ((net ? i < 2 : 1) && !strncmp(url, schemes[i], n))
			return url + n;
	}
	return NULL;
}

int rly_url_parse(const char *url, struct rly_url *u)
{
	const char *p = url_scheme(url, 1);

	u->ctrl = RLY_CTRL_PORT;
	u->data = RLY_DATA_PORT;
	if (!p || url_host(p, u->host, sizeof(u->host), &p) < 0 || url_port(&p, &u->ctrl) < 0 ||
	    url_port(&p, &u->data) < 0 || (*p && strcmp(p, "/")))
		return -EINVAL;
	return 0;
}

int rly_url_one(const char *url, char *host, size_t len, uint16_t *port)
{
	const char *p = url_scheme(url, 0);

	*port = 0;
	if (!p || url_host(p, host, len, &p) < 0 || url_port(&p, port) < 0 || !*port ||
	    (*p && strcmp(p, "/")))
		return -EINVAL;
	return 0;
}

static int deadline_left(uint64_t deadline)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	return now >= deadline ? 0 : (int)((deadline - now) / 1000000u) + 1;
}

static int wait_fd(int fd, short ev, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int n;

	do {
		n = poll(&p, 1, deadline_left(deadline));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

int rly_connect(const char *host, uint16_t port, int timeout_ms)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_ms * 1000000u;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char serv[8];
	int fd = -1, ret = -ECONNREFUSED, one = 1;

	snprintf(serv, sizeof(serv), "%u", port);
	if (getaddrinfo(host, serv, &hints, &res) != 0)
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		socklen_t sl = sizeof(ret);
		int err = 0;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			err = errno;
		} else if ((ret = wait_fd(fd, POLLOUT, deadline)) < 0) {
			err = -ret;
		} else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0) {
			err = errno;
		}
		if (!err)
			break;
		ret = -err;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return ret;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Send @len bytes, then receive exactly @rlen, all before the deadline. */
static int exchange(int fd, const uint8_t *msg, size_t len, uint8_t *reply, size_t rlen,
		    int timeout_ms)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_ms * 1000000u;
	size_t done = 0;
	int ret;

	while (done < len) {
		ssize_t n = send(fd, msg + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n < 0 && errno == EAGAIN && (ret = wait_fd(fd, POLLOUT, deadline)) < 0)
			return ret;
		if (n > 0)
			done += (size_t)n;
	}
	for (done = 0; done < rlen;) {
		ssize_t n = recv(fd, reply + done, rlen - done, MSG_DONTWAIT);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n < 0 && errno == EAGAIN && (ret = wait_fd(fd, POLLIN, deadline)) < 0)
			return ret;
		if (n > 0)
			done += (size_t)n;
	}
	return 0;
}

int rly_handshake(int fd, int timeout_ms)
{
	uint8_t m[RLY_HDR + 8], r[RLY_VERSION_REPLY];
	int ret;

	rly_hdr(m, RLY_VERSION, 8);
	rly_put32(m + RLY_HDR, RLY_MAJOR);
	rly_put32(m + RLY_HDR + 4, RLY_MINOR);
	ret = exchange(fd, m, sizeof(m), r, sizeof(r), timeout_ms);
	if (ret < 0)
		return ret;
	/* the relay speaks the lower of the two minors; ours is 2.10's */
	return rly_get32(r) == RLY_MAJOR ? 0 : -EPROTONOSUPPORT;
}

int rly_create_session(int fd, const char *name, const char *hostname, uint32_t live_us,
		       uint64_t *id, int timeout_ms)
{
	uint8_t m[RLY_HDR + RLY_CREATE_BODY], r[RLY_SESSION_REPLY];
	int ret;

	if (strlen(name) >= RLY_SESSION_NAME || strlen(hostname) >= RLY_HOST_NAME)
		return -ENAMETOOLONG;
	memset(m, 0, sizeof(m));
	rly_hdr(m, RLY_CREATE_SESSION, RLY_CREATE_BODY);
	memcpy(m + RLY_HDR, name, strlen(name));
	memcpy(m + RLY_HDR + RLY_SESSION_NAME, hostname, strlen(hostname));
	rly_put32(m + RLY_HDR + RLY_SESSION_NAME + RLY_HOST_NAME, live_us);
	ret = exchange(fd, m, sizeof(m), r, sizeof(r), timeout_ms);
	if (ret < 0)
		return ret;
	if (rly_get32(r + 8) != RLY_OK)
		return -EREMOTEIO;
	*id = rly_get64(r);
	return 0;
}
