// SPDX-License-Identifier: MIT
/*
 * relaydata.c - streaming a session's traces to lttng-relayd, the data
 * side: streams, packets and their indexes, metadata, beacons (the relay
 * session itself is made by the session daemon, sessiond/relayctl.c).
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
 *   the reply), the trace's metadata stream with its first data stream,
 *   and published to viewers (STREAMS_SENT) at once. Until the handles
 *   are back, the stream's packets stay in its ring buffer.
 * - A packet goes on the data socket (32-byte header, then the packet as a
 *   local file would hold it), then its index entry on the control socket.
 *   Bytes the kernel does not take at once wait in a queue per socket;
 *   while the queues hold more than NET_QMAX, packets stay in the ring
 *   buffers, which then discard new events as they would on a slow disk:
 *   the queues are bounded and every loss is counted in the trace.
 * - Replies come back in the order of the commands: a ring of awaited
 *   replies (struct rdata_wait) says what each is. A stream freed while its
 *   reply is out is forgotten (its entry's object cleared).
 * - Every NET_CONFIRM_NS, a stream with unconfirmed packets asks the relay
 *   (DATA_PENDING) whether its data and index up to the last packet sent
 *   are stored; a "no longer pending" answer confirms the events sent
 *   before the question (conf_ev).
 * - Live sessions, for lttng-relayd's viewer side and babeltrace2, which
 *   need: a stream heard of before any event later than its own first
 *   event is shown (else babeltrace2 stops on an event "in the past"), a
 *   trace published with at least one data stream (a trace a viewer gets
 *   with none is dropped, and the streams that come later are never
 *   shown), beacons that are promises, and a stream left open until every
 *   viewer has read it (on CLOSE_STREAM the relay drops it for all of them,
 *   those that have not read its last packets or not seen it yet too). So:
 *   . every live period the channel flush (its interval is the period)
 *     cuts open packets;
 *   . a stream not announced yet is looked at every NET_KICK_NS and
 *     drained (so announced) as soon as it holds an event, and again as
 *     soon as its handle is back (its first packet);
 *   . the index entry of a packet is held back NET_HOLD_NS (the data goes
 *     at once, unseen by viewers until its index), so that a process whose
 *     buffers reached the consumer up to about NET_HOLD_NS late is
 *     announced before viewers can go past its first events;
 *   . every live period, a stream with nothing committed left in its buffer
 *     and nothing held back sends a beacon (an empty index) at the clock
 *     NET_HOLD_NS ago: nothing of it before then is still to come; a
 *     packet sent after a beacon never begins before it. Viewers hear of
 *     new streams only with a packet's index, so in a period when streams
 *     were announced an empty packet (header only, its own packet_seq_num)
 *     goes instead of each beacon;
 *   . a stream whose buffer or trace goes away is retired, not closed: it
 *     stays open, beaconing, for NET_LINGER_NS (NET_LINGER_PERIODS periods
 *     at least), then is closed, the trace's metadata stream last; at most
 *     NET_RETIRED_MAX are, the oldest closed first (once its index entries
 *     are out: the relay refuses those of a closed stream). Everything held back
 *     goes at stop (the relay's word is asked for all of it) and when the
 *     session goes.
 * - All of it runs on the main thread: relay streams are the main
 *   thread's (worker.c), so the live work calls drain_stream() on them
 *   between rounds, and an empty packet takes the stream's next
 *   packet_seq_num as drain.c's packets do.
 * - When the relay goes away (a socket error or end, a refused command or
 *   stream, a DATA_PENDING answered with an error, or nothing accepted
 *   for NET_STALL_NS while the consumer must wait), streaming stops for
 *   good: err and why are set, the queues and held index entries dropped,
 *   each stream's events sent but not confirmed counted as unconfirmed
 *   (those of streams already closed or retired too: retired streams keep
 *   asking DATA_PENDING, and the counts of closed ones are kept by channel
 *   until then, struct rdata_gone), and every later packet counted as lost
 *   (as a write error, with the relay's address), so that
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
#include "drain.h"
#include "support/log.h"
#include "relaydata.h"
#include "support/relay.h"
#include "seg.h"
#include "trace.h"
#include "common/tsc.h"
#include "common/util.h"

#define NET_QMAX		(4u << 20)	/* queued bytes before packets wait */
#define NET_WAITS		16384u		/* replies awaited at most */
#define NET_CONFIRM_NS		100000000u
#define NET_STALL_NS		1000000000u
#define NET_SETTLE_NS		5000000000ull
#define NET_ASK_NS		10000000u	/* settling: confirmations asked again */
#define NET_HOLD_NS		500000000u	/* live: index entries held back */
#define NET_KICK_NS		20000000u	/* live: new streams looked for */
#define NET_LINGER_NS		10000000000ull	/* live: a retired stream stays open... */
#define NET_LINGER_PERIODS	10u		/* ... and at least this many periods */
#define NET_RETIRED_MAX		4096u		/* live: retired streams open at most */

enum wait_kind { W_GENERIC, W_STREAM, W_META, W_PENDING, W_RPENDING };

struct rdata_wait {
	enum wait_kind kind;
	void *obj;			/* c_stream (W_STREAM, W_PENDING), c_trace (W_META) */
	uint64_t events;		/* W_PENDING: sent_ev when asked; W_RPENDING: handle */
};

/* A live index entry held back until @at (monotonic ns). */
struct rdata_held {
	uint8_t msg[RLY_HDR + RLY_INDEX_BODY];
	uint64_t at;
};

static struct c_relay *rdata_relays;
static int rdata_epfd = -1;
unsigned long rdata_deferred;

void rdata_init(int epfd)
{
	rdata_epfd = epfd;
}

struct c_relay *rdata_find(uint64_t id)
{
	for (struct c_relay *r = rdata_relays; r; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static size_t queued(const struct rdata_queue *q)
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
	epoll_ctl(rdata_epfd, EPOLL_CTL_MOD, r->cfd, &ev);
	ev.events = EPOLLIN | (queued(&r->dq) ? EPOLLOUT : 0);
	ev.data.u64 = NET_KEY | r->id << 1 | 1;
	epoll_ctl(rdata_epfd, EPOLL_CTL_MOD, r->dfd, &ev);
}

/*
 * Streaming to @r stopped: the events sent on streams closed (or retired)
 * before the relay confirmed them go to their channel's counts of streams
 * gone (stats.c); those of the streams still open are counted there.
 */
static void gone_unconfirmed(struct c_relay *r)
{
	struct c_chan *ch;

	for (uint32_t i = 0; i < r->nret; i++)
		if (r->ret[i].unconf && (ch = chan_find(r->ret[i].chan_id)))
			ch->gone.unconfirmed += r->ret[i].unconf;
	for (uint32_t i = 0; i < r->ngone; i++)
		if ((ch = chan_find(r->gone[i].chan_id)))
			ch->gone.unconfirmed += r->gone[i].events;
	r->ngone = 0;
}

/* Streaming to @r stops: say why once, count what was not confirmed. */
static void rdata_break(struct c_relay *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rdata_break(struct c_relay *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return;
	r->err = err ? err : EPIPE;
	gone_unconfirmed(r);
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	log_err("%s: streaming stopped: %s", r->url, r->why);
	epoll_ctl(rdata_epfd, EPOLL_CTL_DEL, r->cfd, NULL);
	epoll_ctl(rdata_epfd, EPOLL_CTL_DEL, r->dfd, NULL);
	shutdown(r->cfd, SHUT_RDWR);
	shutdown(r->dfd, SHUT_RDWR);
	r->cq.head = r->cq.len = 0;
	r->dq.head = r->dq.len = 0;
	r->wlen = 0;
	r->hlen = 0;
}

/* Send what the kernel takes now; -1 when the relay went away. */
static int pump(struct c_relay *r, int fd, struct rdata_queue *q)
{
	while (queued(q)) {
		ssize_t n = send(fd, q->buf + q->head, queued(q), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			rdata_break(r, errno, "%s", strerror(errno));
			return -1;
		}
		q->head += (size_t)n;
	}
	if (q->head == q->len)
		q->head = q->len = 0;
	return 0;
}

static int enqueue(struct c_relay *r, struct rdata_queue *q, const void *a, size_t al,
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
		rdata_break(r, -ret, "out of memory");
		return ret;
	}
	if (reply) {
		struct rdata_wait *w = &r->waits[(r->whead + r->wlen++) % NET_WAITS];

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

/* NET_HOLD_NS in clock @kind's units. */
static uint64_t hold_ticks(uint32_t kind)
{
	static uint64_t freq[2];
	int k = kind == CLOCK_KIND_TSC;

	if (!freq[k]) {
		struct ctf_trace_info info;

		memset(&info, 0, sizeof(info));
		clock_describe(kind, &info);
		freq[k] = info.freq ? info.freq : 1000000000u;
	}
	return (uint64_t)NET_HOLD_NS * freq[k] / 1000000000u;
}

/* What a beacon may say now in clock @kind: NET_HOLD_NS ago. */
static uint64_t promise(uint32_t kind)
{
	uint64_t now = clock_now(kind), h = hold_ticks(kind);

	return now > h ? now - h : 0;
}

/* Hold back live index entry @msg until @at. */
static int hold(struct c_relay *r, const uint8_t *msg, uint64_t at)
{
	struct rdata_held *h;

	if (r->hlen == r->hcap) {
		uint32_t cap = r->hcap ? r->hcap * 2 : 256;
		struct rdata_held *nh = malloc(cap * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		for (uint32_t i = 0; i < r->hlen; i++)
			nh[i] = r->held[(r->hhead + i) % r->hcap];
		free(r->held);
		r->held = nh;
		r->hcap = cap;
		r->hhead = 0;
	}
	h = &r->held[(r->hhead + r->hlen++) % r->hcap];
	memcpy(h->msg, msg, sizeof(h->msg));
	h->at = at;
	return 0;
}

/* Send the held index entries due at @now (@all: every one). */
static void release(struct c_relay *r, uint64_t now, int all)
{
	while (r->hlen && !r->err && (all || r->held[r->hhead].at <= now)) {
		struct rdata_held *h = &r->held[r->hhead];

		if (command(r, h->msg, sizeof(h->msg), NULL, 0, W_GENERIC, NULL, 0, 1) < 0)
			break;	/* no reply slot free (or the relay gone): later */
		r->hhead = (r->hhead + 1) % r->hcap;
		r->hlen--;
	}
}

/*
 * Queue packet @p (its header @hdr, then @len bytes of @data) on stream
 * @handle as network sequence number @net_seq; its index entry is held
 * back NET_HOLD_NS in a live session (*@rel_at: when it goes).
 */
static int put_packet(struct c_relay *r, uint64_t handle, uint64_t net_seq, const uint8_t *hdr,
		      const struct ctf_packet *p, const void *data, size_t len, uint64_t *rel_at)
{
	uint8_t dh[RLY_DATA_HDR], ih[RLY_HDR + RLY_INDEX_BODY];
	struct rly_index ix = {
		.handle = handle,
		.net_seq = net_seq,
		.packet_bytes = p->content_bytes,
		.content_bytes = p->content_bytes,
		.ts_begin = p->ts_begin,
		.ts_end = p->ts_end,
		.discarded = p->discarded,
		.stream_id = p->stream_id,
		.instance_id = p->stream_instance_id,
		.packet_seq = p->seq,
	};

	if (r->err)
		return -r->err;
	rly_data_hdr(dh, handle, net_seq, (uint32_t)p->content_bytes);
	if (enqueue(r, &r->dq, dh, sizeof(dh), hdr, CTF_PACKET_HDR) < 0 ||
	    (len && enqueue(r, &r->dq, data, len, NULL, 0) < 0)) {
		rdata_break(r, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	rly_index(ih, &ix);
	if (r->live_us) {
		*rel_at = now_ns(CLOCK_MONOTONIC) + NET_HOLD_NS;
		if (hold(r, ih, *rel_at) < 0) {
			rdata_break(r, ENOMEM, "out of memory");
			return -ENOMEM;
		}
	} else {
		int ret = command(r, ih, sizeof(ih), NULL, 0, W_GENERIC, NULL, 0, 1);

		if (ret < 0)
			return ret;
	}
	pump(r, r->dfd, &r->dq);
	watch(r);
	return r->err ? -r->err : 0;
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

/* Retired stream @x: an empty packet at @ts (a packet, not a beacon). */
static void retired_empty(struct c_relay *r, struct rdata_retired *x, uint64_t ts)
{
	struct ctf_trace_info info;
	uint8_t hdr[CTF_PACKET_HDR];
	struct ctf_packet p = {
		.stream_id = x->stream_id,
		.stream_instance_id = x->instance_id,
		.ts_begin = ts,
		.ts_end = ts,
		.content_bytes = CTF_PACKET_HDR,
		.seq = x->seq,
		.discarded = x->discarded,
	};

	memset(&info, 0, sizeof(info));
	memcpy(info.uuid, x->uuid, sizeof(info.uuid));
	ctf_packet_header(hdr, &info, &p);
	if (put_packet(r, x->handle, x->net_seq, hdr, &p, NULL, 0, &x->rel_at) == 0) {
		x->net_seq++;
		x->seq++;
		x->ts_sent = ts;
	}
}

/* Close the oldest @n retired streams of @r (0: all). */
static void retired_close(struct c_relay *r, uint32_t n)
{
	if (!n || n > r->nret)
		n = r->nret;
	for (uint32_t i = 0; i < n; i++)
		close_handle(r, r->ret[i].handle, r->ret[i].net_seq ? r->ret[i].net_seq - 1 : UINT64_MAX);
	r->nret -= n;
	memmove(r->ret, r->ret + n, r->nret * sizeof(*r->ret));
}

/*
 * A live stream whose buffer or trace goes away: closing it now would end
 * it for every viewer at once, those that have not read its last packets
 * (or not seen the stream yet) too, so it stays open, sending beacons,
 * until NET_LINGER_NS (NET_LINGER_PERIODS live periods at least) have
 * passed. The entry to fill in, or NULL: not live, or no memory, closed now.
 */
static struct rdata_retired *retire(struct c_relay *r, uint64_t handle, uint64_t net_seq)
{
	uint64_t linger = (uint64_t)r->live_us * 1000u * NET_LINGER_PERIODS;
	struct rdata_retired *x;

	if (!r->live_us)
		goto close;
	/* the oldest closed first, once its index entries are all out (the
	 * relay refuses an entry of a closed stream) */
	if (r->nret >= NET_RETIRED_MAX && r->ret[0].rel_at <= now_ns(CLOCK_MONOTONIC))
		retired_close(r, 1);
	if (r->nret == r->cret) {
		uint32_t cap = r->cret ? r->cret * 2 : 64;
		struct rdata_retired *nr = realloc(r->ret, cap * sizeof(*nr));

		if (!nr)
			goto close;
		r->ret = nr;
		r->cret = cap;
	}
	x = &r->ret[r->nret++];
	memset(x, 0, sizeof(*x));
	x->handle = handle;
	x->net_seq = net_seq;
	x->until = now_ns(CLOCK_MONOTONIC) + (linger > NET_LINGER_NS ? linger : NET_LINGER_NS);
	x->stream_id = UINT32_MAX;
	return x;
close:
	close_handle(r, handle, net_seq ? net_seq - 1 : UINT64_MAX);
	return NULL;
}

int rdata_add(const struct msg_c_relay *m, const int *fds)
{
	struct c_relay *r;
	struct epoll_event ev = { .events = EPOLLIN };

	if (rdata_find(m->relay_id) || !m->relay_id || !memchr(m->url, 0, sizeof(m->url)) ||
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
	epoll_ctl(rdata_epfd, EPOLL_CTL_ADD, r->cfd, &ev);
	ev.data.u64 = NET_KEY | r->id << 1 | 1;
	epoll_ctl(rdata_epfd, EPOLL_CTL_ADD, r->dfd, &ev);
	r->next = rdata_relays;
	rdata_relays = r;
	log_info("streaming to %s under %s%s", r->url, r->base, r->live_us ? ", live" : "");
	return 0;
bad:
	close(fds[0]);
	close(fds[1]);
	return -EINVAL;
}

void rdata_del(uint64_t id)
{
	for (struct c_relay **pp = &rdata_relays; *pp; pp = &(*pp)->next) {
		struct c_relay *r = *pp;

		if (r->id != id)
			continue;
		/* everything held back goes, then the retired streams close */
		release(r, 0, 1);
		if (!r->err)
			retired_close(r, 0);
		rdata_settle(r, 0);
		*pp = r->next;
		if (!r->err) {
			epoll_ctl(rdata_epfd, EPOLL_CTL_DEL, r->cfd, NULL);
			epoll_ctl(rdata_epfd, EPOLL_CTL_DEL, r->dfd, NULL);
		}
		close(r->cfd);
		close(r->dfd);
		free(r->cq.buf);
		free(r->dq.buf);
		free(r->waits);
		free(r->held);
		free(r->ret);
		free(r->gone);
		free(r);
		return;
	}
}

int rdata_check(uint64_t id)
{
	struct c_relay *r = rdata_find(id);

	return !r ? -ENOENT : r->err ? -r->err : 0;
}

/* Clear @obj from the replies awaited: it is being freed. */
static void forget(struct c_relay *r, const void *obj)
{
	for (uint32_t i = 0; i < r->wlen; i++) {
		struct rdata_wait *w = &r->waits[(r->whead + i) % NET_WAITS];

		if (w->obj == obj)
			w->obj = NULL;
	}
}

/* One whole reply to the oldest command awaiting one. */
static void reply(struct c_relay *r, const uint8_t *b)
{
	struct rdata_wait w = r->waits[r->whead];
	uint32_t status = 0;

	r->whead = (r->whead + 1) % NET_WAITS;
	r->wlen--;
	switch (w.kind) {
	case W_STREAM:
	case W_META: {
		uint64_t handle = rly_get64(b);
		enum rdata_state st = rly_get32(b + 8) == RLY_OK ? NET_READY : NET_FAILED;

		if (!w.obj) {
			if (st == NET_READY)
				close_handle(r, handle, UINT64_MAX);
		} else if (w.kind == W_STREAM) {
			((struct c_stream *)w.obj)->net.state = st;
			((struct c_stream *)w.obj)->net.handle = handle;
			((struct c_stream *)w.obj)->net.kick = st == NET_READY;
			r->kicks += st == NET_READY;
		} else {
			((struct c_trace *)w.obj)->net_meta.state = st;
			((struct c_trace *)w.obj)->net_meta.handle = handle;
		}
		if (st == NET_FAILED)
			rdata_break(r, EREMOTEIO, "the relay refused a stream (status %u)",
				  rly_get32(b + 8));
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
		break;
	}
	case W_RPENDING:
		status = rly_get32(b);
		for (uint32_t i = 0; i < r->nret; i++)
			if (r->ret[i].handle == w.events) {
				r->ret[i].asking = 0;
				if (status == 0)
					r->ret[i].unconf = 0;
			}
		break;
	case W_GENERIC:
		status = rly_get32(b);
		if (status != RLY_OK)
			rdata_break(r, EREMOTEIO, "the relay refused a command (status %u)", status);
		return;
	}
	/* DATA_PENDING: 0 stored, 1 not yet; anything else an error */
	if (status > 1)
		rdata_break(r, EREMOTEIO, "the relay refused a command (status %u)", status);
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
				rdata_break(r, n ? errno : ECONNRESET, "the relay closed the connection");
			else if (n > 0)
				rdata_break(r, EPROTO, "the relay sent an unexpected reply");
			return;
		}
		need = reply_size(r->waits[r->whead].kind);
		n = recv(r->cfd, r->rbuf + r->rlen, need - r->rlen, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			rdata_break(r, n ? errno : ECONNRESET, "%s",
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

void rdata_event(uint64_t key, uint32_t events)
{
	struct c_relay *r = rdata_find((key & ~NET_KEY) >> 1);
	int data = key & 1;

	if (!r || r->err)
		return;
	if (data && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		char c;
		ssize_t n = recv(r->dfd, &c, 1, MSG_DONTWAIT);

		if (n >= 0 || (errno != EAGAIN && errno != EINTR)) {
			rdata_break(r, n < 0 ? errno : ECONNRESET, "the relay closed the data connection");
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

/* Ask the relay to confirm retired stream @x's packets, its index entries all sent. */
static void retired_confirm(struct c_relay *r, struct rdata_retired *x, uint64_t now)
{
	uint8_t m[RLY_HDR + RLY_PAIR_BODY];

	if (!x->unconf || x->asking || x->rel_at > now)
		return;
	rly_pair(m, RLY_DATA_PENDING, x->handle, x->net_seq - 1);
	if (command(r, m, sizeof(m), NULL, 0, W_RPENDING, NULL, x->handle, 1) == 0)
		x->asking = 1;
}

static int retired_unconfirmed(const struct c_relay *r)
{
	for (uint32_t i = 0; i < r->nret; i++)
		if (r->ret[i].unconf)
			return 1;
	return 0;
}

/* Confirmations asked every NET_CONFIRM_NS, queues pumped. */
static void relay_tick(struct c_relay *r, uint64_t now)
{
	if (r->err)
		return;
	if (now >= r->next_confirm) {
		r->next_confirm = now + NET_CONFIRM_NS;
		each_stream(r, confirm);
		for (uint32_t i = 0; i < r->nret && !r->err; i++)
			retired_confirm(r, &r->ret[i], now);
	}
	pump(r, r->cfd, &r->cq);
	if (!r->err)
		pump(r, r->dfd, &r->dq);
	watch(r);
}

/*
 * Live stream @st at a live tick, @ts what a beacon may say: nothing
 * committed waits in its buffer and nothing of it is held back. A beacon,
 * or, when streams were announced since the last tick, an empty packet:
 * viewers hear of new streams only with a packet's index, and must before
 * they go past the new streams' first events.
 */
static void live_stream_tick(struct c_relay *r, struct c_seg *s, struct c_stream *st,
			     uint64_t now)
{
	uint64_t ts = promise(s->clock);
	uint8_t hdr[CTF_PACKET_HDR];
	struct ctf_packet p;

	if (st->net.state != NET_READY || !st->net.net_seq || ts <= st->net.ts_sent ||
	    st->net.rel_at > now || pending(st))
		return;
	if (!r->announced) {
		send_beacon(r, st->net.handle, ts, s->context);
		st->net.ts_sent = ts;
		return;
	}
	memset(&p, 0, sizeof(p));
	p.stream_id = s->context;
	p.stream_instance_id = seg_instance_id(s, st);
	p.ts_begin = ts;
	p.ts_end = ts;
	p.content_bytes = CTF_PACKET_HDR;
	p.seq = st->seq;
	p.discarded = st->discarded - st->disc_base;
	ctf_packet_header(hdr, &s->trace->info, &p);
	if (rdata_packet(s, st, hdr, &p, NULL, 0, 0) == 0) {
		st->seq++;	/* a packet of the stream like any other */
		st->fd_packets++;
	}
}

/*
 * Live work, every loop of the consumer: streams with something new and
 * not announced yet, and those whose handle came back, are drained at once
 * (NET_KICK_NS at most after their first event), so that they are
 * announced soon after their first event, well before the index entries
 * held back that may pass it go; held entries due go; every live period,
 * beacons or empty packets, retired streams closed when due.
 */
static void live_tick(struct c_relay *r, uint64_t now)
{
	struct cds_lfht_iter it;
	struct c_app *a;
	int kick = now >= r->next_kick, period = now >= r->next_live;

	if (kick)
		r->next_kick = now + NET_KICK_NS;
	/* first the new streams, announced before any beacon of this tick */
	if (kick || r->kicks) {
		r->kicks = 0;
		capp_for_each(&it, a)
			for (struct c_seg *s = a->segs; s; s = s->next)
				for (uint32_t i = 0; s->chan->relay == r && i < s->nslots; i++) {
					struct c_stream *st = &s->streams[i];

					if (r->err)
						return;
					if (st->net.kick ||
					    (kick && st->net.state == NET_NONE && pending(st))) {
						st->net.kick = 0;
						drain_stream(s, st, DRAIN_PARTIAL);
					}
				}
	}
	if (period)
		capp_for_each(&it, a)
			for (struct c_seg *s = a->segs; s; s = s->next)
				for (uint32_t i = 0; s->chan->relay == r && i < s->nslots; i++)
					if (!r->err)
						live_stream_tick(r, s, &s->streams[i], now);
	if (period) {
		uint32_t gone = 0;

		r->next_live = now + (uint64_t)r->live_us * 1000u;
		while (gone < r->nret && now >= r->ret[gone].until && now >= r->ret[gone].rel_at)
			gone++;
		if (gone)
			retired_close(r, gone);
		for (uint32_t i = 0; i < r->nret; i++) {
			struct rdata_retired *x = &r->ret[i];
			uint64_t ts = promise(x->clock);

			if (x->stream_id == UINT32_MAX || !x->net_seq || ts <= x->ts_sent ||
			    x->rel_at > now)
				continue;
			if (r->announced) {
				retired_empty(r, x, ts);
			} else {
				send_beacon(r, x->handle, ts, x->stream_id);
				x->ts_sent = ts;
			}
		}
		r->announced = 0;
	}
	release(r, now, 0);
}

void rdata_tick(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (struct c_relay *r = rdata_relays; r; r = r->next) {
		if (r->live_us && !r->err)
			live_tick(r, now);
		relay_tick(r, now);
	}
}

int rdata_timeout(int t)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (struct c_relay *r = rdata_relays; r; r = r->next) {
		uint64_t due = r->next_confirm;
		int ms;

		if (r->live_us) {
			due = r->next_live < r->next_kick ? r->next_live : r->next_kick;
			if (r->hlen && r->held[r->hhead].at < due)
				due = r->held[r->hhead].at;
		}
		/* not live: only while packets are unconfirmed */
		if (r->err || (!r->live_us && !each_stream(r, unconfirmed_one)))
			continue;
		ms = due > now ? (int)((due - now) / 1000000u) + 1 : 0;
		if (ms < t)
			t = ms;
	}
	return t;
}

void rdata_settle(struct c_relay *r, int confirm_all)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), deadline = now + NET_SETTLE_NS, last = now, asked = 0;
	size_t before = SIZE_MAX;

	if (confirm_all)
		release(r, 0, 1);	/* the relay's word on all of it: nothing held back */

	while (!r->err) {
		struct pollfd p[2] = {
			{ .fd = r->cfd, .events = POLLIN | (queued(&r->cq) ? POLLOUT : 0) },
			{ .fd = r->dfd, .events = queued(&r->dq) ? POLLOUT : 0 },
		};
		size_t left = queued(&r->cq) + queued(&r->dq) + r->wlen;
		int pending = confirm_all && (each_stream(r, unconfirmed_one) ||
					      retired_unconfirmed(r));

		now = now_ns(CLOCK_MONOTONIC);
		if (!left && !pending)
			return;
		if (left != before) {
			before = left;
			last = now;
		}
		if (left && (now - last >= NET_STALL_NS || now >= deadline)) {
			rdata_break(r, ETIMEDOUT, "the relay took nothing for %u ms",
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
		rdata_event(NET_KEY | r->id << 1, (uint32_t)(p[0].revents ? EPOLLIN : 0));
	}
}

/* ---- hooks of trace.c and drain.c -------------------------------------- */

/*
 * The trace's metadata in a memfd. Its stream is announced with the
 * trace's first data stream (rdata_stream_open()): babeltrace2 drops a
 * trace that a viewer got with no data stream, and never shows the
 * streams that come after.
 */
int rdata_trace_start(struct c_trace *t)
{
	struct c_relay *r = t->chan->relay;
	uint8_t m[RLY_HDR + RLY_ADD_STREAM_BODY];
	int ret;

	if (r->err)
		return -r->err;
	ret = rly_add_stream(m, "metadata", t->dir);	/* the path fits */
	if (ret < 0)
		return ret;
	t->meta_fd = memfd_create("shmtrace-metadata", MFD_CLOEXEC);
	if (t->meta_fd < 0)
		return -errno;
	t->net_meta.state = NET_NONE;
	t->net_meta_sent = 0;
	return 0;
}

/* The metadata stream is announced, and every byte of it sent (or not announced yet). */
int rdata_trace_ready(struct c_trace *t)
{
	struct c_relay *r = t->chan->relay;
	static char buf[65536];
	off_t size;

	if (r->err)
		return -r->err;
	if (t->net_meta.state == NET_NONE)
		return 0;	/* with the first data stream */
	if (t->net_meta.state == NET_ADDING) {
		rdata_deferred++;
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

void rdata_trace_close(struct c_trace *t)
{
	struct c_relay *r = t->chan->relay;

	forget(r, t);
	if (t->net_meta.state == NET_READY && !r->err)
		retire(r, t->net_meta.handle, 0);	/* closed with its last data stream */
	t->net_meta.state = NET_NONE;
}

/*
 * Announce @st (and its trace's metadata stream with the first one), then
 * publish them to viewers (STREAMS_SENT) at once: before any later index
 * entry of the session, and never a trace without a data stream.
 */
int rdata_stream_open(struct c_seg *s, struct c_stream *st)
{
	struct c_relay *r = s->chan->relay;
	struct c_trace *t = s->trace;
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
		rdata_deferred++;
		return -EAGAIN;
	case NET_NONE:
		break;
	}
	if (t->net_meta.state == NET_NONE) {
		ret = rly_add_stream(m, "metadata", t->dir);
		if (ret < 0)
			return ret;
		ret = command(r, m, sizeof(m), NULL, 0, W_META, t, 0, 1);
		if (ret < 0)
			return ret;
		t->net_meta.state = NET_ADDING;
	}
	snprintf(name, sizeof(name), "%s_%u", s->chan->name, st->number);
	ret = rly_add_stream(m, name, t->dir);
	if (ret < 0)
		return ret;
	ret = command(r, m, sizeof(m), NULL, 0, W_STREAM, st, 0, 1);
	if (ret < 0)
		return ret;
	st->net.state = NET_ADDING;
	rly_hdr(m, RLY_STREAMS_SENT, 0);
	command(r, m, RLY_HDR, NULL, 0, W_GENERIC, NULL, 0, 1);
	r->announced = 1;
	rdata_deferred++;
	return -EAGAIN;
}

int rdata_packet(struct c_seg *s, struct c_stream *st, const uint8_t *hdr,
	       const struct ctf_packet *pk, const void *data, size_t len, uint32_t nev)
{
	struct c_relay *r = s->chan->relay;
	uint8_t moved[CTF_PACKET_HDR];
	struct ctf_packet later = *pk;
	const struct ctf_packet *p = pk;
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
	ret = put_packet(r, st->net.handle, st->net.net_seq, hdr, p, data, len, &st->net.rel_at);
	if (ret < 0)
		return ret;
	st->net.net_seq++;
	st->net.sent_ev += nev;
	st->net.ts_sent = p->ts_end;
	return 0;
}

int rdata_room(const struct c_seg *s)
{
	const struct c_relay *r = s->chan->relay;

	/* replies awaited, those of the held index entries too, stay bounded */
	return r->err || (queued(&r->dq) < NET_QMAX && r->wlen + r->hlen + 8 < NET_WAITS);
}

/* @events sent on a stream of channel @chan_id closed unconfirmed. */
static void gone_add(struct c_relay *r, uint64_t chan_id, uint64_t events)
{
	uint32_t i;

	if (!events)
		return;
	for (i = 0; i < r->ngone && r->gone[i].chan_id != chan_id; i++)
		;
	if (i == r->ngone) {
		if (r->ngone == r->cgone) {
			uint32_t cap = r->cgone ? r->cgone * 2 : 8;
			struct rdata_gone *ng = realloc(r->gone, cap * sizeof(*ng));

			if (!ng)
				return;	/* then counted as confirmed */
			r->gone = ng;
			r->cgone = cap;
		}
		r->gone[r->ngone].chan_id = chan_id;
		r->gone[r->ngone++].events = 0;
	}
	r->gone[i].events += events;
}

void rdata_stream_close(struct c_seg *s, struct c_stream *st)
{
	struct c_relay *r = s->chan->relay;
	struct rdata_retired *x;

	forget(r, st);
	if (st->net.state != NET_READY || r->err)
		return;	/* gone (stats.c counts what was not confirmed) */
	if (!st->net.net_seq) {
		close_handle(r, st->net.handle, UINT64_MAX);	/* nothing to show */
		return;
	}
	x = retire(r, st->net.handle, st->net.net_seq);
	if (!x) {
		gone_add(r, s->chan->id, st->net.sent_ev - st->net.conf_ev);
		return;
	}
	x->chan_id = s->chan->id;
	x->unconf = st->net.sent_ev - st->net.conf_ev;
	x->seq = st->seq;
	x->instance_id = seg_instance_id(s, st);
	x->discarded = st->discarded - st->disc_base;
	x->ts_sent = st->net.ts_sent;
	x->rel_at = st->net.rel_at;
	x->clock = s->clock;
	x->stream_id = s->context;
	memcpy(x->uuid, s->trace->info.uuid, sizeof(x->uuid));
}

uint64_t rdata_unconfirmed(const struct c_seg *s, const struct c_stream *st)
{
	const struct c_relay *r = s->chan->relay;

	return r && r->err ? st->net.sent_ev - st->net.conf_ev : 0;
}
