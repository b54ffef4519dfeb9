/* SPDX-License-Identifier: MIT */
/*
 * ringbuf.c - the per-thread ring buffer protocol.
 *
 * A slot (one thread's buffer, see shm.h) holds num_subbuf sub-buffers used
 * as a ring of packets numbered 0, 1, 2... Packet n lives in sub-buffer
 * n % num_subbuf. There is exactly one writer at a time, the owning
 * thread, so the writer needs no atomic read-modify-write: every field has
 * a single writer and is published with a release store.
 *
 * Fields and who writes them:
 *   slot.closed       writer; packets 0..closed-1 are complete (release)
 *   slot.discarded    writer; events dropped, buffer full or event too big
 *   slot.lost_nested  writer's signal handlers; atomic add
 *   slot.consumed     consumer; packets 0..consumed-1 are on disk (release);
 *                     in a memory-only channel, which the consumer never
 *                     drains, those a clear discarded
 *   slot.cleared,     consumer, memory-only channels: how much of packet
 *   slot.cleared_ts   `consumed` the clear discarded (events << 32 | bytes,
 *                     whole events) and the time of the last of them; read
 *                     by the consumer only (snapshots), never by the writer
 *   sb.pseq           writer; the packet number the sub-buffer holds (release,
 *                     after commit and begin_ts were reset)
 *   sb.commit.word    writer; events << 32 | bytes committed (release, one
 *                     per event: this store is the commit)
 *   sb.commit.last_ts writer; timestamp of the newest event, stored before
 *                     that event's commit
 *   sb.disc_open      writer; the slot's discards when the packet was opened,
 *                     so that the consumer reports discards at the packet
 *                     that follows them, not at the first one it writes
 *
 * Writer: an event is written at the write position, then committed by a
 * release store of the new commit word. When an event does not fit, the
 * packet is closed (release store of closed + 1) and packet `closed` is
 * opened in the next sub-buffer, if the consumer has consumed the packet
 * that used it last (acquire load of consumed): in discard mode the event
 * is otherwise dropped and counted, and the writer retries at its next
 * event. In overwrite mode (flight recorder) the writer takes the
 * sub-buffer anyway: the oldest packet is lost, its events are counted in
 * `overrun`, and the consumer sees the gap in packet numbers. A writer
 * never waits.
 *
 * Overwrite mode and the consumer: a packet may be overwritten while the
 * consumer copies it. The writer first sets the sub-buffer's pseq to an
 * impossible value (then a release fence), resets its descriptor, stores
 * the new pseq (release, then a release fence) and only then writes into
 * it; the consumer copies a range into private memory, then (acquire
 * fence) checks that pseq still names the packet it read
 * (rb_still_valid()), and throws the copy away if not, like a sequence
 * lock reader.
 *
 * Consumer: packets below `closed` (acquire) are complete and are written
 * out whole. The open packet (pseq == consumed, acquire) may be written out
 * up to its commit word too, for flushes of idle threads and after the
 * writer died; later the rest follows as another range. Each range becomes
 * its own CTF packet, so a packet on disk never straddles a flush. The
 * range's end timestamp is read between two reads of the same commit word:
 * the writer stores last_ts before each commit, so a value read between two
 * equal commit words is the last committed event's or the next (not yet
 * committed) one's: never below the range's events, never above the next
 * range's first event.
 *
 * Crash: whatever was committed (commit word release-stored) is read back
 * after the writer died, whatever step it was at; a half-written event is
 * past the commit word and ignored. A consumer that dies leaves `consumed`
 * behind: the writer drops events once the ring is full, and a new consumer
 * resumes from `consumed`.
 *
 * Nothing read here from shared memory is trusted: counters that would
 * move backwards or beyond the ring, and commit words past the sub-buffer,
 * make rb_next() return -EIO.
 */
#include <errno.h>
#include <string.h>
#include "common/ringbuf.h"

static inline uint64_t ld_acq(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void st_rel(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

int rb_open(const struct rb_slot *s, struct shmtrace__wbuf *w, uint64_t ts, int32_t tid)
{
	struct shm_slot *h = s->hdr;
	uint64_t n = h->closed;
	uint32_t idx;
	struct shm_sbmeta *m;

	idx = (uint32_t)(n % s->num_subbuf);
	m = &h->sb[idx];
	if (n - ld_acq(&h->consumed) >= s->num_subbuf) {
		if (s->mode != SHM_MODE_OVERWRITE)
			return -ENOBUFS;
		h->overrun += m->commit.word >> 32;	/* the oldest packet's events */
	}
	/* no longer the old packet, for a consumer reading it (overwrite) */
	__atomic_store_n(&m->pseq, UINT64_MAX, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	m->commit.word = 0;
	m->commit.last_ts = ts;
	m->begin_ts = ts;
	m->disc_open = h->discarded + __atomic_load_n(&h->lost_nested, __ATOMIC_RELAXED);
	m->tid = tid;
	st_rel(&m->pseq, n);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* pseq before the new data */
	w->data = s->data + (size_t)idx * s->subbuf_size;
	w->end = s->subbuf_size;
	w->commit = &m->commit;
	return 0;
}

struct shmtrace__commit rb_no_commit;

void rb_wbuf_reset(struct shmtrace__wbuf *w)
{
	w->data = NULL;
	w->end = 0;
	w->commit = &rb_no_commit;
}

/* Returns 1 when a packet was published. */
int rb_close(const struct rb_slot *s, struct shmtrace__wbuf *w)
{
	struct shm_slot *h = s->hdr;

	int open = w->commit != &rb_no_commit;

	rb_wbuf_reset(w);
	if (!open)
		return 0;
	st_rel(&h->closed, h->closed + 1);
	return 1;
}

/*
 * Make room for @need bytes. Returns 1 when the event fits in a freshly
 * opened sub-buffer, 0 when it was dropped and counted. *published is set
 * when a packet was completed, so that the caller may wake the consumer.
 */
int rb_reserve_slow(const struct rb_slot *s, struct shmtrace__wbuf *w, uint64_t need,
		    uint64_t ts, int32_t tid, int *published)
{
	struct shm_slot *h = s->hdr;

	*published = 0;
	if (need > s->subbuf_size) {
		h->discarded++;
		return 0;
	}
	if (w->commit != &rb_no_commit && (uint32_t)w->commit->word + need <= w->end)
		return 1;
	*published = rb_close(s, w);
	if (rb_open(s, w, ts, tid) < 0) {
		h->discarded++;
		return 0;
	}
	return 1;
}

uint64_t rb_discarded(const struct rb_slot *s)
{
	return __atomic_load_n(&s->hdr->discarded, __ATOMIC_RELAXED) +
	       __atomic_load_n(&s->hdr->lost_nested, __ATOMIC_RELAXED);
}

/*
 * Find the next range to write out. Returns 1 and fills @out, 0 when there
 * is nothing (more) to write, -EIO when the slot's counters are corrupt.
 * With @partial, the committed part of the open packet is returned too.
 */
int rb_next(const struct rb_slot *s, struct rb_reader *r, int partial, struct rb_range *out)
{
	struct shm_slot *h = s->hdr;
	struct shm_sbmeta *m;
	uint64_t closed, w1, w2, last;
	uint32_t idx, bytes, nev;
	int tries, skips = 0;

retry:
	closed = ld_acq(&h->closed);
	if (closed - r->rseq > s->num_subbuf) {
		if (s->mode != SHM_MODE_OVERWRITE || closed < r->rseq)
			return -EIO;
		/* overwritten before we could read them: resume at the oldest */
		r->lost_packets += closed - s->num_subbuf - r->rseq;
		r->rseq = closed - s->num_subbuf;
		r->flushed = 0;
		r->nev_flushed = 0;
	}
	idx = (uint32_t)(r->rseq % s->num_subbuf);
	m = &h->sb[idx];
	if (r->rseq < closed) {
		if (ld_acq(&m->pseq) != r->rseq) {
			if (s->mode != SHM_MODE_OVERWRITE)
				return -EIO;
			goto skip;
		}
		w1 = ld_acq(&m->commit.word);
		last = ld_acq(&m->commit.last_ts);
		out->complete = 1;
	} else {
		if (!partial || ld_acq(&m->pseq) != r->rseq)
			return 0;
		for (tries = 0;; tries++) {
			w1 = ld_acq(&m->commit.word);
			last = ld_acq(&m->commit.last_ts);
			w2 = ld_acq(&m->commit.word);
			if (w1 == w2)
				break;
			if (tries == 8)
				return 0;	/* a busy writer publishes soon */
		}
		out->complete = 0;
	}
	bytes = (uint32_t)w1;
	nev = (uint32_t)(w1 >> 32);
	if (bytes > s->subbuf_size || bytes < r->flushed || nev < r->nev_flushed) {
		/* overwrite mode: the writer may have reopened it since we looked */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (s->mode != SHM_MODE_OVERWRITE || ld_acq(&m->pseq) == r->rseq)
			return -EIO;
		goto skip;
	}
	if (!out->complete && bytes == r->flushed)
		return 0;
	out->data = s->data + (size_t)idx * s->subbuf_size + r->flushed;
	out->len = bytes - r->flushed;
	out->nev = nev - r->nev_flushed;
	out->begin_ts = m->begin_ts > r->last_end ? m->begin_ts : r->last_end;
	out->end_ts = last > out->begin_ts ? last : out->begin_ts;
	out->tid = m->tid;
	out->disc = m->disc_open;
	return 1;
skip:
	rb_skip(s, r);	/* overwritten meanwhile */
	if (++skips > 64)
		return 0;	/* a writer this fast: read later */
	goto retry;
}

/*
 * The range from rb_next() is written out: move the reader's own position
 * past it, without telling the writer yet (rb_publish()). Returns 1 when
 * that finished a packet, which rb_publish() then hands back.
 */
int rb_move(struct rb_reader *r, const struct rb_range *rg)
{
	r->flushed += rg->len;
	r->nev_flushed += rg->nev;
	r->events += rg->nev;
	if (rg->len)
		r->last_end = rg->end_ts;
	if (!rg->complete)
		return 0;
	r->rseq++;
	r->flushed = 0;
	r->nev_flushed = 0;
	return 1;
}

/* Packets before the reader's are done with: the writer may reuse them. */
void rb_publish(const struct rb_slot *s, const struct rb_reader *r)
{
	st_rel(&s->hdr->consumed, r->rseq);
}

/* The range from rb_next() is on disk: move past it, and tell the writer. */
void rb_done(const struct rb_slot *s, struct rb_reader *r, const struct rb_range *rg)
{
	if (rb_move(r, rg))
		rb_publish(s, r);
}

/*
 * Overwrite mode: after copying a range, is the packet still the one read?
 * If not, the copy may hold newer bytes and must be thrown away.
 */
int rb_still_valid(const struct rb_slot *s, const struct rb_reader *r)
{
	const struct shm_sbmeta *m = &s->hdr->sb[r->rseq % s->num_subbuf];

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&m->pseq, __ATOMIC_RELAXED) == r->rseq;
}

/* Give up the packet being read: it was overwritten. */
void rb_skip(const struct rb_slot *s, struct rb_reader *r)
{
	r->rseq++;
	r->lost_packets++;
	r->flushed = 0;
	r->nev_flushed = 0;
	st_rel(&s->hdr->consumed, r->rseq);
}
