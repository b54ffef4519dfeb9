/* SPDX-License-Identifier: MIT */
/*
 * replay.h - a consumer for the session daemon: taken over or started,
 * and given everything (replay.c).
 */
#ifndef SHMTRACE_SESSIOND_REPLAY_H
#define SHMTRACE_SESSIOND_REPLAY_H

/* At start-up: the consumer a daemon before us left taken over, else one started. */
void replay_init(const char *home);
/* SIGCHLD, or none runs: reap it, and start another (once a second at most). */
void replay_check(void);
/* A consumer now (a new one, given everything, if need be); 0 or -EPIPE. */
int replay_revive(void);

#endif
