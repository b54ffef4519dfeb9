// SPDX-License-Identifier: MIT
/*
 * drain.h - the buffers' packets written out (drain.c).
 */
#ifndef SHMTRACE_CONSUMERD_DRAIN_H
#define SHMTRACE_CONSUMERD_DRAIN_H

#include <stdint.h>

struct c_seg;
struct c_stream;

/* How much of a segment to write out, each level including the previous. */
enum drain {
	DRAIN_LAZY,		/* complete packets of idle or quarter-full rings */
	DRAIN_COMPLETE,		/* every complete packet */
	DRAIN_PARTIAL,		/* and the committed part of open packets */
	DRAIN_FINAL,		/* and a packet reporting discards not yet reported */
};

/*
 * Write out what stream @st of @s holds, as @how says; returns the number
 * of ranges written (with DRAIN_LAZY, 1 when complete packets were left
 * for later). Only the stream's thread (worker.c), or the main thread
 * between rounds.
 */
int drain_stream(struct c_seg *s, struct c_stream *st, enum drain how);
/* @st's slot counters read again, and believed only as far as they can be (count.c). */
void drain_counts(const struct c_seg *s, struct c_stream *st);
/* Every stream of @s (main thread, between rounds). */
int drain_seg(struct c_seg *s, enum drain how);
/*
 * Everything committed in @s's buffers, out (DRAIN_FINAL); streamed to a
 * relay, waiting (bounded: rdata_settle()) for it to take what is left.
 */
void drain_seg_out(struct c_seg *s);
/* Is a complete packet waiting in @s? */
int drain_pending(const struct c_seg *s);
/* Everything committed in channel @chan_id's buffers, out (and stored, for a relay). */
void drain_flush(uint64_t chan_id);
/*
 * Every stream, of processes asleep too, as @how says, all workers at
 * once; open packets too for channels whose flush interval is due.
 */
int drain_all(enum drain how);
/* @st's file synced and closed, or its relay stream closed (errors recorded). */
void drain_stream_close(struct c_seg *s, struct c_stream *st);
/* The calling thread's buffers (compression, overwrite copies), freed. */
void drain_thread_fini(void);

#endif
