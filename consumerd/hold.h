// SPDX-License-Identifier: MIT
/*
 * hold.h - what a stream's ring holds now, past a clear of a memory-only
 * channel: its packets, their window, the clear's mark (hold.c).
 */
#ifndef SHMTRACE_CONSUMERD_HOLD_H
#define SHMTRACE_CONSUMERD_HOLD_H

#include <stdint.h>
#include "common/proto.h"

struct c_seg;
struct c_stream;

/* One packet of a ring, as its descriptor said when it was looked at. */
struct hold_pkt {
	uint64_t seq;			/* its packet number */
	uint32_t skip;			/* bytes before a clear's mark (whole events) */
	uint32_t bytes;			/* committed bytes, the skipped ones included */
	uint32_t skip_ev;		/* events of the skipped bytes */
	uint32_t nev;			/* committed events, the skipped ones included */
	uint64_t begin_ts;		/* when it began (past a mark: the mark's time) */
	uint64_t end_ts;		/* its last event's time (read with `bytes`) */
	uint64_t disc;			/* the slot's discards when it was opened */
	int32_t tid;
	int open;			/* the writer's current packet */
};

/*
 * The packets of @st's ring from the oldest it holds (in a memory-only
 * channel, @memory, from a clear's mark on) to the open one, oldest
 * first, at most @max of them into @out: their number. A packet the writer
 * reuses meanwhile is left out (the caller checks it again when it copies
 * it); none past a descriptor that cannot be (bytes beyond the
 * sub-buffer). Any thread that owns the stream.
 */
int hold_packets(const struct c_stream *st, int memory, struct hold_pkt *out, uint32_t max);
/*
 * A clear of memory-only stream @st: what its ring holds now is
 * discarded for snapshots and status (its mark: the slot's `consumed`,
 * `cleared` and `cleared_ts`; the writer goes on unhindered). Returns the
 * events discarded that nothing else counts (the whole packets before the
 * mark; the open packet's, when the writer reuses its sub-buffer, count
 * as overwritten). Main thread.
 */
uint64_t hold_clear(struct c_stream *st);
/*
 * What memory-only segment @s holds, added to @out: resident bytes of its
 * buffers, bytes and events past the clears, the window (ns since the
 * Epoch). Main thread.
 */
void hold_stats(const struct c_seg *s, struct msg_c_stats *out);

#endif
