/* SPDX-License-Identifier: MIT */
/*
 * firing.h - the firings of event triggers read from the traced
 * processes' trigger areas (firing.c), queued for trigger.c.
 */
#ifndef SHMTRACE_SESSIOND_FIRING_H
#define SHMTRACE_SESSIOND_FIRING_H

#include <stdint.h>
#include <sys/types.h>
#include "common/proto.h"
#include "common/shm.h"

struct app;

/* One firing, copied out of a process: everything trigger.c acts on. */
struct firing {
	struct shm_trig_rec rec;	/* checked: slot, nfields, str_used, strings */
	pid_t pid;
	uint64_t time_ns;		/* CLOCK_REALTIME of rec.mono_ns */
	uint64_t mono_ns;		/* when we read it */
	int known;			/* ev holds the event's description */
	struct proto_event ev;
	struct firing *next;
};

/* The daemon's position in @a's ring, from its control page (just mapped). */
void firings_attach(struct app *a);
/* Read every firing @a published (its MSG_APP_TRIGGER, or before it goes). */
void firings_take(struct app *a);
/*
 * What acts on the firings queued (trigger.c registers it): called when a
 * process goes, before the consumer is told (its buffers are still there
 * for a snapshot), also to count what its trigger area counted.
 */
void firings_set_hook(void (*act)(const struct app *a));
/* @a is going: its last firings read and, when there are any, acted on. */
void firings_last(struct app *a);
/* The oldest firing queued, or NULL; free() it. */
struct firing *firings_pop(void);
/* Firings dropped: the queue full, or a record that does not hold together. */
uint64_t firings_dropped(void);

#endif
