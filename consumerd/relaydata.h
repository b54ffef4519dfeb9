/* SPDX-License-Identifier: MIT */
/*
 * relaydata.h - streaming a session's traces to lttng-relayd, the data
 * side (relaydata.c, whose opening comment has the invariants).
 */
#ifndef SHMTRACE_CONSUMERD_RELAYDATA_H
#define SHMTRACE_CONSUMERD_RELAYDATA_H

#include <stdint.h>
#include "common/proto.h"

struct c_seg;
struct c_stream;
struct c_trace;
struct ctf_packet;

/* Where a relay stream or a trace's metadata stream stands. */
enum rdata_state {
	NET_NONE,		/* not announced to the relay yet */
	NET_ADDING,		/* ADD_STREAM sent, its handle not back yet */
	NET_READY,
	NET_FAILED,		/* refused by the relay: its packets are lost, counted */
};

/* A stream's side of the relay (in struct c_stream). */
struct rdata_stream {
	enum rdata_state state;
	int asking;			/* a DATA_PENDING is out */
	int kick;			/* live: its handle came back, drain it */
	uint64_t handle;
	uint64_t net_seq;		/* packets sent */
	uint64_t ts_sent;		/* latest time sent: packet end or beacon */
	uint64_t rel_at;		/* live: its last index reaches the relay then (ns) */
	uint64_t sent_ev;		/* events in the packets sent */
	uint64_t conf_ev;		/* of which the relay confirmed storing */
};

/*
 * A live relay stream whose buffer (or trace) is gone, kept open for
 * viewers that have not read it all yet (relaydata.c): beacons and empty
 * packets only, then closed.
 */
struct rdata_retired {
	uint64_t handle;
	uint64_t net_seq;		/* packets sent */
	uint64_t seq;			/* the packet_seq_num of its next packet */
	uint64_t instance_id;
	uint64_t discarded;		/* the events_discarded its packets report */
	uint64_t ts_sent;
	uint64_t rel_at;
	uint64_t until;			/* closed then (monotonic ns) */
	uint64_t chan_id;		/* its channel, for the counts */
	uint64_t unconf;		/* events sent, not confirmed stored yet */
	int asking;			/* a DATA_PENDING is out */
	uint32_t clock;			/* CLOCK_KIND_* of its timestamps */
	uint32_t stream_id;		/* stream class; metadata: UINT32_MAX */
	uint8_t uuid[16];		/* its trace's */
};

/* Events sent on a channel's streams closed before the relay confirmed them. */
struct rdata_gone {
	uint64_t chan_id;
	uint64_t events;
};

struct rdata_held;

struct c_relay {
	uint64_t id;
	int cfd, dfd;
	int err;			/* why streaming stopped (errno), 0 streaming */
	char why[160];
	uint32_t live_us;
	int announced;			/* live: streams announced since the last live tick */
	uint32_t kicks;			/* live: streams whose handle came back since */
	uint64_t next_confirm, next_live, next_kick;	/* monotonic ns */
	char url[256];
	char base[192];
	struct rdata_queue { char *buf; size_t head, len, cap; } cq, dq;
	struct rdata_wait *waits;		/* replies awaited, in order: a ring */
	uint32_t whead, wlen;
	struct rdata_held *held;		/* live: index entries held back, oldest first: a ring */
	uint32_t hhead, hlen, hcap;
	struct rdata_retired *ret;	/* live: streams retired, oldest first */
	uint32_t nret, cret;
	struct rdata_gone *gone;		/* not live: closed streams' unconfirmed events */
	uint32_t ngone, cgone;
	uint8_t rbuf[16];
	uint32_t rlen;
	struct c_relay *next;
};

void rdata_init(int epfd);
/* epoll keys of relay sockets have this bit */
#define NET_KEY		(1ull << 62)
int rdata_add(const struct msg_c_relay *m, const int *fds);
void rdata_del(uint64_t id);
struct c_relay *rdata_find(uint64_t id);
/* 0 while streaming, else -errno of why it stopped (logged). */
int rdata_check(uint64_t id);
void rdata_event(uint64_t key, uint32_t events);
/*
 * Every loop of the main thread, between rounds: send what is queued, ask
 * for confirmations; live: announce new streams (draining them), send
 * the index entries held back that are due, beacons every period.
 */
void rdata_tick(void);
/* Milliseconds until rdata_tick() has work, at most @t. */
int rdata_timeout(int t);

/*
 * Wait (bounded) until everything queued for @r is sent and answered,
 * giving up on a relay that accepts nothing for a second. With @confirm,
 * first ask the relay to confirm every stream's packets.
 */
void rdata_settle(struct c_relay *r, int confirm);
/* Packets left in the buffers because the relay could not take them. */
extern unsigned long rdata_deferred;

/* Hooks of trace.c and drain.c; -EAGAIN: not now, the packet stays in its buffer. */
int rdata_trace_start(struct c_trace *t);
int rdata_trace_ready(struct c_trace *t);
void rdata_trace_close(struct c_trace *t);
int rdata_stream_open(struct c_seg *s, struct c_stream *st);
/* May a packet of @s be queued now? (the queues are bounded) */
int rdata_room(const struct c_seg *s);
int rdata_packet(struct c_seg *s, struct c_stream *st, const uint8_t *hdr,
	       const struct ctf_packet *p, const void *data, size_t len, uint32_t nev);
void rdata_stream_close(struct c_seg *s, struct c_stream *st);
/* Events sent but not confirmed by a relay that went away. */
uint64_t rdata_unconfirmed(const struct c_seg *s, const struct c_stream *st);

#endif
