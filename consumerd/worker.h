/* SPDX-License-Identifier: MIT */
/*
 * worker.h - the consumer's draining threads.
 *
 * Every stream belongs to one list: a worker's, or the main thread's
 * (streams sent to a relay, and all of them when there is no worker).
 * wk_round() drains every list at once and returns when all are done;
 * between rounds only the main thread runs, so it alone adds, removes and
 * changes apps, channels, segments and streams.
 */
#ifndef SHMTRACE_CONSUMERD_WORKER_H
#define SHMTRACE_CONSUMERD_WORKER_H

#include "stream.h"

/*
 * At most @n worker threads, started as streams come (never more than
 * the streams); @n <= 1: none, the main thread drains everything.
 */
void wk_init(unsigned int n);
/* Stop and join the workers. */
void wk_fini(void);
/* Give stream @st (of st->seg) to a list: the shortest worker's; -ENOMEM. */
int wk_stream_add(struct c_stream *st);
void wk_stream_del(struct c_stream *st);
/*
 * Drain every stream (of channel @only, if not NULL) as @how says, open
 * packets too for channels with flush_due set; returns the ranges written
 * (see seg_drain()). Main thread only.
 */
int wk_round(enum drain how, const struct c_chan *only);
/* Worker threads running. */
unsigned int wk_running(void);

#endif
