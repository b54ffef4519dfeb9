// SPDX-License-Identifier: MIT
/*
 * chan.h - the consumer's channels (chan.c).
 */
#ifndef SHMTRACE_CONSUMERD_CHAN_H
#define SHMTRACE_CONSUMERD_CHAN_H

#include <stdint.h>
#include <sys/types.h>
#include <urcu/urcu-memb.h>
#include <urcu/rculfhash.h>
#include "common/proto.h"

struct c_relay;
struct prog_base;

struct c_chan {
	uint64_t id;
	unsigned int slot;
	uint32_t flush_ms;
	uint32_t mode;
	uint32_t compress;		/* PROTO_COMPRESS_* */
	int memory;			/* memory-only: never drained, nothing written
					 * but snapshots (hold.c) */
	uint64_t next_flush;		/* monotonic ns */
	struct msg_c_stats gone;	/* streams already closed (stats.c) */
	int werr;			/* first write error (errno), 0 none (werr.c) */
	uint32_t werr_traces;		/* traces of the channel that met one */
	char werr_path[PROTO_PATH_MAX];	/* where the first one happened */
	struct c_relay *relay;		/* streamed there (relaydata.c), or NULL: files */
	int flush_due;			/* this round writes open packets too (worker.c) */
	char name[PROTO_NAME_MAX];
	char output[PROTO_PATH_MAX];
	char session[PROTO_NAME_MAX];	/* its session's name */
	int64_t created_s;		/* its session's create, s since the Epoch; 0: unknown */
	int out_fd;			/* the output directory once made, -1 before */
	int base_fd;			/* output[0, base_len), opened at the session's
					 * create: the rest is made under it, no link
					 * followed (the session daemon's descriptor) */
	uint32_t base_len;
	struct prog_base *base;		/* counts of traces an earlier consumer left
					 * (progress.c), sorted */
	uint32_t nbase;
	struct cds_lfht_node node;	/* in c_chan_ht, by id */
	struct rcu_head rcu;
};

/* The channels by id; see chan.c for who may walk it and when. */
extern struct cds_lfht *c_chan_ht;

#define chan_for_each(it, ch)	cds_lfht_for_each_entry(c_chan_ht, it, ch, node)

/* The table; 0 or -ENOMEM. */
int chan_init(void);
/* Once every channel was removed and no reader is left. */
void chan_fini(void);
struct c_chan *chan_find(uint64_t id);
/* A channel defined (MSG_C_CHANNEL_ADD), @fd taken; 0, -EINVAL, -ENOMEM. */
int chan_add(const struct msg_c_channel *m, int fd);
/* @ch's output directory, made (@mode) or only opened (0): a descriptor or -errno. */
int chan_output(const struct c_chan *ch, mode_t mode);
/* Its buffers drained out and closed, its traces closed, then forgotten. */
void chan_del(uint64_t id);
/* Out of the table (nothing of it left in any process), freed after a grace period. */
void chan_remove(struct c_chan *ch);
/* Mark the channels whose flush interval is due at @now; is there one? */
int chan_flush_due(uint64_t now);
/* Milliseconds from @now until the next channel flush is due, at most @max. */
int chan_flush_timeout(uint64_t now, int max);

#endif
