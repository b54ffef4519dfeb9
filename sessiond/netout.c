// SPDX-License-Identifier: MIT
/*
 * netout.c - sessions streamed to lttng-relayd.
 *
 * At `create --set-url` (or --ctrl-url/--data-url, or --live) the session
 * daemon connects to the relay's control and data ports, checks the
 * protocol version, creates the relay session (named after the session,
 * with this machine's host name and the live timer), and hands both
 * sockets to the consumer, which does all the rest without blocking
 * (consumerd/net.c). Each step is bounded by NETOUT_TIMEOUT_MS, so a relay
 * that is not there is an error of `create` at once, and an unreachable
 * host delays the daemon by that much at most.
 *
 * The consumer stops streaming for good when the relay goes away; `start`
 * then fails, and status and stop say why and what was lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sessiond.h"
#include "log.h"
#include "relay.h"

#define NETOUT_TIMEOUT_MS	3000
#define NETOUT_LIVE_DEFAULT	1000000u	/* us, as lttng */

static uint64_t netout_next_id;

/*
 * The relay addresses from @set (net://HOST[:C[:D]]), @ctrl and @data
 * (tcp://HOST:PORT), @live ("" not live, "-" default, or microseconds).
 */
static int netout_parse(int fd, const char *set, const char *ctrl, const char *data,
			const char *live, struct rly_url *c, struct rly_url *d, uint32_t *live_us)
{
	char *end;
	unsigned long v;

	*live_us = 0;
	if (live[0]) {
		*live_us = NETOUT_LIVE_DEFAULT;
		if (strcmp(live, "-")) {
			errno = 0;
			v = strtoul(live, &end, 10);
			if (errno || *end || v == 0 || v > 3600000000ul)
				return reply_end(fd, -EINVAL, "--live: a period in microseconds, "
						 "1 to 3600000000 (default 1000000)");
			*live_us = (uint32_t)v;
		}
	}
	if (!set[0] && !ctrl[0] && !data[0])
		set = "net://127.0.0.1";	/* --live alone, as lttng */
	if (set[0] && rly_url_parse(set, c) < 0)
		return reply_end(fd, -EINVAL, "bad relay address '%s': net://HOST[:CTRL_PORT"
				 "[:DATA_PORT]]", set);
	*d = *c;
	if ((ctrl[0] || data[0]) && !set[0] && !(ctrl[0] && data[0]))
		return reply_end(fd, -EINVAL, "--ctrl-url and --data-url go together");
	if (ctrl[0] && rly_url_one(ctrl, c->host, sizeof(c->host), &c->ctrl) < 0)
		return reply_end(fd, -EINVAL, "bad control address '%s': tcp://HOST:PORT", ctrl);
	if (data[0] && rly_url_one(data, d->host, sizeof(d->host), &d->ctrl) < 0)
		return reply_end(fd, -EINVAL, "bad data address '%s': tcp://HOST:PORT", data);
	if (data[0])
		d->data = d->ctrl;
	return 0;
}

int netout_create(int fd, struct session *s, const char *set, const char *ctrl,
		  const char *data, const char *live, const char *stamp)
{
	struct rly_url c, d;
	struct msg_c_relay m;
	char host[RLY_HOST_NAME];
	uint64_t rid;
	int fds[2] = { -1, -1 }, ret;
	const char *step;

	ret = netout_parse(fd, set, ctrl, data, live, &c, &d, &s->live_us);
	if (ret < 0)
		return ret;
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0] || host[0] == '.')
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = 0;
	for (char *p = host; *p; p++)
		if (*p == '/')
			*p = '_';
	memset(&m, 0, sizeof(m));
	snprintf(m.url, sizeof(m.url), "net://%.100s:%u:%u", c.host, c.ctrl, d.data);
	if (strcmp(c.host, d.host))
		snprintf(m.url, sizeof(m.url), "tcp://%.100s:%u+tcp://%.100s:%u", c.host, c.ctrl,
			 d.host, d.data);
	snprintf(m.base, sizeof(m.base), "%s/%s-%s", host, s->name, stamp);
	step = "cannot connect to the relay's control port";
	fds[0] = ret = rly_connect(c.host, c.ctrl, NETOUT_TIMEOUT_MS);
	if (ret >= 0) {
		step = "cannot connect to the relay's data port";
		fds[1] = ret = rly_connect(d.host, d.data, NETOUT_TIMEOUT_MS);
	}
	if (ret >= 0) {
		step = "the relay does not speak its protocol version 2";
		ret = rly_handshake(fds[0], NETOUT_TIMEOUT_MS);
	}
	if (ret >= 0) {
		step = "the relay refused the session";
		ret = rly_create_session(fds[0], s->name, host, s->live_us, &rid, NETOUT_TIMEOUT_MS);
	}
	if (ret < 0) {
		reply_end(fd, ret, "%s: %s: %s (is lttng-relayd running there?)", m.url, step,
			  strerror(-ret));
		goto close;
	}
	m.relay_id = ++netout_next_id;
	m.live_us = s->live_us;
	ret = consumer_call(MSG_C_RELAY_ADD, &m, sizeof(m), fds, 2, NULL, 0);
	if (ret < 0) {
		reply_end(fd, ret, "the consumer daemon cannot stream: %s", strerror(-ret));
		goto close;
	}
	s->relay_id = m.relay_id;
	snprintf(s->output, sizeof(s->output), "%s (on the relay: %s)", m.url, m.base);
	log_info("session %s streams to %s, relay session %" PRIu64 "%s", s->name, m.url, rid,
		 s->live_us ? ", live" : "");
	ret = 0;
close:
	if (fds[1] >= 0)
		close(fds[1]);
	if (fds[0] >= 0)
		close(fds[0]);
	return ret;
}

int netout_check(int fd, const struct session *s)
{
	struct msg_c_id m = { .id = s->relay_id };
	int ret;

	if (!s->relay_id)
		return 0;
	ret = consumer_call(MSG_C_RELAY_CHECK, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret < 0)
		return reply_end(fd, ret, "session %s no longer streams to the relay (%s); "
				 "see status, and create a new session", s->name, strerror(-ret));
	return 0;
}

void netout_close(struct session *s)
{
	struct msg_c_id m = { .id = s->relay_id };

	if (s->relay_id)
		consumer_call(MSG_C_RELAY_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	s->relay_id = 0;
}
