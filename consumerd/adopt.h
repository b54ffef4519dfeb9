// SPDX-License-Identifier: MIT
/*
 * adopt.h - the consumer outlives its session daemon and is taken over by
 * the next one (adopt.c).
 */
#ifndef SHMTRACE_CONSUMERD_ADOPT_H
#define SHMTRACE_CONSUMERD_ADOPT_H

#include <stdint.h>

struct c_app;

/* Our socket in @home, watched in @epfd under @key while we are orphaned; 0 or -errno. */
int adopt_init(const char *home, int epfd, uint64_t key);
/* The socket closed, its file removed if still ours. */
void adopt_fini(void);
/* Our session daemon is gone: orphaned, we wait to be taken over. */
void adopt_lost(void);
/* Are we orphaned? */
int adopt_orphaned(void);
/*
 * A connection on our socket: a session daemon taking us over is given
 * everything we hold; its connection (our new request socket), or -errno.
 */
int adopt_accept(void);
/* How long an orphan with no process left waits for a taker while it holds results. */
#define ADOPT_LINGER_S 600
/*
 * Orphaned, once a second: the processes that are gone are handed to
 * @gone (drained out, freed); 1 when none is left (time to exit), unless
 * aggregation results of gone processes are held (cagg_held()): then 1
 * only when no session daemon took us over in ADOPT_LINGER_S.
 */
int adopt_tick(uint64_t now, void (*gone)(struct c_app *a));

#endif
