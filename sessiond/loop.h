/* SPDX-License-Identifier: MIT */
/*
 * loop.h - the session daemon's event loop: each descriptor registered
 * with its handler and its data (loop.c).
 */
#ifndef SHMTRACE_SESSIOND_LOOP_H
#define SHMTRACE_SESSIOND_LOOP_H

/* Called when @fd is readable (or hung up), with the data it was registered with. */
typedef void (*ev_fn)(int fd, void *data);

/* The loop's epoll instance; 0 or -errno. */
int ev_init(void);
void ev_fini(void);
/* Watch @fd for input: @fn(@fd, @data) when it is readable. 0 or -errno. */
int ev_add(int fd, ev_fn fn, void *data);
/* Stop watching @fd: call it before closing @fd. No event of it, pending
 * in the batch being dispatched, reaches a handler any more. */
void ev_del(int fd);
/* Is @fd registered? */
int ev_watched(int fd);
/* Stop reading @fd until the next ev_resume() (a listening socket whose
 * connection cannot be accepted now: no busy loop on it). */
void ev_pause(int fd);
/* Every paused descriptor watched again. */
void ev_resume(void);
/* Wait @timeout_ms at most (-1: for ever) and dispatch one batch of
 * events, until ev_quit(). The number of events, or -errno. */
int ev_run_once(int timeout_ms);
/* The daemon leaves: the batch being dispatched stops, nothing restarts. */
void ev_quit(void);
int ev_quitting(void);

#endif
