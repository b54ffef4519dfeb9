/* SPDX-License-Identifier: MIT */
/*
 * consumer.h - the session daemon's link to the consumer daemon
 * (consumer.c); what a new one is given is replay.c's.
 */
#ifndef SHMTRACE_SESSIOND_CONSUMER_H
#define SHMTRACE_SESSIOND_CONSUMER_H

#include <stddef.h>
#include <sys/types.h>
#include "common/proto.h"

/* Find the consumer's program (SHMTRACE_CONSUMERD, beside us, BINDIR), read the timeout. */
void consumer_setup(const char *home);
/* Its path, for the log. */
const char *consumer_program(void);
/* Start one: 0 or -errno. Given nothing yet (replay.c gives it everything). */
int consumer_start(void);
/* Take over the consumer a daemon before us left running: each of its
 * processes handed to @each, what it holds in *@end. 0 or -errno (none, or
 * it did not answer and was killed). */
int consumer_adopt(int (*each)(const struct msg_c_app *m, const int *fds),
		   struct msg_c_adopt_end *end, unsigned int *napps);
/* A consumer of this home that is not ours, left running: killed. */
void consumer_stale(void);
/* A request, and its reply's status; -EPIPE when there is no consumer (any more). */
int consumer_callv(unsigned int type, const void *b1, size_t l1, const void *b2, size_t l2,
		   const int *fds, int nfds, void *reply, size_t reply_len);
int consumer_call(unsigned int type, const void *body, size_t len, const int *fds, int nfds,
		  void *reply, size_t reply_len);
/* Of no use any more: our end closed, the process killed and reaped. */
void consumer_lost(void);
/* SIGCHLD: children reaped; 1 when the consumer was one (it is gone). */
int consumer_reap_exited(void);
/* Is there a consumer to call? */
int consumer_running(void);
/* Its pid, 0 when none runs. */
pid_t consumer_pid(void);
/* Milliseconds until a new one may be started, at most @max; @max while one runs. */
int consumer_wait_ms(int max);
/* The consumer told we leave (its socket closed), and waited for. */
void consumer_fini(void);

#endif
