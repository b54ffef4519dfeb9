/* SPDX-License-Identifier: MIT */
/*
 * seg.h - the memory a traced process shares with the daemons besides its
 * pages: its segments, of buffers or of aggregation tables (seg.c).
 */
#ifndef SHMTRACE_SESSIOND_SEG_H
#define SHMTRACE_SESSIOND_SEG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/proto.h"

/* What a segment holds; its owner is a channel or an aggregation. */
enum seg_kind {
	SEG_BUF,		/* buffer slots of a channel: MSG_APP_SEGMENT, MSG_C_SEGMENT */
	SEG_AGG,		/* tables of an aggregation: MSG_APP_AGG_SEG, MSG_C_AGG_SEG */
	SEG_NKINDS,
};

/* What the two descriptions have alike, at the same places. */
struct seg_head {
	uint64_t app_id;		/* to the consumer: the process's */
	uint64_t owner;			/* channel or aggregation id */
	uint64_t size;
	uint32_t slot;			/* the owner's slot in the control page */
	uint32_t index;			/* the segment's index in the process's pool */
	uint32_t first;			/* its first buffer slot or table */
	uint32_t count;			/* buffer slots or tables */
};

/* A segment: its description as the process sent it, and its memfd. */
struct seg {
	enum seg_kind kind;
	int fd;
	union {
		struct seg_head head;
		struct msg_segment buf;
		struct msg_agg_seg agg;
	} m;
};

/* A process's segments, in the order they came. */
struct segs {
	struct seg *v;
	uint32_t n;
};

/* Who sent a segment: for the checks and the log. */
struct seg_from {
	uint64_t app_id;
	uid_t uid;
	pid_t pid;
	const char *procname;
};

/* The kind of message @type (MSG_APP_SEGMENT or MSG_APP_AGG_SEG), or -1. */
int seg_kind_of(unsigned int type);
/*
 * A segment of kind @kind described by @msg, its memfd @fd (ours from
 * now on): checked, kept in @v and given to the consumer; one already
 * known (described again after a new registration) is kept once, one
 * whose owner is gone is closed. 0; -EPROTO when malformed or not the
 * segment known by that index (logged), -ENOMEM.
 */
int seg_take(struct segs *v, const struct seg_from *from, enum seg_kind kind, const void *msg,
	     int fd);
/* A new consumer: every segment of @v given to it. */
void segs_replay(const struct segs *v);
/* The segments of @kind owned by @owner closed and forgotten (their owner is gone). */
void segs_forget(struct segs *v, enum seg_kind kind, uint64_t owner);
/* All closed and freed. */
void segs_release(struct segs *v);
/* Events committed in @v's buffer segments of channel @chan_id not consumed yet (at
 * most); the buffers holding some added to *@bufs. */
uint64_t segs_pending(const struct segs *v, uint64_t chan_id, uint64_t *bufs);

#endif
