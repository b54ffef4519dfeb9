// SPDX-License-Identifier: MIT
/*
 * drain.c - the buffers' packets written out: each buffer slot of a
 * segment is one CTF stream, written to `<trace>/<channel>_<slot>` (or
 * sent to a relay, relaydata.c).
 *
 * Every range that rb_next() returns becomes one packet: an 84-byte header
 * and context built here, then the events copied as they are (one LZ4
 * frame per packet for an LZ4 channel, compress.c). A stream's
 * events_discarded is kept monotonic and includes, for the channel's
 * first stream, the events the process could not give any buffer to
 * (lost_nobuf), so that events emitted == events in the trace + events
 * reported discarded.
 *
 * Shared memory, the slots' headers and sub-buffers, is never trusted:
 * every index and length read from a slot is checked by rb_next(), and a
 * slot with corrupt counters is marked broken and no longer read. What is
 * read and what is written (common/ringbuf.c has the whole protocol):
 *   - `closed` (acquire load) pairs with the writer's release store when
 *     it completes a packet: the packet's bytes and descriptor are
 *     visible once `closed` says it is complete;
 *   - `consumed` (release store, rb_done(), after a packet was written
 *     out whole) pairs with the writer's acquire load before it reuses the
 *     sub-buffer: the writer never overwrites a packet being copied (in
 *     discard mode; in overwrite mode the copy is checked afterwards,
 *     rb_still_valid(), and thrown away if the writer took it meanwhile);
 *   - a slot released by its thread (state, acquire) whose last packet
 *     was consumed goes back to the pool: free (compare-and-swap,
 *     release), for the process's next thread to take.
 *
 * Who writes: a stream's reader state and file belong to its thread
 * (worker.c): one thread at a time drains a stream, so none of it needs a
 * lock; the main thread touches them only between rounds. What the
 * threads share is a trace's start and metadata (trace.c, under its lock)
 * and the first write errors (werr.c). The overwrite copies and the
 * compression buffers are per thread.
 *
 * The consumer also makes the pages of the sub-buffers a busy writer is
 * about to take (stream_populate(): allocated and zeroed in the memfd,
 * nothing written, so it cannot disturb the ring), so that the writer's
 * first lap only maps them.
 *
 * Write errors (no space, I/O error, read-only file system, the trace
 * directory removed: a file whose link count fell to 0) never stop the
 * draining: the packet that could not be written is dropped and its events
 * counted as lost to write errors (events emitted == events in the trace +
 * reported discarded + lost to write errors), and the next packet is tried
 * as usual, so writers never wait and the consumer never spins. A failed
 * append is undone (the file truncated back), so a stream file holds whole
 * packets only; a lost packet leaves a gap in packet numbers. The first
 * error of each trace and channel is recorded (werr.c).
 *
 * After each range, the stream's progress record is written, then
 * `consumed` moves (progress.c): a crash of the consumer at any step
 * leaves a file the next consumer cuts back to its record and continues
 * from the ring, exactly. A range that is not whole events is not
 * written: its stream is closed (frame.c). A crash of a writer leaves its
 * committed events, which are drained as usual (the open packet up to its
 * last commit).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "clock.h"
#include "compress.h"
#include "drain.h"
#include "frame.h"
#include "support/log.h"
#include "progress.h"
#include "reclaim.h"
#include "seg.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "werr.h"
#include "worker.h"

/* overwrite mode: ranges are copied here before they are checked and written */
static __thread char *c_scratch;
static __thread size_t c_scratch_size;

void drain_thread_fini(void)
{
	free(c_scratch);
	c_scratch = NULL;
	c_scratch_size = 0;
	compress_thread_fini();
}

/* Events the process could not give any buffer: charged to stream 0. */
static uint64_t stream_nobuf(const struct c_seg *s, const struct c_stream *st)
{
	if (st->number != 0 || !s->proc)
		return 0;
	return capp_nobuf(s->trace->app, s->chan->slot);
}

void drain_counts(const struct c_seg *s, struct c_stream *st)
{
	uint64_t now = cnt_now();

	if (!cnt_see(&st->disc, rb_discarded(&st->rb), now, 1))
		capp_lied(s->trace->app, "discarded events");
	if (!cnt_see(&st->over, __atomic_load_n(&st->rb.hdr->overrun, __ATOMIC_RELAXED), now, 1))
		capp_lied(s->trace->app, "overwritten events");
}

static uint64_t stream_discarded(const struct c_seg *s, const struct c_stream *st)
{
	return st->disc.val + stream_nobuf(s, st);
}

static void stream_path(const struct c_seg *s, const struct c_stream *st, char *buf, size_t len)
{
	if (s->chan->relay)
		snprintf(buf, len, "%.255s/%.3700s/%s_%u", s->chan->relay->url, s->trace->dir,
			 s->chan->name, st->number);
	else
		snprintf(buf, len, "%s/%s_%u", s->trace->dir, s->chan->name, st->number);
}

static int stream_open(struct c_seg *s, struct c_stream *st)
{
	char path[PROTO_PATH_MAX + 256], name[PROG_NAME_MAX];
	struct stat sb;
	int ret;

	if (s->chan->relay) {
		ret = rdata_stream_open(s, st);
		if (ret < 0 && ret != -EAGAIN) {
			stream_path(s, st, path, sizeof(path));
			werr_record(s->chan, s->trace, path, -ret);
		}
		return ret;
	}
	stream_path(s, st, path, sizeof(path));
	snprintf(name, sizeof(name), "%s_%u", s->chan->name, st->number);
	st->fd = openat(s->trace->dir_fd, name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
			O_CLOEXEC, 0640);
	if (st->fd < 0 || fstat(st->fd, &sb) < 0) {
		ret = -errno;
		goto fail;
	}
	st->fsize = (uint64_t)sb.st_size;
	st->nlink_at = now_ns(CLOCK_MONOTONIC);
	/* no packet without a record of it: a consumer that comes after us
	 * must know where this file's whole packets end (progress.c) */
	ret = prog_stream_new(s, st);
	if (ret == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", s->trace->dir, PROG_FILE);
fail:
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	werr_record(s->chan, s->trace, path, -ret);
	return ret;
}

/*
 * @st's record brought up to date, before the slot's `consumed` moves
 * (progress.c); an error is recorded (a consumer after a crash would then
 * count what follows the record as lost, not write it twice).
 */
static void stream_saved(struct c_seg *s, const struct c_stream *st)
{
	char path[PROTO_PATH_MAX + 256];
	int ret = prog_save(s, st);

	if (ret < 0) {
		snprintf(path, sizeof(path), "%s/%s", s->trace->dir, PROG_FILE);
		werr_record(s->chan, s->trace, path, -ret);
	}
}

/*
 * Append one packet of @len bytes to @st's file, all of it or nothing: a
 * partial write is truncated away. A file whose link count is 0 was
 * removed (it or its directory; looked at every NLINK_NS of writing):
 * -ENOENT, and the next packet opens the file again (a new file, counted
 * from there on, as after a rotation).
 */
#define NLINK_NS	100000000u

static int stream_write(struct c_stream *st, struct iovec *iov, int niov, size_t len)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	struct stat sb;
	int ret;

	if (now - st->nlink_at >= NLINK_NS) {
		st->nlink_at = now;
		if (fstat(st->fd, &sb) < 0)
			return -errno;
		if (sb.st_nlink == 0) {
			close(st->fd);
			st->fd = -1;
			st->fd_packets = 0;
			st->disc_base = st->discarded;
			return -ENOENT;
		}
	}
	ret = writev_all(st->fd, iov, niov);
	if (ret == 0)
		st->fsize += len;
	else if (ftruncate(st->fd, (off_t)st->fsize) < 0)
		st->torn = 1;	/* cut in the middle of a packet: no more writes */
	return ret;
}

/*
 * Write one packet around @rg; @disc is the stream's discard count to
 * report in it (kept monotonic). A stream's first packet reporting discards
 * or lost packets is preceded by an empty one reporting none, numbered 0,
 * so that readers can say between which times the events were lost.
 */
static int stream_packet(struct c_seg *s, struct c_stream *st, const struct rb_range *rg,
			 uint64_t disc)
{
	struct c_relay *relay = s->chan->relay;
	char path[PROTO_PATH_MAX + 256];
	uint8_t hdr[CTF_PACKET_HDR];
	struct ctf_packet p;
	struct iovec iov[2];
	ssize_t n = 0;
	int ret;

	if (st->torn)
		return -EIO;	/* recorded when it happened */
	if (relay && !rdata_room(s)) {
		rdata_deferred++;
		return -EAGAIN;
	}
	ret = trace_ready(s);
	if (ret < 0)
		return ret;
	if (!seg_stream_is_open(st) && (ret = stream_open(s, st)) < 0)
		return ret;
	if (disc < st->discarded)
		disc = st->discarded;
	if (st->fd_packets == 0 && (disc > st->disc_base || st->seq > 0)) {
		struct rb_range empty = *rg;
		uint64_t seq = st->seq;

		/* what was lost before the first packet, said by an empty one */
		empty.len = 0;
		empty.end_ts = empty.begin_ts;
		st->seq = 0;
		ret = stream_packet(s, st, &empty, 0);
		if (seq > st->seq)
			st->seq = seq;
		if (ret < 0)
			return ret;
	}
	p.stream_id = s->context;
	p.stream_instance_id = seg_instance_id(s, st);
	p.ts_begin = rg->begin_ts;
	p.ts_end = rg->end_ts;
	p.content_bytes = CTF_PACKET_HDR + rg->len;
	p.seq = st->seq;
	p.discarded = disc - st->disc_base;	/* a chunk counts from its start */
	p.tid = (uint32_t)rg->tid;
	ctf_packet_header(hdr, &s->trace->info, &p);
	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)rg->data;
	iov[1].iov_len = rg->len;
	if (relay) {
		n = (ssize_t)p.content_bytes;
		ret = rdata_packet(s, st, hdr, &p, rg->data, rg->len, rg->nev);
	} else if (s->chan->compress == PROTO_COMPRESS_LZ4) {
		const void *frame = NULL;

		n = compress_lz4(hdr, rg->data, rg->len, &frame);
		iov[0].iov_base = (void *)frame;
		iov[0].iov_len = (size_t)n;
		ret = n < 0 ? (int)n : stream_write(st, iov, 1, (size_t)n);
	} else {
		n = (ssize_t)p.content_bytes;
		ret = stream_write(st, iov, rg->len ? 2 : 1, (size_t)n);
	}
	if (ret < 0) {
		stream_path(s, st, path, sizeof(path));
		werr_record(s->chan, s->trace, path, -ret);
		return ret;
	}
	st->bytes += (uint64_t)n;	/* on disk */
	st->seq++;
	st->fd_packets++;
	st->discarded = disc;
	return 0;
}

/*
 * The range @rg of @st is not the events its process claims (frame.c): it
 * scribbled over its own buffer. The stream is closed there, its file
 * holding the whole packets before; its events from there on are lost
 * (the range's counted, the later ones discarded by the writer as its
 * ring fills), and status names it.
 */
static void stream_damaged(struct c_seg *s, struct c_stream *st, const struct rb_range *rg,
			   uint32_t bad)
{
	log_err("%s: stream %s_%u: packet %llu holds no valid events from byte %u (its "
		"process writes over its own buffers): the stream is closed at %llu bytes, "
		"%u events lost", s->trace->dir, s->chan->name, st->number,
		(unsigned long long)st->rd.rseq, st->rd.flushed + bad,
		(unsigned long long)st->fsize, rg->nev);
	st->dlost += rg->nev;
	st->broken = 1;
	drain_stream_close(s, st);
}

/*
 * The pages of the next sub-buffers an owned slot's writer will take,
 * allocated here (MADV_POPULATE_WRITE on our mapping: the memfd's pages
 * made and zeroed, nothing written) rather than by the writer in its
 * first lap, which then only maps them (libtrace/pool.c): the first lap
 * of a busy thread costs less (bench/README.md). At most DRAIN_AHEAD
 * sub-buffers past the one it writes in, and never more than were
 * completed since the pages were last given back (reclaim.c), so that a
 * thread's memory still grows with what it writes (at most twice that).
 * Each sub-buffer once, until reclaim.c gives the slot's pages back.
 */
#define DRAIN_AHEAD	4

static int drain_no_populate;

static void stream_populate(struct c_stream *st)
{
	const struct rb_slot *r = &st->rb;
	uint64_t all = r->num_subbuf >= 64 ? ~0ull : (1ull << r->num_subbuf) - 1, closed;

	if ((st->populated & all) == all || __atomic_load_n(&drain_no_populate, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&r->hdr->state, __ATOMIC_ACQUIRE) != SHM_SLOT_OWNED)
		return;
	closed = __atomic_load_n(&r->hdr->closed, __ATOMIC_ACQUIRE);
	for (uint64_t k = 1; k <= DRAIN_AHEAD && k <= closed - st->pop_base; k++) {
		uint32_t i = (uint32_t)((closed + k) % r->num_subbuf);

		if (st->populated & (1ull << i))
			continue;
		/* not asked again: the writer faults in what could not be made
		 * (no memory, a memfd cut short; before Linux 5.14, none) */
		if (madvise(r->data + (size_t)i * r->subbuf_size, r->subbuf_size,
			    MADV_POPULATE_WRITE) < 0 && errno == EINVAL)
			__atomic_store_n(&drain_no_populate, 1, __ATOMIC_RELAXED);
		st->populated |= 1ull << i;
	}
}

/*
 * Write out what @st holds; returns the number of ranges written (with
 * DRAIN_LAZY, 1 when complete packets were left for later). DRAIN_LAZY
 * leaves the complete packets of a writer that published one since the
 * previous look and has three quarters of its ring free: the consumer does
 * its work in the writer's pauses, or in large batches, rather than taking
 * the CPU from a busy writer every time it looks.
 */
int drain_stream(struct c_seg *s, struct c_stream *st, enum drain how)
{
	int partial = how >= DRAIN_PARTIAL, final = how == DRAIN_FINAL;
	struct rb_range rg;
	int ret, done, written = 0;
	uint32_t bad;

	if (st->broken || s->chan->memory)
		return 0;	/* (memory-only: only snapshots copy it, chan.c) */
	drain_counts(s, st);
	if (st->rb.mode == SHM_MODE_OVERWRITE && st->rb.subbuf_size > c_scratch_size) {
		char *nb = realloc(c_scratch, st->rb.subbuf_size);

		if (!nb)
			return 0;	/* nothing read: the next look tries again */
		c_scratch = nb;
		c_scratch_size = st->rb.subbuf_size;
	}
	stream_populate(st);
	if (how == DRAIN_LAZY) {
		uint64_t closed = __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE);
		int busy = closed != st->last_closed;

		/* while its writer is busy and has room, leave it alone */
		st->last_closed = closed;
		if (busy && closed - st->rd.rseq < st->rb.num_subbuf / 4)
			return 1;
	}
	/* in the loop, at most a ring's worth per visit: requests wait for no
	 * writer; a flush or a final drain takes everything */
	while ((how >= DRAIN_PARTIAL || written <= (int)st->rb.num_subbuf) &&
	       (ret = rb_next(&st->rb, &st->rd, partial, &rg)) == 1) {
		if (st->rb.mode == SHM_MODE_OVERWRITE && rg.len) {
			/* copy, then check that the writer did not overwrite it meanwhile */
			memcpy(c_scratch, rg.data, rg.len);
			if (!rb_still_valid(&st->rb, &st->rd)) {
				rb_skip(&st->rb, &st->rd);
				continue;
			}
			rg.data = c_scratch;
		}
		/* packets overwritten before they were read: a gap in packet numbers */
		st->seq += st->rd.lost_packets - st->lost_seen;
		st->lost_seen = st->rd.lost_packets;
		if (rg.len && frame_check(s->trace->app, s->context, &rg, &bad) < 0) {
			stream_damaged(s, st, &rg, bad);
			return written;
		}
		if (rg.len) {
			/* the slot's discards when the packet opened: no more than
			 * we believe of them now */
			int pr = stream_packet(s, st, &rg, (rg.disc < st->disc.val ? rg.disc :
							    st->disc.val) + stream_nobuf(s, st));

			if (pr == -EAGAIN)
				break;	/* the relay cannot take it now: it stays */
			if (pr < 0) {
				/* not written: lost, counted, a gap in packet numbers; go on */
				st->wlost += rg.nev;
				st->seq++;
			}
		}
		done = rb_move(&st->rd, &rg);
		stream_saved(s, st);
		if (done)
			rb_publish(&st->rb, &st->rd);
		written++;
	}
	if (ret < 0) {
		log_err("%s: stream %u has corrupt counters; no longer read", s->trace->dir,
			st->number);
		st->broken = 1;
		drain_stream_close(s, st);
		return written;
	}
	/* report discards that no packet carried yet */
	if (final && stream_discarded(s, st) > st->discarded &&
	    (seg_stream_is_open(st) || st->number == 0)) {
		uint64_t now = clock_now(s->clock);

		rg.data = NULL;
		rg.len = 0;
		rg.nev = 0;
		rg.begin_ts = st->rd.last_end > now ? st->rd.last_end : now;
		rg.end_ts = rg.begin_ts;
		rg.tid = 0;
		if (stream_packet(s, st, &rg, stream_discarded(s, st)) == 0) {
			st->rd.last_end = rg.end_ts;
			stream_saved(s, st);
		}
	}
	/* a buffer whose thread is gone goes back to the pool once drained */
	if (__atomic_load_n(&st->rb.hdr->state, __ATOMIC_ACQUIRE) == SHM_SLOT_RELEASED &&
	    __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE) == st->rd.rseq) {
		uint32_t expect = SHM_SLOT_RELEASED;

		if (__atomic_compare_exchange_n(&st->rb.hdr->state, &expect, SHM_SLOT_FREE, 0,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			reclaim_note_free(st, now_ns(CLOCK_MONOTONIC));
	}
	return written;
}

int drain_seg(struct c_seg *s, enum drain how)
{
	int written = 0;

	for (uint32_t i = 0; i < s->nslots; i++)
		written += drain_stream(s, &s->streams[i], how);
	return written;
}

/*
 * Everything committed in @s's buffers, out (DRAIN_FINAL); streamed to a
 * relay, waiting (bounded: rdata_settle) for it to take what is left.
 */
void drain_seg_out(struct c_seg *s)
{
	struct c_relay *r = s->chan->relay;

	for (;;) {
		rdata_deferred = 0;
		drain_seg(s, DRAIN_FINAL);
		if (!r || !rdata_deferred || r->err)
			return;
		rdata_settle(r, 0);
	}
}

void drain_flush(uint64_t chan_id)
{
	struct c_chan *ch = chan_find(chan_id);
	struct cds_lfht_iter it;
	struct c_app *a;

	if (!ch)
		return;
	if (!ch->relay) {
		/* files: every worker at once */
		wk_round(DRAIN_FINAL, ch, 1, now_ns(CLOCK_MONOTONIC));
		return;
	}
	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s; s = s->next)
			if (s->chan == ch)
				drain_seg_out(s);
	/* the relay's word that all of it is stored */
	rdata_settle(ch->relay, 1);
}

/* Is a complete packet waiting in this segment? */
int drain_pending(const struct c_seg *s)
{
	for (uint32_t i = 0; !s->chan->memory && i < s->nslots; i++) {
		const struct c_stream *st = &s->streams[i];

		if (!st->broken &&
		    __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE) != st->rd.rseq)
			return 1;
	}
	return 0;
}

int drain_all(enum drain how)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	chan_flush_due(now);
	return wk_round(how, NULL, 1, now);
}

void drain_stream_close(struct c_seg *s, struct c_stream *st)
{
	char path[PROTO_PATH_MAX + 256];
	int err = 0;

	if (s->chan->relay)
		rdata_stream_close(s, st);
	if (st->fd < 0)
		return;
	/* the last chance to hear of a write the disk failed after all */
	if (fsync(st->fd) < 0 && errno != EINVAL)
		err = errno;
	if (close(st->fd) < 0 && !err && errno != EINTR)
		err = errno;
	st->fd = -1;
	if (err) {
		stream_path(s, st, path, sizeof(path));
		werr_record(s->chan, s->trace, path, err);
	}
}
