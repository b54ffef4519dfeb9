/* SPDX-License-Identifier: MIT */
/*
 * life.h - how sessions, channels and aggregations end: stop, rotate,
 * destroy (life.c).
 */
#ifndef SHMTRACE_SESSIOND_LIFE_H
#define SHMTRACE_SESSIOND_LIFE_H

#include "aggdef.h"
#include "session.h"

/* Inactive, everything committed written out (else s->flush_err), aggregations.json. */
void session_stop(struct session *s);
/* Stopped if active, its last chunk closed, everything it holds removed, freed. */
void session_destroy(struct session *s);
/* Close the current chunk of @s into OUTPUT/chunk-N; the next one begins. 0 or -errno. */
int session_rotate(struct session *s);
/* Automatic rotations due: how many were made (the caller saves the state). */
int sessions_tick(void);
/* How often the loop must call sessions_tick(), in ms. */
int sessions_tick_ms(void);
/* Every session stopped and destroyed. */
void sessions_shutdown(void);
/* @ag removed: its slot, the processes' control pages and segments, the consumer's results. */
void agg_remove(struct aggregation *ag);
/* Every aggregation of @s removed. */
void aggs_free(struct session *s);

#endif
