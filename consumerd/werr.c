// SPDX-License-Identifier: MIT
/*
 * werr.c - the first write errors of traces and channels.
 *
 * Write errors (no space, I/O error, read-only file system, the trace
 * directory removed, a relay that went away) never stop the draining: the
 * code that met one drops what it could not write, counts it, and records
 * the error here. The first error of each trace is logged with its errno
 * (c_trace.werr); the first of each channel, its path and errno, goes to
 * the session daemon with the statistics (c_chan.werr, werr_path), for
 * stop and status, with the number of traces that met one (werr_traces).
 *
 * Who writes: any thread that drains, during a round (workers draining
 * streams of the same trace or channel at once), and the main thread
 * between rounds, always under werr_lock, which orders them among
 * themselves. Who reads: the main thread, between rounds (stats.c): the
 * end of the round orders the workers' writes before its reads (worker.c).
 * Each field goes from 0 to an errno once and never back.
 *
 * A crash loses the errors recorded (they were logged); a new consumer
 * records those it meets.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "chan.h"
#include "support/log.h"
#include "trace.h"
#include "werr.h"

static pthread_mutex_t werr_lock = PTHREAD_MUTEX_INITIALIZER;

void werr_record(struct c_chan *ch, struct c_trace *t, const char *path, int err)
{
	pthread_mutex_lock(&werr_lock);
	if (!t->werr) {
		t->werr = err;
		ch->werr_traces++;
		log_err("cannot write %s: %s (errno %d): the trace's events are lost until "
			"writes succeed again", path, strerror(err), err);
	}
	if (!ch->werr) {
		ch->werr = err;
		snprintf(ch->werr_path, sizeof(ch->werr_path), "%s", path);
	}
	pthread_mutex_unlock(&werr_lock);
}
