// SPDX-License-Identifier: MIT
/*
 * hold.c - what a stream's ring holds now: the packets a snapshot copies,
 * and, for a memory-only channel (one the consumer never drains: its
 * rings are only copied by snapshots), the mark a clear leaves, what the
 * rings hold past it and the window they cover.
 *
 * A ring keeps its last num_subbuf - 1 complete packets and the open one
 * (common/ringbuf.c): packets closed - (num_subbuf - 1) to closed. Each
 * packet is read from its descriptor as the overwrite-mode drain reads
 * it: its packet number (acquire), its commit word and last timestamp,
 * read between two equal reads of the commit word when the writer may be
 * adding to it, then the packet number again after an acquire fence: a
 * descriptor the writer reused meanwhile is left out, like a sequence
 * lock reader. Nothing read from the slot is believed beyond the ring:
 * bytes beyond the sub-buffer end the walk, counts that do not fit are
 * not used.
 *
 * A clear's mark (memory-only channels; the writer never reads it): in
 * the slot's consumer line, `consumed` = C, the packet the writer was in,
 * and, in `cleared`, the part of packet C committed then (events << 32 |
 * bytes: whole events) with, in `cleared_ts`, the last timestamp read with
 * it. Packets before C, and the first `cleared` bytes of C, are discarded;
 * the rest of C is a packet that begins at `cleared_ts`, which lies
 * between the last discarded event and the first kept one, so that a
 * reader rebuilds the first kept event's compact timestamp from it as it
 * would from the event before. Reading the writer's position can only be
 * late: an event committed after `closed` was read is kept. The writer,
 * which never blocks, goes on: `consumed` moving tells it only that the
 * discarded packets are not to be counted as overwritten when it reuses
 * their sub-buffers (they were counted as cleared); packet C's are, when
 * its sub-buffer is reused. A mark the process scribbled over (beyond
 * `closed`, or more than packet C holds) is not believed: everything is
 * kept. The mark lives in the shared slot so that a consumer started
 * after a crash, and a session daemon after a restart, see the same
 * clear.
 *
 * Who runs this: the thread that owns the stream; for memory-only
 * channels, whose streams are in no draining list (worker.c), always the
 * main thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "clock.h"
#include "hold.h"
#include "seg.h"
#include "trace.h"

static inline uint64_t ld_acq(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/*
 * Packet @seq of @st's ring, as its descriptor says (@open: the writer may
 * be adding to it). 0; -ESTALE when the ring does not hold it (now);
 * -EAGAIN when a busy writer kept changing it; -EIO when it cannot be.
 */
static int hold_one(const struct c_stream *st, uint64_t seq, int open, struct hold_pkt *p)
{
	const struct shm_slot *h = st->rb.hdr;
	const struct shm_sbmeta *m = &h->sb[seq % st->rb.num_subbuf];
	uint64_t w1, w2, last;
	int tries = 0;

	if (ld_acq(&m->pseq) != seq)
		return -ESTALE;
	for (;;) {
		w1 = ld_acq(&m->commit.word);
		last = ld_acq(&m->commit.last_ts);
		w2 = ld_acq(&m->commit.word);
		if (w1 == w2 || !open)
			break;
		if (++tries == 64)
			return -EAGAIN;
	}
	memset(p, 0, sizeof(*p));
	p->seq = seq;
	p->bytes = (uint32_t)w1;
	p->nev = (uint32_t)(w1 >> 32);
	p->begin_ts = __atomic_load_n(&m->begin_ts, __ATOMIC_RELAXED);
	p->end_ts = last > p->begin_ts ? last : p->begin_ts;
	p->disc = __atomic_load_n(&m->disc_open, __ATOMIC_RELAXED);
	p->tid = __atomic_load_n(&m->tid, __ATOMIC_RELAXED);
	p->open = open;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&m->pseq, __ATOMIC_RELAXED) != seq)
		return -ESTALE;		/* reused while we read it */
	if (p->bytes > st->rb.subbuf_size || (p->bytes && !p->nev))
		return -EIO;
	return 0;
}

/* The mark of a clear, believed only within packet @p (its first one); 1 if any. */
static int hold_mark(const struct shm_slot *h, struct hold_pkt *p)
{
	uint64_t cw = __atomic_load_n(&h->cleared, __ATOMIC_RELAXED);
	uint64_t cts = __atomic_load_n(&h->cleared_ts, __ATOMIC_RELAXED);
	uint32_t bytes = (uint32_t)cw, nev = (uint32_t)(cw >> 32);

	if (!bytes || bytes > p->bytes || nev > p->nev || (nev == p->nev) != (bytes == p->bytes))
		return 0;
	p->skip = bytes;
	p->skip_ev = nev;
	if (cts >= p->begin_ts && cts <= p->end_ts)
		p->begin_ts = cts;
	return 1;
}

int hold_packets(const struct c_stream *st, int memory, struct hold_pkt *out, uint32_t max)
{
	const struct shm_slot *h = st->rb.hdr;
	uint32_t num = st->rb.num_subbuf;
	uint64_t closed = ld_acq(&h->closed), mark = memory ? ld_acq(&h->consumed) : 0;
	uint64_t first = closed >= num - 1 ? closed - (num - 1) : 0;
	uint32_t n = 0;

	if (st->broken)
		return 0;
	if (mark > closed)
		mark = 0;	/* not a mark of ours: everything is kept */
	if (mark > first)
		first = mark;
	for (uint64_t seq = first; seq <= closed && n < max; seq++) {
		struct hold_pkt *p = &out[n];
		int ret = hold_one(st, seq, seq == closed, p);

		if (ret == -EIO)
			break;
		if (ret < 0)
			continue;
		if (memory && seq == mark && hold_mark(h, p) && p->skip == p->bytes)
			continue;	/* all of it discarded */
		n++;
	}
	return (int)n;
}

uint64_t hold_clear(struct c_stream *st)
{
	struct shm_slot *h = st->rb.hdr;
	uint32_t num = st->rb.num_subbuf;
	uint64_t closed = ld_acq(&h->closed), old = ld_acq(&h->consumed);
	uint64_t first = closed >= num - 1 ? closed - (num - 1) : 0, events = 0, cw = 0, cts = 0;
	struct hold_pkt p;

	if (st->broken)
		return 0;
	if (old > closed)
		old = 0;
	if (old > first)
		first = old;
	for (uint64_t seq = first; seq < closed; seq++)
		if (hold_one(st, seq, 0, &p) == 0)
			events += p.nev;
	/* the writer's packet: what it committed so far goes too */
	for (int tries = 0; tries < 4; tries++) {
		int ret = hold_one(st, closed, 1, &p);

		if (ret == 0) {
			cw = (uint64_t)p.nev << 32 | p.bytes;
			cts = p.end_ts;
		}
		if (ret != -EAGAIN)
			break;
	}
	__atomic_store_n(&h->cleared, cw, __ATOMIC_RELAXED);
	__atomic_store_n(&h->cleared_ts, cts, __ATOMIC_RELAXED);
	__atomic_store_n(&h->consumed, closed, __ATOMIC_RELEASE);
	return events;
}

/* Resident bytes of @len bytes mapped at @addr (page-aligned); 0 when unknown. */
static uint64_t hold_resident(const void *addr, size_t len)
{
	static unsigned char *vec;
	static size_t cap;
	size_t pages = (len + SHM_PAGE - 1) / SHM_PAGE;
	uint64_t n = 0;

	if (pages > cap) {
		unsigned char *nv = realloc(vec, pages);

		if (!nv)
			return 0;
		vec = nv;
		cap = pages;
	}
	if (mincore((void *)addr, len, vec) < 0)
		return 0;
	for (size_t i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n * SHM_PAGE;
}

void hold_stats(const struct c_seg *s, struct msg_c_stats *out)
{
	struct hold_pkt pk[SHM_MAX_NUM_SUBBUF];

	for (uint32_t i = 0; i < s->nslots; i++) {
		const struct c_stream *st = &s->streams[i];
		int n = hold_packets(st, 1, pk, SHM_MAX_NUM_SUBBUF);
		uint64_t b, e;

		if (n <= 0)
			continue;
		for (int k = 0; k < n; k++) {
			out->held_bytes += pk[k].bytes - pk[k].skip;
			out->held_events += pk[k].nev - pk[k].skip_ev;
		}
		b = clock_epoch_ns(s->clock, pk[0].begin_ts);
		e = clock_epoch_ns(s->clock, pk[n - 1].end_ts);
		if (b && (!out->window_begin || b < out->window_begin))
			out->window_begin = b;
		if (e > out->window_end)
			out->window_end = e;
	}
	out->mem_bytes += hold_resident(s->base, s->size);
}
