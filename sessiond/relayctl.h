/* SPDX-License-Identifier: MIT */
/*
 * relayctl.h - a session streamed to lttng-relayd, as the session daemon
 * keeps it (relayctl.c; saved with the sessions, state.c).
 */
#ifndef SHMTRACE_SESSIOND_RELAYCTL_H
#define SHMTRACE_SESSIOND_RELAYCTL_H

#include <stdint.h>
#include "common/proto.h"
#include "support/relay.h"

/* A streamed session's relay: where, and how its current relay session is named. */
struct relayctl {
	struct rly_url c, d;
	char host[RLY_HOST_NAME];
	char stamp[32];
	unsigned int opened;		/* relay sessions made (a new one per consumer) */
	int err;			/* the last one could not be made: -errno */
	char why[PROTO_PATH_MAX];
};

struct reply;
struct session;

/* create --set-url ...: the relay reached, its session made, @s streamed there; else < 0, the failure in @r. */
int relayctl_create(struct reply *r, struct session *s, const struct cmd_create *cr,
		  const char *stamp);
/* start: may @s stream? < 0 when not, the failure in @r. */
int relayctl_check(struct reply *r, const struct session *s);
void relayctl_close(struct session *s);
/* A new consumer: each streamed session a new relay session on it. */
void relayctl_replay(void);
/* Does @s stream, or is it of files? 0 when its relay is gone. */
int relayctl_ok(const struct session *s);
/* @s stopped streaming (relayctl_ok() 0): the failure in @r, its -errno. */
int relayctl_fail(struct reply *r, const struct session *s);
/* Where @s streams (its address, its relay session) and whether it stopped, into its record. */
void relayctl_record(const struct session *s, struct rec_session *rs);
/* The last relay id given (relay ids are the consumer's names of relays). */
uint64_t relayctl_last_id(void);
/* Relay @id is in use (a session taken over): later ids come after it. */
void relayctl_seen_id(uint64_t id);

#endif
