// SPDX-License-Identifier: MIT
/*
 * trigdef.c - triggers as defined: the list, the event triggers' slots,
 * and what every control page says of them.
 *
 * A trigger belongs to the daemon, not to a session: its condition names
 * events (of every traced process) or an aggregation of a session, its
 * action a session (or none, notify). An event trigger takes one of the
 * SHM_MAX_TRIG slots of every control page: its id, its filter's number
 * and its rate policy (struct shm_ctl_trig), and per event id the bit of
 * its slot in trigen when its pattern takes the event's name. The
 * processes decide it in the thread that emits the event
 * (libtrace/trigger.c). An aggregation trigger takes no slot: the daemon
 * evaluates it (trigger.c).
 *
 * State: the triggers (saved with the sessions by state.c, through
 * trigger.c); a crash leaves the control pages as they were, and the next
 * daemon, which loads the same triggers in the same slots, rewrites them.
 */
#include <stdlib.h>
#include <string.h>
#include "trigdef.h"

struct triggers trigs;

struct trigger *trig_by_name(const char *name)
{
	for (struct trigger *t = trigs.list; t; t = t->next)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

struct trigger *trig_by_id(uint64_t id)
{
	for (struct trigger *t = trigs.list; t; t = t->next)
		if (t->id == id)
			return t;
	return NULL;
}

int trig_free_slot(void)
{
	for (int i = 0; i < SHM_MAX_TRIG; i++)
		if (!trigs.slot[i])
			return i;
	return -1;
}

void trig_unlink(struct trigger *t)
{
	for (struct trigger **pp = &trigs.list; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	if (t->slot >= 0 && t->slot < SHM_MAX_TRIG && trigs.slot[t->slot] == t)
		trigs.slot[t->slot] = NULL;
	t->next = NULL;
}

void trig_keys_free(struct trigger *t)
{
	for (size_t i = 0; i < t->nkeys; i++)
		free(t->keys[i]);
	free(t->keys);
	t->keys = NULL;
	t->nkeys = 0;
}

void trig_free(struct trigger *t)
{
	if (!t)
		return;
	trig_keys_free(t);
	enabler_free_parts(&t->ev);
	free(t);
}
