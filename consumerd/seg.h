/* SPDX-License-Identifier: MIT */
/*
 * stream.h - the consumer's view of traced processes, their traces and
 * buffer streams.
 */
#ifndef SHMTRACE_CONSUMERD_STREAM_H
#define SHMTRACE_CONSUMERD_STREAM_H

#include <pthread.h>
#include <stdint.h>
#include <urcu/urcu-memb.h>
#include <urcu/list.h>
#include <urcu/rculfhash.h>
#include "ctfmeta.h"
#include "net.h"
#include "proto.h"
#include "ringbuf.h"
#include "shm.h"

struct c_chan {
	uint64_t id;
	unsigned int slot;
	uint32_t flush_ms;
	uint32_t mode;
	uint32_t compress;		/* PROTO_COMPRESS_* */
	uint64_t next_flush;		/* monotonic ns */
	struct msg_c_stats gone;	/* streams already closed */
	int werr;			/* first write error (errno), 0 none */
	uint32_t werr_traces;		/* traces of the channel that met one */
	char werr_path[PROTO_PATH_MAX];	/* where the first one happened */
	struct c_relay *relay;		/* streamed there (net.c), or NULL: files */
	int flush_due;			/* this round writes open packets too (worker.c) */
	char name[PROTO_NAME_MAX];
	char output[PROTO_PATH_MAX];
	struct cds_lfht_node node;	/* in c_chan_ht, by id */
	struct rcu_head rcu;
};

/*
 * One CTF trace: a process's output in one session. Its streams may be
 * drained by different workers at once: `lock` serialises what they share
 * (starting the trace, its metadata); the rest is the main thread's,
 * between rounds.
 */
struct c_trace {
	pthread_mutex_t lock;
	struct c_chan *chan;		/* the session's channel */
	struct c_app *app;
	int rotated;			/* no trace on disk (moved to a chunk, or it could
					 * not be made): start one at the next packet */
	int meta_bad;			/* metadata could not be restored: unusable */
	int werr;			/* its first write error (errno), 0 none */
	char dir[PROTO_PATH_MAX + 64];	/* streamed: the path on the relay */
	int meta_fd;			/* streamed: a memfd, sent as it grows */
	struct net_stream net_meta;	/* streamed: the metadata stream */
	uint64_t net_meta_sent;		/* bytes of metadata sent */
	unsigned int starts;		/* times started */
	uint32_t nev_written;		/* event ids described in the metadata */
	uint32_t classes;		/* stream classes declared: bit 1 << context */
	struct ctf_trace_info info;
	struct c_trace *next;
};

struct c_seg;

struct c_stream {
	struct c_seg *seg;
	int worker;			/* its worker (worker.c), -1: the main thread's */
	int parked;			/* in that thread's parked list */
	uint32_t widx;			/* its place in that list */
	struct rb_slot rb;
	struct rb_reader rd;
	uint32_t number;		/* stream_instance_id */
	int fd;				/* -1 until the first packet */
	int broken;			/* corrupt counters: no longer read */
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
	struct net_stream net;		/* streamed: its relay stream */
};

struct c_seg {
	struct c_chan *chan;
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

struct c_app {
	uint64_t id;
	uint32_t pid;
	uint32_t clock;			/* CLOCK_KIND_* */
	char procname[PROTO_PROCNAME];
	struct shm_proc_page *proc;
	uint64_t nobuf_base[SHM_MAX_CHAN];	/* lost_nobuf when each channel began */
	int efd;
	struct proto_event *ev;		/* by id; name[0] == 0: unknown */
	uint32_t nev;
	struct c_trace *traces;
	struct c_seg *segs;
	int asleep;			/* consumer_sleeping set: its streams parked */
	uint64_t last_data;		/* when its streams last gave something (ns) */
	struct cds_list_head awake;	/* in the list of polled processes, if !asleep */
	struct cds_lfht_node node;	/* in c_app_ht, by id */
	struct rcu_head rcu;
};

/*
 * The registries: lock-free RCU hash tables by id. Only the main thread
 * adds and removes (call_rcu frees); lookups and walks hold the RCU read
 * lock (the main thread holds it while it runs, see consumerd.c).
 */
extern struct cds_lfht *c_app_ht, *c_chan_ht;

#define capp_for_each(it, a)	cds_lfht_for_each_entry(c_app_ht, it, a, node)
#define chan_for_each(it, ch)	cds_lfht_for_each_entry(c_chan_ht, it, ch, node)

int registries_init(void);
void registries_fini(void);
struct c_chan *chan_find(uint64_t id);
struct c_app *capp_find(uint64_t id);
void chan_insert(struct c_chan *ch);
void capp_insert(struct c_app *a);
/* Out of the registry; freed after a grace period. */
void chan_remove(struct c_chan *ch);
int capp_add_events(struct c_app *a, const char *body, size_t len);
int seg_add(struct c_app *a, const struct msg_segment *m, int fd);
/* How much of a segment to write out, each level including the previous. */
enum drain {
	DRAIN_LAZY,		/* complete packets of idle or quarter-full rings */
	DRAIN_COMPLETE,		/* every complete packet */
	DRAIN_PARTIAL,		/* and the committed part of open packets */
	DRAIN_FINAL,		/* and a packet reporting discards not yet reported */
};

/* Write out a segment's streams; returns the number of ranges written
 * (or left waiting by DRAIN_LAZY). */
int seg_drain(struct c_seg *s, enum drain how);
/* One stream (worker.c calls it for its own streams). */
int stream_drain(struct c_seg *s, struct c_stream *st, enum drain how);
/* A worker thread's buffers (compression, overwrite copies), freed. */
void stream_thread_fini(void);
void seg_free(struct c_seg *s);
/* Everything committed in a channel's buffers, out (and stored, for a relay). */
void chan_flush(uint64_t chan_id);
/* Drain and close everything of @a, out of the registry, freed after a grace period. */
void capp_free(struct c_app *a);
void chan_drop(struct c_chan *ch);
void stats_chan(uint64_t chan_id, struct msg_c_stats *st);
uint64_t capp_nobuf(const struct c_app *a, unsigned int slot);
void capp_nobuf_start(struct c_app *a, unsigned int slot);
int seg_pending(const struct c_seg *s);

/* The trace clocks as this consumer describes them (consumerd.c). */
struct c_clock {
	int ok;
	char name[16];
	char desc[64];
	char uuid[37];
	uint64_t freq;
	int64_t offset_s;
	uint64_t offset;		/* ticks */
};
extern struct c_clock c_clocks[2];	/* by CLOCK_KIND_* */

uint64_t clock_now(uint32_t kind);

int rotate_output(const char *output, const char *chunk);

/* A stream's id in its trace: channels share the trace directory. */
static inline uint64_t stream_instance_id(const struct c_seg *s, const struct c_stream *st)
{
	return (uint64_t)s->chan->slot * SHM_MAX_SLOTS + st->number;
}

/* The whole metadata of a trace of @a described by @info, with the stream
 * classes @classes (bit 1 << context; class 0 always), written to @fd. */
int trace_meta_write(int fd, const struct c_app *a, const struct ctf_trace_info *info,
		     uint32_t classes);

/*
 * snapshot.c: copy what the buffers of the channels writing where channel
 * @chan_id writes (its session's) hold into traces under @output. -ENOENT,
 * and nothing made, when no process has buffers in them.
 */
int snapshot_chan(uint64_t chan_id, const char *output);

#endif
