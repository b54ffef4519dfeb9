/* SPDX-License-Identifier: MIT */
/*
 * follow.h - trace-read --follow: events as the consumer writes them.
 */
#ifndef SHMTRACE_TOOLS_FOLLOW_H
#define SHMTRACE_TOOLS_FOLLOW_H

#include <stddef.h>
#include <shmtrace/reader.h>

/* Called for each new event, in time order; < 0 stops following. */
typedef int (*follow_fn)(const struct shmtrace_rd_event *ev, void *arg);
/* Called after each round of events (flush the output). */
typedef void (*follow_round_fn)(void *arg);

/*
 * Follow the traces under @dir: every period, read what is there and
 * hand over the events not handed yet whose time is older than the
 * flush interval (so that events of every stream come out in time order),
 * until the session is stopped or destroyed (the marker goes); then the
 * rest. Returns 0, the exit status (exit-status.h) when the traces could
 * not be read at the end, or the callback's error.
 */
int follow_run(const char *dir, follow_fn fn, follow_round_fn round, void *arg);

/*
 * After the last shmtrace_rd_next() of @r returned @rc: each damaged file
 * ("trace-read: FILE: offset N: what") on standard error, then what
 * stopped the reader before the end, if anything did. Also trace-read's
 * own reading loop.
 */
void follow_say_damage(const struct shmtrace_rd_reader *r, int rc);

#endif
