// SPDX-License-Identifier: MIT
/*
 * trace.h - the consumer's CTF traces, one per process and session output
 * (trace.c).
 */
#ifndef SHMTRACE_CONSUMERD_TRACE_H
#define SHMTRACE_CONSUMERD_TRACE_H

#include <pthread.h>
#include <stdint.h>
#include "support/ctfmeta.h"
#include "relaydata.h"
#include "common/proto.h"

struct c_app;
struct c_chan;
struct c_seg;

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
	int werr;			/* its first write error (errno), 0 none (werr.c) */
	char dir[PROTO_PATH_MAX + 64];	/* its path (streamed: the path on the relay) */
	int dir_fd;			/* files: its directory, -1 when none */
	int prog_fd;			/* files: its progress file (progress.c), -1 */
	uint32_t prog_next;		/* the next record of the progress file */
	struct prog_rec *prog_old;	/* records of an adopted trace, by index */
	uint32_t prog_nold;
	int meta_fd;			/* streamed: a memfd, sent as it grows */
	struct rdata_stream net_meta;	/* streamed: the metadata stream */
	uint64_t net_meta_sent;		/* bytes of metadata sent */
	unsigned int starts;		/* times started */
	int adopt_tried;		/* its first start looked for a trace to continue */
	uint32_t nev_written;		/* event ids described in the metadata */
	uint64_t meta_size;		/* its bytes once they were (0: unknown) */
	uint32_t classes;		/* stream classes declared: bit 1 << context */
	struct ctf_trace_info info;
	struct c_trace *next;
};

/*
 * The trace of @a for channel @ch's output, made if it is the first
 * (when it cannot be started now, the error is recorded and its next
 * packet tries again); NULL: no memory.
 */
struct c_trace *trace_get(struct c_app *a, struct c_chan *ch);
/*
 * Make @s's trace ready for a packet: on disk (or announced to the
 * relay), its metadata up to date. 0, -EAGAIN (the relay is not ready:
 * the packet waits), or -errno (recorded). Any draining thread.
 */
int trace_ready(struct c_seg *s);
/* Closed (its metadata synced, for a file trace), freed. Main thread. */
void trace_free(struct c_trace *t);

#endif
