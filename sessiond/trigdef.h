/* SPDX-License-Identifier: MIT */
/*
 * trigdef.h - triggers as defined, and their part of every control page
 * (trigdef.c); their verbs, firings and actions are trigger.c's.
 */
#ifndef SHMTRACE_SESSIOND_TRIGDEF_H
#define SHMTRACE_SESSIOND_TRIGDEF_H

#include <stddef.h>
#include <stdint.h>
#include "session.h"
#include "common/proto.h"
#include "common/shm.h"

/* A trigger: a condition and an action. */
struct trigger {
	uint64_t id;			/* unique across daemon restarts (ss.next_id) */
	char name[PROTO_NAME_MAX];
	uint32_t kind;			/* CMD_TRIG_* */
	int slot;			/* CMD_TRIG_EVENT: its slot of every control page */
	struct enabler ev;		/* CMD_TRIG_EVENT: its pattern and filter */
	uint32_t policy;		/* SHM_TRIG_* */
	uint64_t n;
	char agg_session[PROTO_NAME_MAX];	/* CMD_TRIG_AGG */
	char agg[PROTO_NAME_MAX];
	char when[PROTO_WHEN_MAX];	/* as written */
	struct proto_agg_cond cond;	/* ... parsed (bound at each evaluation) */
	uint64_t every_ms;
	uint64_t next_ns;		/* next evaluation (CLOCK_MONOTONIC) */
	char **keys;			/* keys for which the condition held at the
					 * last evaluation, sorted */
	size_t nkeys;
	uint32_t action;		/* CMD_ACT_* */
	char action_session[PROTO_NAME_MAX];
	uint64_t fired, failed, ignored;
	uint64_t matches_gone, lost_gone;	/* counted by processes that are gone */
	int spent;			/* once-after: acted on once */
	uint64_t last_time_ns;		/* its last firing acted on: when */
	uint32_t last_pid, last_tid;
	int last_err;
	char last_path[PROTO_PATH_MAX];
	struct trigger *next;		/* newest first */
};

struct triggers {
	struct trigger *list;
	struct trigger *slot[SHM_MAX_TRIG];	/* event triggers by slot */
};

extern struct triggers trigs;

struct trigger *trig_by_name(const char *name);
struct trigger *trig_by_id(uint64_t id);
/* A free event trigger slot, or -1. */
int trig_free_slot(void);
/* Forget @t: off the list and its slot (the control pages: apps_update_all()). */
void trig_unlink(struct trigger *t);
void trig_free(struct trigger *t);
/* The keys of @t, forgotten. */
void trig_keys_free(struct trigger *t);

#endif
