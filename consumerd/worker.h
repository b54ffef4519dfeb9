/* SPDX-License-Identifier: MIT */
/*
 * worker.h - the consumer's draining threads.
 *
 * Every stream belongs to one thread: a worker, or the main thread
 * (streams sent to a relay, and all of them when there is no worker), in
 * its list of polled or of parked streams.
 * wk_round() drains every list at once and returns when all are done;
 * between rounds only the main thread runs, so it alone adds, removes and
 * changes apps, channels, segments and streams.
 */
#ifndef SHMTRACE_CONSUMERD_WORKER_H
#define SHMTRACE_CONSUMERD_WORKER_H

#include <stdint.h>
#include "drain.h"

struct c_chan;
struct c_stream;

/*
 * At most @n worker threads, started as streams come (never more than
 * the streams); @n <= 1: none, the main thread drains everything.
 */
void wk_init(unsigned int n);
/* Stop and join the workers. */
void wk_fini(void);
enum { WK_POLLED, WK_PARKED };

/*
 * Give stream @st (of st->seg) to the thread with the fewest, in its
 * polled or parked list (@parked); -ENOMEM.
 */
int wk_stream_add(struct c_stream *st, int parked);
void wk_stream_del(struct c_stream *st);
/* Move @st to its thread's polled or parked list; -ENOMEM (it stays). */
int wk_stream_park(struct c_stream *st, int parked);
/*
 * Drain the polled streams, and the parked ones too if @all (of channel
 * @only, if not NULL), as @how says, open packets too for channels with
 * flush_due set; a process whose streams gave something gets last_data =
 * @now. Returns the ranges written (see drain_stream()). Main thread only.
 */
int wk_round(enum drain how, const struct c_chan *only, int all, uint64_t now);
/* Worker threads running. */
unsigned int wk_running(void);

#endif
