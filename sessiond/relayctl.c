// SPDX-License-Identifier: MIT
/*
 * relayctl.c - sessions streamed to lttng-relayd, the control side: the
 * session daemon makes the relay session; the consumer sends the data
 * (consumerd/relaydata.c).
 *
 * At `create --set-url` (or --ctrl-url/--data-url, or --live) the session
 * daemon connects to the relay's control and data ports, checks the
 * protocol version, creates the relay session (named after the session,
 * with this machine's host name and the live timer), and hands both
 * sockets to the consumer, which does all the rest without blocking.
 * Each step is bounded by RELAYCTL_TIMEOUT_MS, so a relay that is not
 * there is an error of `create` at once, and an unreachable host delays
 * the daemon by that much at most.
 *
 * The consumer stops streaming for good when the relay goes away; `start`
 * then fails, and status and stop say why and what was lost. A consumer
 * that restarts has lost the sockets: each streamed session then gets a
 * new relay session (its path ends in -N), or says why it could not.
 *
 * State: the last relay id given (saved with the sessions, state.c); each
 * streamed session's relay is in its struct relayctl. The sockets are the
 * consumer's once handed over: a crash of the session daemon leaves the
 * streaming to the consumer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "relayctl.h"
#include "client.h"
#include "consumer.h"
#include "session.h"
#include "support/log.h"

#define RELAYCTL_TIMEOUT_MS	3000
#define RELAYCTL_LIVE_DEFAULT	1000000u	/* us, as lttng */

static uint64_t relayctl_next_id;

/*
 * The relay addresses of @cr: set_url (net://HOST[:C[:D]]), ctrl_url and
 * data_url (tcp://HOST:PORT), live and its period (0: the default).
 */
static int relayctl_parse(struct reply *r, const struct cmd_create *cr, struct rly_url *c,
			struct rly_url *d, uint32_t *live_us)
{
	const char *set = cr->set_url, *ctrl = cr->ctrl_url, *data = cr->data_url;

	*live_us = 0;
	if (cr->live) {
		*live_us = cr->live_us ? cr->live_us : RELAYCTL_LIVE_DEFAULT;
		if (*live_us > 3600000000u)
			return reply_fail(r, -EINVAL, RE_RANGE, .name = "--live (us)",
					  .n = { *live_us, 1, 3600000000u });
	}
	if (!set[0] && !ctrl[0] && !data[0])
		set = "net://127.0.0.1";	/* --live alone, as lttng */
	if (set[0] && rly_url_parse(set, c) < 0)
		return reply_fail(r, -EINVAL, RE_RELAY_URL, .name = set, .name2 = "relay");
	*d = *c;
	if ((ctrl[0] || data[0]) && !set[0] && !(ctrl[0] && data[0]))
		return reply_fail(r, -EINVAL, RE_URL_PAIR);
	if (ctrl[0] && rly_url_one(ctrl, c->host, sizeof(c->host), &c->ctrl) < 0)
		return reply_fail(r, -EINVAL, RE_RELAY_URL, .name = ctrl, .name2 = "control");
	if (data[0] && rly_url_one(data, d->host, sizeof(d->host), &d->data) < 0)
		return reply_fail(r, -EINVAL, RE_RELAY_URL, .name = data, .name2 = "data");
	return 0;
}

/* The relay's address and the relay session's path of @s's @nth relay session. */
static void relayctl_names(const struct session *s, unsigned int nth, char *url, size_t ulen,
			 char *base, size_t blen)
{
	const struct relayctl *n = s->net;

	snprintf(url, ulen, "net://%.100s:%u:%u", n->c.host, n->c.ctrl, n->d.data);
	if (strcmp(n->c.host, n->d.host))
		snprintf(url, ulen, "tcp://%.100s:%u+tcp://%.100s:%u", n->c.host, n->c.ctrl,
			 n->d.host, n->d.data);
	/* a consumer that restarted streams into a relay session of its own */
	if (nth)
		snprintf(base, blen, "%s/%s-%s-%u", n->host, s->name, n->stamp, nth);
	else
		snprintf(base, blen, "%s/%s-%s", n->host, s->name, n->stamp);
}


/*
 * Connect, create the relay session and hand both sockets to the
 * consumer (as relay s->relay_id). 0, or -errno with @why set.
 */
static int relayctl_open(struct session *s, char *why, size_t len)
{
	struct relayctl *n = s->net;
	struct msg_c_relay m;
	uint64_t rid;
	int fds[2] = { -1, -1 }, ret;
	const char *step;

	memset(&m, 0, sizeof(m));
	relayctl_names(s, n->opened, m.url, sizeof(m.url), m.base, sizeof(m.base));
	step = "cannot connect to the relay's control port";
	fds[0] = ret = rly_connect(n->c.host, n->c.ctrl, RELAYCTL_TIMEOUT_MS);
	if (ret >= 0) {
		step = "cannot connect to the relay's data port";
		fds[1] = ret = rly_connect(n->d.host, n->d.data, RELAYCTL_TIMEOUT_MS);
	}
	if (ret >= 0) {
		step = "the relay does not speak its protocol version 2";
		ret = rly_handshake(fds[0], RELAYCTL_TIMEOUT_MS);
	}
	if (ret >= 0) {
		step = "the relay refused the session";
		ret = rly_create_session(fds[0], s->name, n->host, s->live_us, &rid,
					 RELAYCTL_TIMEOUT_MS);
	}
	if (ret >= 0) {
		step = "the consumer daemon cannot stream";
		m.relay_id = s->relay_id;
		m.live_us = s->live_us;
		ret = consumer_call(MSG_C_RELAY_ADD, &m, sizeof(m), fds, 2, NULL, 0);
	}
	if (ret < 0) {
		snprintf(why, len, "%s: %s: %s", m.url, step, strerror(-ret));
	} else {
		n->opened++;
		snprintf(s->output, sizeof(s->output), "%s (on the relay: %s)", m.url, m.base);
		log_info("session %s streams to %s, relay session %" PRIu64 "%s", s->name, m.url,
			 rid, s->live_us ? ", live" : "");
	}
	if (fds[1] >= 0)
		close(fds[1]);
	if (fds[0] >= 0)
		close(fds[0]);
	return ret;
}

int relayctl_create(struct reply *r, struct session *s, const struct cmd_create *cr,
		  const char *stamp)
{
	struct relayctl *n = calloc(1, sizeof(*n));
	char why[PROTO_PATH_MAX];
	int ret;

	if (!n)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "relay");
	ret = relayctl_parse(r, cr, &n->c, &n->d, &s->live_us);
	if (ret < 0) {
		free(n);
		return ret;
	}
	if (gethostname(n->host, sizeof(n->host) - 1) < 0 || !n->host[0] || n->host[0] == '.')
		snprintf(n->host, sizeof(n->host), "localhost");
	for (char *p = n->host; *p; p++)
		if (*p == '/')
			*p = '_';
	snprintf(n->stamp, sizeof(n->stamp), "%s", stamp);
	s->net = n;
	s->relay_id = ++relayctl_next_id;
	ret = relayctl_open(s, why, sizeof(why));
	if (ret < 0) {
		char url[PROTO_URL_MAX], base[192];

		relayctl_names(s, 0, url, sizeof(url), base, sizeof(base));
		reply_fail(r, ret, RE_RELAY_CONNECT, .name = url, .detail = why);
		free(n);
		s->net = NULL;
		s->relay_id = 0;
	}
	return ret;
}

/*
 * The consumer restarted (its relay connections died with it): each
 * streamed session gets a new relay session, or says why it stopped.
 */
void relayctl_replay(void)
{
	for (struct session *s = ss.list; s; s = s->next) {
		struct relayctl *n = s->net;

		if (!n || n->err)
			continue;
		n->err = relayctl_open(s, n->why, sizeof(n->why));
		if (n->err)
			log_err("session %s: streaming stopped after the consumer restarted: %s",
				s->name, n->why);
	}
}

uint64_t relayctl_last_id(void)
{
	return relayctl_next_id;
}

void relayctl_seen_id(uint64_t id)
{
	if (id > relayctl_next_id)
		relayctl_next_id = id;
}

int relayctl_ok(const struct session *s)
{
	return !s->net || !s->net->err;
}

/* The session's streaming stopped (relayctl_ok() false): its -errno, said in @r. */
int relayctl_fail(struct reply *r, const struct session *s)
{
	return reply_fail(r, s->net->err, RE_STREAMING, .session = s->name, .detail = s->net->why);
}

/* For a session's record: where it streams, and whether that stopped. */
void relayctl_record(const struct session *s, struct rec_session *rs)
{
	const struct relayctl *n = s->net;
	char base[192];

	if (!n)
		return;
	rs->flags |= REC_SESSION_STREAMED;
	/* the relay session made last (a new one per consumer) */
	relayctl_names(s, n->opened ? n->opened - 1 : 0, rs->output, sizeof(rs->output), base,
		     sizeof(base));
	snprintf(rs->relay_path, sizeof(rs->relay_path), "%s", base);
	if (n->err) {
		rs->stream_err = -n->err;
		snprintf(rs->stream_why, sizeof(rs->stream_why), "%.511s", n->why);
	}
}

int relayctl_check(struct reply *r, const struct session *s)
{
	struct msg_c_id m = { .id = s->relay_id };
	int ret;

	if (!s->relay_id)
		return 0;
	if (!relayctl_ok(s))
		return relayctl_fail(r, s);
	ret = consumer_call(MSG_C_RELAY_CHECK, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret < 0)
		return reply_fail(r, ret, RE_STREAM_CHECK, .session = s->name);
	return 0;
}

void relayctl_close(struct session *s)
{
	struct msg_c_id m = { .id = s->relay_id };

	if (s->relay_id)
		consumer_call(MSG_C_RELAY_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	s->relay_id = 0;
	free(s->net);
	s->net = NULL;
}
