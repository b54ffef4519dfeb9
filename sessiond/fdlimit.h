/* SPDX-License-Identifier: MIT */
/*
 * fdlimit.h - the session daemon at its descriptor limit (fdlimit.c).
 */
#ifndef SHMTRACE_SESSIOND_FDLIMIT_H
#define SHMTRACE_SESSIOND_FDLIMIT_H

#include <sys/types.h>

/* The limit raised to the hard limit: the limit. */
long fds_init(void);
/* The reserve taken (at start-up, once the daemon's own descriptors are open). */
void fds_take(void);
/* The descriptor limit was met (EMFILE): from now on new processes are refused. */
void fds_exhausted(void);
/* Is process @pid, new, to be refused for want of descriptors? 1: yes, said in the log. */
int fds_refuse(pid_t pid);
/* The processes refused since the start, and the limit. */
unsigned long fds_refused(long *limit);
/* accept() a connection on listening socket @lfd, or -1 (paused until fds_round()). */
int fds_accept(int lfd);
/* Once per round of the loop: the reserve taken back when it can be. */
void fds_round(void);

#endif
