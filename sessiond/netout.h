/* SPDX-License-Identifier: MIT */
/*
 * netout.h - a session streamed to lttng-relayd, as the session daemon
 * keeps it (netout.c; saved with the sessions, state.c).
 */
#ifndef SHMTRACE_SESSIOND_NETOUT_H
#define SHMTRACE_SESSIOND_NETOUT_H

#include <stdint.h>
#include "proto.h"
#include "relay.h"

/* A streamed session's relay: where, and how its current relay session is named. */
struct netout {
	struct rly_url c, d;
	char host[RLY_HOST_NAME];
	char stamp[32];
	unsigned int opened;		/* relay sessions made (a new one per consumer) */
	int err;			/* the last one could not be made: -errno */
	char why[PROTO_PATH_MAX];
};

/* The last relay id given (relay ids are the consumer's names of relays). */
uint64_t netout_last_id(void);
/* Relay @id is in use (a session taken over): later ids come after it. */
void netout_seen_id(uint64_t id);

#endif
