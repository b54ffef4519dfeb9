// SPDX-License-Identifier: MIT
/*
 * net.c - streaming a session's traces to lttng-relayd.
 *
 * The session daemon connects to the relay, creates the relay session and
 * hands the two sockets over (MSG_C_RELAY_ADD). From then on everything
 * here is non-blocking, so that neither a traced program nor another
 * session ever waits for the network:
 *
 * - Each trace becomes a relay path BASE/PROC-PID with a metadata stream
 *   (the metadata text is kept in a memfd, written by the same code as a
 *   local trace's, and sent as it grows); each buffer slot a data stream,
 *   announced at its first packet (ADD_STREAM; its handle comes back in
 *   the reply). Until the handle is back, the stream's packets stay in its
 *   ring buffer.
 * - A packet goes on the data socket (32-byte header, then the packet as a
 *   local file would hold it), then its index entry on the control socket.
 *   Bytes the kernel does not take at once wait in a queue per socket;
 *   while the queues hold more than NET_QMAX, packets stay in the ring
 *   buffers, which then discard new events as they would on a slow disk:
 *   the queues are bounded and every loss is counted in the trace.
 * - Replies come back in the order of the commands: a ring of awaited
 *   replies (struct net_wait) says what each is. A stream freed while its
 *   reply is out is forgotten (its entry's object cleared).
 * - Every NET_CONFIRM_NS, a stream with unconfirmed packets asks the relay
 *   (DATA_PENDING) whether its data and index up to the last packet sent
 *   are stored; a "no longer pending" answer confirms the events sent
 *   before the question (conf_ev).
 * - Live sessions (what lttng-relayd's viewer side and babeltrace2 need):
 *   every live period the channel flush (set to the live period) closes
 *   open packets. A stream with nothing committed left in its buffer sends
 *   an empty index (a beacon) with the time of the previous live tick: a
 *   promise that nothing of it before then is still to come, which lets
 *   viewers show the other streams up to there; a packet sent after a
 *   beacon never begins before it. A stream is published to viewers
 *   (STREAMS_SENT) right after ADD_STREAM. A stream whose buffer or trace
 *   goes away is not closed at once: on close the relay drops the stream
 *   for every viewer, those that have not read its last packets (or not
 *   seen it yet) too. It is retired instead: it stays open, sending
 *   beacons, for NET_LINGER_NS (and NET_LINGER_PERIODS periods at least),
 *   then is closed; at most NET_RETIRED_MAX are, the oldest closed first.
 * - When the relay goes away (a socket error or end, a refused command,
 *   or nothing accepted for NET_STALL_NS while the consumer must wait),
 *   streaming stops for good: err and why are set, the queues dropped,
 *   each stream's events sent but not confirmed counted as unconfirmed,
 *   and every later packet counted as lost (as a write error, with the
 *   relay's address), so that
 *     emitted == sent (confirmed + unconfirmed) + lost + discarded.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "clock.h"
#include "log.h"
#include "net.h"
#include "relay.h"
#include "seg.h"
#include "trace.h"
#include "tsc.h"
#include "util.h"

#define NET_QMAX		(4u << 20)	/* queued bytes before packets wait */
#define NET_WAITS		16384u		/* replies awaited at most */
#define NET_CONFIRM_NS		100000000u
#define NET_STALL_NS		1000000000u
#define NET_SETTLE_NS		5000000000ull
#define NET_ASK_NS		10000000u	/* settling: confirmations asked again */
#define NET_LINGER_NS		10000000000ull	/* live: a retired stream stays open... */
#define NET_LINGER_PERIODS	10u		/* ... and at least this many periods */
#define NET_RETIRED_MAX		4096u		/* live: retired streams open at most */

enum wait_kind { W_GENERIC, W_STREAM, W_META, W_PENDING };

struct net_wait {
	enum wait_kind kind;
	void *obj;			/* c_stream (W_STREAM, W_PENDING), c_trace (W_META) */
	uint64_t events;		/* W_PENDING: sent_ev when asked */
};

static struct c_relay *net_relays;
static int net_epfd = -1;
unsigned long net_deferred;

void net_init(int epfd)
{
	net_epfd = epfd;
}

struct c_relay *net_find(uint64_t id)
{
	for (struct c_relay *r = net_relays; r; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static size_t queued(const struct net_queue *q)
{
	return q->len - q->head;
}

/* Watch for room on @r's sockets only while something waits to be sent. */
static void watch(struct c_relay *r)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (r->err)
		return;
	ev.data.u64 = NET_KEY | r->id << 1;
	if (queued(&r->cq))
		ev.events |= EPOLLOUT;
	epoll_ctl(net_epfd, EPOLL_CTL_MOD, r->cfd, &ev);
	ev.events = EPOLLIN | (queued(&r->dq) ? EPOLLOUT : 0);
	ev.data.u64 = NET_KEY | r->id << 1 | 1;
	epoll_ctl(net_epfd, EPOLL_CTL_MOD, r->dfd, &ev);
}

/* Streaming to @r stops: say why once, count what was not confirmed. */
static void net_break(struct c_relay *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void net_break(struct c_relay *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return;
	r->err = err ? err : EPIPE;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	log_err("%s: streaming stopped: %s", r->url, r->why);
	epoll_ctl(net_epfd, EPOLL_CTL_DEL, r->cfd, NULL);
	epoll_ctl(net_epfd, EPOLL_CTL_DEL, r->dfd, NULL);
	shutdown(r->cfd, SHUT_RDWR);
	shutdown(r->dfd, SHUT_RDWR);
	r->cq.head = r->cq.len = 0;
	r->dq.head = r->dq.len = 0;
	r->wlen = 0;
}

/* Send what the kernel takes now; -1 when the relay went away. */
static int pump(struct c_relay *r, int fd, struct net_queue *q)
{
	while (queued(q)) {
		ssize_t n = send(fd, q->buf + q->head, queued(q), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			net_break(r, errno, "%s", strerror(errno));
			return -1;
		}
		q->head += (size_t)n;
	}
	if (q->head == q->len)
		q->head = q->len = 0;
	return 0;
}

static int enqueue(struct c_relay *r, struct net_queue *q, const void *a, size_t al,
		   const void *b, size_t bl)
{
	size_t need = queued(q) + al + bl;

	if (q->head && q->len + al + bl > q->cap) {	/* compact */
		memmove(q->buf, q->buf + q->head, queued(q));
		q->len -= q->head;
		q->head = 0;
	}
	if (q->len + al + bl > q->cap) {
		size_t cap = q->cap ? q->cap : 65536;
		char *nb;

		while (cap < need)
			cap *= 2;
		nb = realloc(q->buf, cap);
		if (!nb)
			return -ENOMEM;
		q->buf = nb;
		q->cap = cap;
	}
	memcpy(q->buf + q->len, a, al);
	if (bl)
		memcpy(q->buf + q->len + al, b, bl);
	q->len += al + bl;
	return 0;
}

/* Queue a control message whose reply is of @kind about @obj. */
static int command(struct c_relay *r, const void *msg, size_t len, const void *more,
		   size_t mlen, enum wait_kind kind, void *obj, uint64_t events, int reply)
{
	int ret;

	if (r->err)
		return -r->err;
	if (reply && r->wlen == NET_WAITS)
		return -EAGAIN;
	ret = enqueue(r, &r->cq, msg, len, more, mlen);
	if (ret < 0) {
		net_break(r, -ret, "out of memory");
		return ret;
	}
	if (reply) {
		struct net_wait *w = &r->waits[(r->whead + r->wlen++) % NET_WAITS];

		w->kind = kind;
		w->obj = obj;
		w->events = events;
	}
	pump(r, r->cfd, &r->cq);
	watch(r);
	return r->err ? -r->err : 0;
}

static void close_handle(struct c_relay *r, uint64_t handle, uint64_t last_seq)
{
	uint8_t m[RLY_HDR + RLY_PAIR_BODY];

	rly_pair(m, RLY_CLOSE_STREAM, handle, last_seq);
	command(r, m, sizeof(m), NULL, 0, W_GENERIC, NULL, 0, 1);
}

/* An empty index for @handle: nothing in it until @ts, for live viewers. */
static void send_beacon(struct c_relay *r, uint64_t handle, uint64_t ts, uint32_t stream_id)
{
	uint8_t m[RLY_HDR + RLY_INDEX_BODY];
	struct rly_index ix = {
		.handle = handle,
		.ts_end = ts,
		.stream_id = stream_id,
	};

	rly_index(m, &ix);
	command(r, m, sizeof(m), NULL, 0, W_GENERIC, NULL, 0, 1);
}

/* Close the oldest @n retired streams of @r (0: all). */
static void retired_close(struct c_relay *r, uint32_t n)
{
	if (!n || n > r->nret)
		n = r->nret;
	for (uint32_t i = 0; i < n; i++)
		close_handle(r, r->ret[i].handle, r->ret[i].last_seq);
	r->nret -= n;
	memmove(r->ret, r->ret + n, r->nret * sizeof(*r->ret));
}

/*
 * A live stream whose buffer or trace goes away: closing it now would end
 * it for every viewer at once, those that have not read its last packets
 * (or not seen the stream yet) too, so it stays open, beaconing, until
 * NET_LINGER_NS (NET_LINGER_PERIODS live periods at least) have passed.
 * Not live, or no room: closed now.
 */
static void retire(struct c_relay *r, uint64_t handle, uint64_t last_seq, uint64_t ts_sent,
		   uint32_t clock, uint32_t stream_id)
{
	uint64_t linger = (uint64_t)r->live_us * 1000u * NET_LINGER_PERIODS;
	struct net_retired *x;

	if (!r->live_us) {
		close_handle(r, handle, last_seq);
		return;
	}
	if (r->nret == NET_RETIRED_MAX)
		retired_close(r, 1);
	if (r->nret == r->cret) {
		uint32_t cap = r->cret ? r->cret * 2 : 64;
		struct net_retired *nr = realloc(r->ret, cap * sizeof(*nr));

		if (!nr) {
			close_handle(r, handle, last_seq);
			return;
		}
		r->ret = nr;
		r->cret = cap;
	}
	x = &r->ret[r->nret++];
	x->handle = handle;
	x->last_seq = last_seq;
	x->ts_sent = ts_sent;
	x->until = now_ns(CLOCK_MONOTONIC) + (linger > NET_LINGER_NS ? linger : NET_LINGER_NS);
	x->clock = clock;
	x->stream_id = stream_id;
}

int net_add(const struct msg_c_relay *m, const int *fds)
{
	struct c_relay *r;
	struct epoll_event ev = { .events = EPOLLIN };

	if (net_find(m->relay_id) || !m->relay_id || !memchr(m->url, 0, sizeof(m->url)) ||
	    !memchr(m->base, 0, sizeof(m->base)) || !m->base[0] || m->base[0] == '/' ||
	    strstr(m->base, ".."))
		goto bad;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto bad;
	r->waits = calloc(NET_WAITS, sizeof(*r->waits));
	if (!r->waits) {
		free(r);
		goto bad;
	}
	r->id = m->relay_id;
	r->cfd = fds[0];
	r->dfd = fds[1];
	r->live_us = m->live_us;
	memcpy(r->url, m->url, sizeof(r->url));
	memcpy(r->base, m->base, sizeof(r->base));
	fcntl(r->cfd, F_SETFL, fcntl(r->cfd, F_GETFL) | O_NONBLOCK);
	fcntl(r->dfd, F_SETFL, fcntl(r->dfd, F_GETFL) | O_NONBLOCK);
	ev.data.u64 = NET_KEY | r->id << 1;
	epoll_ctl(net_epfd, EPOLL_CTL_ADD, r->cfd, &ev);
	ev.data.u64 = NET_KEY | r->id << 1 | 1;
	epoll_ctl(net_epfd, EPOLL_CTL_ADD, r->dfd, &ev);
	r->next = net_relays;
	net_relays = r;
	log_info("streaming to %s under %s%s", r->url, r->base, r->live_us ? ", live" : "");
	return 0;
bad:
	close(fds[0]);
	close(fds[1]);
	return -EINVAL;
}

void net_del(uint64_t id)
{
	for (struct c_relay **pp = &net_relays; *pp; pp = &(*pp)->next) {
		struct c_relay *r = *pp;

		if (r->id != id)
			continue;
		if (!r->err)
			retired_close(r, 0);
		net_settle(r, 0);
		*pp = r->next;
		if (!r->err) {
			epoll_ctl(net_epfd, EPOLL_CTL_DEL, r->cfd, NULL);
			epoll_ctl(net_epfd, EPOLL_CTL_DEL, r->dfd, NULL);
		}
		close(r->cfd);
		close(r->dfd);
		free(r->cq.buf);
		free(r->dq.buf);
		free(r->waits);
		free(r->ret);
		free(r);
		return;
	}
}

int net_check(uint64_t id)
{
	struct c_relay *r = net_find(id);

	return !r ? -ENOENT : r->err ? -r->err : 0;
}

/* Clear @obj from the replies awaited: it is being freed. */
static void forget(struct c_relay *r, const void *obj)
{
	for (uint32_t i = 0; i < r->wlen; i++) {
		struct net_wait *w = &r->waits[(r->whead + i) % NET_WAITS];

		if (w->obj == obj)
			w->obj = NULL;
	}
}

/* One whole reply to the oldest command awaiting one. */
static void reply(struct c_relay *r, const uint8_t *b)
{
	struct net_wait w = r->waits[r->whead];
	uint32_t status;

	r->whead = (r->whead + 1) % NET_WAITS;
	r->wlen--;
	switch (w.kind) {
	case W_STREAM:
	case W_META: {
		uint64_t handle = rly_get64(b);
		enum net_state st = rly_get32(b + 8) == RLY_OK ? NET_READY : NET_FAILED;

		if (st == NET_FAILED)
			log_err("%s: the relay refused a stream", r->url);
		if (!w.obj) {
			if (st == NET_READY)
				close_handle(r, handle, UINT64_MAX);
		} else if (w.kind == W_STREAM) {
			((struct c_stream *)w.obj)->net.state = st;
			((struct c_stream *)w.obj)->net.handle = handle;
		} else {
			((struct c_trace *)w.obj)->net_meta.state = st;
			((struct c_trace *)w.obj)->net_meta.handle = handle;
		}
		return;
	}
	case W_PENDING: {
		struct c_stream *st = w.obj;

		status = rly_get32(b);
		if (st) {
			st->net.asking = 0;
			if (status == 0 && w.events > st->net.conf_ev)
				st->net.conf_ev = w.events;
		}
		return;
	}
	case W_GENERIC:
		status = rly_get32(b);
		if (status != RLY_OK)
			log_warn("%s: the relay refused a command (status %u)", r->url, status);
		return;
	}
}

static uint32_t reply_size(enum wait_kind k)
{
	return k == W_STREAM || k == W_META ? RLY_STREAM_REPLY : RLY_GENERIC_REPLY;
}

/* Read the replies that arrived; the relay never speaks unasked. */
static void replies(struct c_relay *r)
{
	while (!r->err) {
		uint32_t need;
		ssize_t n;

		if (!r->wlen) {
			char c;

			n = recv(r->cfd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				net_break(r, n ? errno : ECONNRESET, "the relay closed the connection");
			else if (n > 0)
				net_break(r, EPROTO, "the relay sent an unexpected reply");
			return;
		}
		need = reply_size(r->waits[r->whead].kind);
		n = recv(r->cfd, r->rbuf + r->rlen, need - r->rlen, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			net_break(r, n ? errno : ECONNRESET, "%s",
				  n ? strerror(errno) : "the relay closed the connection");
			return;
		}
		r->rlen += (uint32_t)n;
		if (r->rlen == need) {
			r->rlen = 0;
			reply(r, r->rbuf);
		}
	}
}

void net_event(uint64_t key, uint32_t events)
{
	struct c_relay *r = net_find((key & ~NET_KEY) >> 1);
	int data = key & 1;

	if (!r || r->err)
		return;
	if (data && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		char c;
		ssize_t n = recv(r->dfd, &c, 1, MSG_DONTWAIT);

		if (n >= 0 || (errno != EAGAIN && errno != EINTR)) {
			net_break(r, n < 0 ? errno : ECONNRESET, "the relay closed the data connection");
			return;
		}
	}
	if (!data && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		replies(r);
	if (!r->err)
		pump(r, r->cfd, &r->cq);
	if (!r->err)
		pump(r, r->dfd, &r->dq);
	watch(r);
}

/* Ask @st's relay to confirm its packets sent so far. */
static int confirm(struct c_relay *r, struct c_seg *s, struct c_stream *st)
{
	uint8_t m[RLY_HDR + RLY_PAIR_BODY];

	if (st->net.state != NET_READY || st->net.asking || st->net.conf_ev == st->net.sent_ev ||
	    !st->net.net_seq)
		return 0;
	rly_pair(m, RLY_DATA_PENDING, st->net.handle, st->net.net_seq - 1);
	if (command(r, m, sizeof(m), NULL, 0, W_PENDING, st, st->net.sent_ev, 1) == 0)
		st->net.asking = 1;
	return 0;
}

/*
 * Has @st committed events not written out yet? Read from the slot the
 * writer shares (a hint only: whatever it says, nothing is indexed by it).
 */
static int pending(const struct c_stream *st)
{
	const struct shm_slot *h = st->rb.hdr;
	const struct shm_sbmeta *m;

	if (st->broken)
		return 0;	/* never read again */
	if (__atomic_load_n(&h->closed, __ATOMIC_ACQUIRE) != st->rd.rseq)
		return 1;
	m = &h->sb[st->rd.rseq % st->rb.num_subbuf];
	if (__atomic_load_n(&m->pseq, __ATOMIC_ACQUIRE) != st->rd.rseq)
		return 0;	/* no packet open past the last one read */
	return (uint32_t)__atomic_load_n(&m->commit.word, __ATOMIC_ACQUIRE) != st->rd.flushed;
}

/*
 * A beacon (an empty index) for @st: "no event before TS but those sent",
 * which lets viewers show the other streams' events up to TS. It is a
 * promise, so TS is the clock at the previous live tick (a writer that
 * read the clock before then had a whole period to commit), and only
 * when nothing committed waits in the buffer; a packet sent after it
 * never begins before it (net_packet()).
 */
static int beacon(struct c_relay *r, struct c_seg *s, struct c_stream *st)
{
	uint64_t ts = r->promise[s->clock == CLOCK_KIND_TSC];

	if (st->net.state != NET_READY || !st->net.net_seq || ts <= st->net.ts_sent || pending(st))
		return 0;
	send_beacon(r, st->net.handle, ts, s->context);
	st->net.ts_sent = ts;
	return 0;
}

/* Every stream streamed to @r, with @fn; the OR of what it returned. */
static int each_stream(struct c_relay *r, int (*fn)(struct c_relay *, struct c_seg *,
						    struct c_stream *))
{
	struct cds_lfht_iter it;
	struct c_app *a;
	int any = 0;

	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s; s = s->next)
			for (uint32_t i = 0; s->chan->relay == r && i < s->nslots; i++)
				any |= fn(r, s, &s->streams[i]);
	return any;
}

static int unconfirmed_one(struct c_relay *r, struct c_seg *s, struct c_stream *st)
{
	return st->net.conf_ev != st->net.sent_ev;
}

static void relay_tick(struct c_relay *r, uint64_t now)
{
	if (r->err)
		return;
	if (now >= r->next_confirm) {
		r->next_confirm = now + NET_CONFIRM_NS;
		each_stream(r, confirm);
	}
	if (r->live_us && now >= r->next_live) {
		uint32_t gone = 0;

		r->next_live = now + (uint64_t)r->live_us * 1000u;
		for (int k = 0; k < 2; k++) {
			r->promise[k] = r->stamp[k];
			r->stamp[k] = clock_now(k == 1 ? CLOCK_KIND_TSC : CLOCK_KIND_MONOTONIC);
		}
		each_stream(r, beacon);
		/* retired streams: closed when due, else a beacon (nothing more comes) */
		while (gone < r->nret && now >= r->ret[gone].until)
			gone++;
		if (gone)
			retired_close(r, gone);
		for (uint32_t i = 0; i < r->nret; i++) {
			struct net_retired *x = &r->ret[i];
			uint64_t ts = r->stamp[x->clock == CLOCK_KIND_TSC];

			if (x->stream_id != UINT32_MAX && ts > x->ts_sent) {
				send_beacon(r, x->handle, ts, x->stream_id);
				x->ts_sent = ts;
			}
		}
	}
	pump(r, r->cfd, &r->cq);
	if (!r->err)
		pump(r, r->dfd, &r->dq);
	watch(r);
}

void net_tick(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (struct c_relay *r = net_relays; r; r = r->next)
		relay_tick(r, now);
}

int net_timeout(int t)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (struct c_relay *r = net_relays; r; r = r->next) {
		uint64_t due = r->live_us ? r->next_live : r->next_confirm;
		int ms;

		/* not live: only while packets are unconfirmed */
		if (r->err || (!r->live_us && !each_stream(r, unconfirmed_one)))
			continue;
		ms = due > now ? (int)((due - now) / 1000000u) + 1 : 0;
		if (ms < t)
			t = ms;
	}
	return t;
}

void net_settle(struct c_relay *r, int confirm_all)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), deadline = now + NET_SETTLE_NS, last = now, asked = 0;
	size_t before = SIZE_MAX;

	while (!r->err) {
		struct pollfd p[2] = {
			{ .fd = r->cfd, .events = POLLIN | (queued(&r->cq) ? POLLOUT : 0) },
			{ .fd = r->dfd, .events = queued(&r->dq) ? POLLOUT : 0 },
		};
		size_t left = queued(&r->cq) + queued(&r->dq) + r->wlen;
		int pending = confirm_all && each_stream(r, unconfirmed_one);

		now = now_ns(CLOCK_MONOTONIC);
		if (!left && !pending)
			return;
		if (left != before) {
			before = left;
			last = now;
		}
		if (left && (now - last >= NET_STALL_NS || now >= deadline)) {
			net_break(r, ETIMEDOUT, "the relay took nothing for %u ms",
				  (unsigned int)((now - last) / 1000000u));
			return;
		}
		if (now >= deadline)
			return;	/* confirmations that do not come: left unconfirmed */
		if (pending && !r->wlen && now - asked >= NET_ASK_NS) {
			asked = now;
			r->next_confirm = 0;
			relay_tick(r, now);	/* ask again: the data was on its way */
			continue;
		}
		if (poll(p, 2, 10) < 0 && errno != EINTR)
			return;
		net_event(NET_KEY | r->id << 1, (uint32_t)(p[0].revents ? EPOLLIN : 0));
	}
}

/* ---- hooks of trace.c and drain.c -------------------------------------- */

int net_trace_start(struct c_trace *t)
{
	struct c_relay *r = t->chan->relay;
	uint8_t m[RLY_HDR + RLY_ADD_STREAM_BODY];
	int ret;

	if (r->err)
		return -r->err;
	ret = rly_add_stream(m, "metadata", t->dir);
	if (ret < 0)
		return ret;
	t->meta_fd = memfd_create("shmtrace-metadata", MFD_CLOEXEC);
	if (t->meta_fd < 0)
		return -errno;
	t->net_meta.state = NET_ADDING;
	t->net_meta_sent = 0;
	ret = command(r, m, sizeof(m), NULL, 0, W_META, t, 0, 1);
	if (ret < 0) {
		close(t->meta_fd);
		t->meta_fd = -1;
		t->net_meta.state = NET_NONE;
	}
	return ret;
}

/* The metadata stream is announced, and every byte of it sent. */
int net_trace_ready(struct c_trace *t)
{
	struct c_relay *r = t->chan->relay;
	static char buf[65536];
	off_t size;

	if (r->err)
		return -r->err;
	if (t->net_meta.state == NET_ADDING) {
		net_deferred++;
		return -EAGAIN;
	}
	if (t->net_meta.state != NET_READY)
		return -EREMOTEIO;
	size = lseek(t->meta_fd, 0, SEEK_END);
	while (size > (off_t)t->net_meta_sent) {
		uint8_t h[RLY_HDR + RLY_META_HDR];
		ssize_t n = pread(t->meta_fd, buf, sizeof(buf), (off_t)t->net_meta_sent);
		int ret;

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		rly_hdr(h, RLY_SEND_METADATA, RLY_META_HDR + (uint64_t)n);
		rly_put64(h + RLY_HDR, t->net_meta.handle);
		rly_put32(h + RLY_HDR + 8, 0);
		ret = command(r, h, sizeof(h), buf, (size_t)n, W_GENERIC, NULL, 0, 0);
		if (ret < 0)
			return ret;
		t->net_meta_sent += (uint64_t)n;
	}
	return 0;
}

void net_trace_close(struct c_trace *t)
{
	struct c_relay *r = t->chan->relay;

	forget(r, t);
	if (t->net_meta.state == NET_READY && !r->err)
		retire(r, t->net_meta.handle, UINT64_MAX, 0, 0, UINT32_MAX);
	t->net_meta.state = NET_NONE;
}

int net_stream_open(struct c_seg *s, struct c_stream *st)
{
	struct c_relay *r = s->chan->relay;
	uint8_t m[RLY_HDR + RLY_ADD_STREAM_BODY];
	char name[PROTO_NAME_MAX + 16];
	int ret;

	if (r->err)
		return -r->err;
	switch (st->net.state) {
	case NET_READY:
		return 0;
	case NET_FAILED:
		return -EREMOTEIO;
	case NET_ADDING:
		net_deferred++;
		return -EAGAIN;
	case NET_NONE:
		break;
	}
	snprintf(name, sizeof(name), "%s_%u", s->chan->name, st->number);
	ret = rly_add_stream(m, name, s->trace->dir);
	if (ret < 0)
		return ret;
	ret = command(r, m, sizeof(m), NULL, 0, W_STREAM, st, 0, 1);
	if (ret < 0)
		return ret;
	st->net.state = NET_ADDING;
	/* published to viewers at once, before any later index of the session */
	rly_hdr(m, RLY_STREAMS_SENT, 0);
	command(r, m, RLY_HDR, NULL, 0, W_GENERIC, NULL, 0, 1);
	net_deferred++;
	return -EAGAIN;
}

int net_packet(struct c_seg *s, struct c_stream *st, const uint8_t *hdr,
	       const struct ctf_packet *pk, const void *data, size_t len, uint32_t nev)
{
	struct c_relay *r = s->chan->relay;
	uint8_t dh[RLY_DATA_HDR], ih[RLY_HDR + RLY_INDEX_BODY], moved[CTF_PACKET_HDR];
	struct ctf_packet later = *pk;
	const struct ctf_packet *p = pk;
	struct rly_index ix;
	int ret;

	if (r->err)
		return -r->err;
	if (pk->ts_begin < st->net.ts_sent) {
		/* after a beacon: its events come later, so may its beginning */
		later.ts_begin = st->net.ts_sent;
		if (later.ts_end < later.ts_begin)
			later.ts_end = later.ts_begin;
		ctf_packet_header(moved, &s->trace->info, &later);
		hdr = moved;
		p = &later;
	}
	ix = (struct rly_index){
		.handle = st->net.handle,
		.net_seq = st->net.net_seq,
		.packet_bytes = p->content_bytes,
		.content_bytes = p->content_bytes,
		.ts_begin = p->ts_begin,
		.ts_end = p->ts_end,
		.discarded = p->discarded,
		.stream_id = p->stream_id,
		.instance_id = p->stream_instance_id,
		.packet_seq = p->seq,
	};
	rly_data_hdr(dh, st->net.handle, st->net.net_seq, (uint32_t)p->content_bytes);
	if (enqueue(r, &r->dq, dh, sizeof(dh), hdr, CTF_PACKET_HDR) < 0 ||
	    (len && enqueue(r, &r->dq, data, len, NULL, 0) < 0)) {
		net_break(r, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	rly_index(ih, &ix);
	ret = command(r, ih, sizeof(ih), NULL, 0, W_GENERIC, NULL, 0, 1);
	if (ret < 0)
		return ret;
	pump(r, r->dfd, &r->dq);
	watch(r);
	st->net.net_seq++;
	st->net.sent_ev += nev;
	st->net.ts_sent = p->ts_end;
	return r->err ? -r->err : 0;
}

int net_room(const struct c_seg *s)
{
	const struct c_relay *r = s->chan->relay;

	return r->err || (queued(&r->dq) < NET_QMAX && r->wlen + 4 < NET_WAITS);
}

void net_stream_close(struct c_seg *s, struct c_stream *st)
{
	struct c_relay *r = s->chan->relay;

	forget(r, st);
	if (st->net.state != NET_READY || r->err)
		return;
	if (st->net.net_seq)
		retire(r, st->net.handle, st->net.net_seq - 1, st->net.ts_sent, s->clock, s->context);
	else
		close_handle(r, st->net.handle, UINT64_MAX);	/* nothing to show */
}

uint64_t net_unconfirmed(const struct c_seg *s, const struct c_stream *st)
{
	const struct c_relay *r = s->chan->relay;

	return r && r->err ? st->net.sent_ev - st->net.conf_ev : 0;
}
