// SPDX-License-Identifier: MIT
/*
 * seg.h - a traced process's buffer segments and their streams (seg.c).
 */
#ifndef SHMTRACE_CONSUMERD_SEG_H
#define SHMTRACE_CONSUMERD_SEG_H

#include <stddef.h>
#include <stdint.h>
#include "chan.h"
#include "count.h"
#include "relaydata.h"
#include "common/proto.h"
#include "common/ringbuf.h"
#include "common/shm.h"

struct c_app;
struct c_trace;
struct c_seg;

/* One buffer slot: one CTF stream. */
struct c_stream {
	struct c_seg *seg;
	int worker;			/* its worker (worker.c), -1: the main thread's */
	int parked;			/* in that thread's parked list */
	uint32_t widx;			/* its place in that list */
	struct rb_slot rb;
	struct rb_reader rd;
	struct cnt disc;		/* the slot's discards, as believed (count.c) */
	struct cnt over;		/* ... and overwritten events */
	uint32_t number;		/* stream_instance_id */
	int fd;				/* -1 until the first packet */
	int32_t rec;			/* its record in the trace's progress file, -1: none */
	int broken;			/* corrupt counters or events: no longer read */
	uint64_t dlost;			/* events of a range that was not whole events */
	int torn;			/* a failed write could not be undone: no longer written */
	uint64_t fsize;			/* bytes in the file */
	uint64_t nlink_at;		/* when its link count was last looked at (ns) */
	uint64_t seq;			/* next packet_seq_num */
	uint64_t fd_packets;		/* packets written */
	uint64_t discarded;		/* last events_discarded written (absolute) */
	uint64_t disc_base;		/* discards before the current chunk */
	uint64_t lost_seen;		/* rd.lost_packets already skipped in seq */
	uint64_t last_closed;		/* the slot's closed counter at the last look */
	uint64_t bytes;
	uint64_t wlost;			/* events lost to write errors */
	uint64_t ev_base;		/* events - wlost before its current trace (progress.c) */
	uint64_t snap_budget;		/* bytes a snapshot may write of it (snapshot.c) */
	uint64_t free_ns;		/* when its slot went back to the pool, 0: not free (reclaim.c) */
	uint64_t populated;		/* sub-buffers whose pages drain.c allocated (bit i: i),
					 * cleared when they are given back (reclaim.c) */
	uint64_t pop_base;		/* the slot's closed counter then */
	struct rdata_stream net;		/* streamed: its relay stream */
};

struct c_seg {
	struct c_chan *chan;
	uint32_t seg_index;		/* its index in the process's pool */
	uint64_t dev, ino;		/* its memfd: the same segment described again */
	uint32_t clock;			/* CLOCK_KIND_* of its timestamps */
	uint32_t context;		/* SHMTRACE__CTX_*: its stream class */
	struct shm_proc_page *proc;	/* its process's page */
	const uint64_t *nobuf_base;	/* its process's lost_nobuf before the channel */
	struct c_trace *trace;
	char *base;
	size_t size;
	uint32_t nslots;
	struct c_stream *streams;
	struct c_seg *next;
};

/*
 * Map segment @m of @a from memfd @fd (the caller's, still), its streams
 * given to the draining threads. 0; -EINVAL for a description that does
 * not fit the channel; else the -errno of the step that failed (the
 * memfd's check, mmap, an allocation), logged.
 */
int seg_add(struct c_app *a, const struct msg_segment *m, int fd);
/* Its streams closed (drain them out first), its memory unmapped, freed. */
void seg_free(struct c_seg *s);

/* A stream's id in its trace: channels share the trace directory. */
static inline uint64_t seg_instance_id(const struct c_seg *s, const struct c_stream *st)
{
	return (uint64_t)s->chan->slot * SHM_MAX_SLOTS + st->number;
}

/* Has @st a file, or a stream on the relay? */
static inline int seg_stream_is_open(const struct c_stream *st)
{
	return st->fd >= 0 || st->net.state == NET_READY;
}

#endif
