/* SPDX-License-Identifier: MIT */
/*
 * aggdef.h - aggregations as defined, and what the consumer is told of
 * them (aggdef.c); the verbs are aggcmd.c's.
 */
#ifndef SHMTRACE_SESSIOND_AGGDEF_H
#define SHMTRACE_SESSIOND_AGGDEF_H

#include <stddef.h>
#include <stdint.h>
#include "common/agg.h"
#include "session.h"
#include "common/shm.h"

/* An aggregation: in slot `slot` of every control page while its session is active. */
struct aggregation {
	uint64_t id;			/* unique across daemon restarts */
	unsigned int slot;
	char name[PROTO_NAME_MAX];
	struct enabler ev;		/* its event pattern and filter */
	uint32_t capacity;		/* keys of a thread's table, a power of two */
	uint32_t flags;			/* SHM_AGG_* */
	uint32_t nnames;
	struct agg_def def;		/* fields index names[] */
	char names[SHM_AGG_NAMES][SHM_AGG_NAME];
	struct session *session;
	struct aggregation *next;	/* the session's, newest first */
};

/* "count", "sum", ... */
const char *agg_fn_name(unsigned int fn);
/* Bytes of a thread's table of @ag (as the process computes it); 0: too large. */
uint32_t agg_bytes(const struct aggregation *ag, uint32_t capacity);
/* Does @ag take the event @name ("provider:event")? */
int agg_takes(const struct aggregation *ag, const char *name);
struct aggregation *agg_by_name(const struct session *s, const char *name);
/* Define @ag in the consumer: the -errno of its reply. */
int agg_to_consumer(const struct aggregation *ag);
void agg_free(struct aggregation *ag);
/* Have the consumer print @s's aggregations (@name alone when not NULL)
 * into @out; take in the processes' segments first (apps_poll_all()).
 * 0, -ENOENT (none), -ENOTCONN (no consumer) or -errno. */
int aggs_print(const struct session *s, const char *name, uint32_t format, int out);
/* At stop: OUTPUT/aggregations.json; 0, or -errno and @msg says why. */
int aggs_write(const struct session *s, char *msg, size_t len);
/* Where aggs_write() writes: OUTPUT/aggregations.json. */
void aggs_json_path(const struct session *s, char *buf, size_t len);
/* @ag as defined, for a reply. */
void agg_record(const struct aggregation *ag, struct rec_agg *ra);
/* The consumer taken over has aggregations @ids: ours it lacks given, the others deleted. */
void aggs_reconcile(const uint64_t *ids, uint32_t n);
/* A new consumer: the aggregations (before any process's segment). */
void aggs_replay(void);

#endif
