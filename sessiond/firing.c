// SPDX-License-Identifier: MIT
/*
 * firing.c - the firings of event triggers, read from the trigger area of
 * each traced process's page (common/shm.h, libtrace/trigger.c) and
 * queued for the triggers' actions (trigger.c).
 *
 * The process's threads claim records of a ring of SHM_TRIG_RING in their
 * process page and publish each with a release store of its seq; our
 * position in that ring is the control page's trig_read, which we alone
 * write and the threads read before they claim (a record is reused only
 * once we read it). Reading (firings_take()): while the record at our
 * position is published (seq == position + 1, acquire), it is copied,
 * checked (its slot, its number of fields against the event the process
 * described, its strings within the record) and queued, and the position
 * advances; then our position is stored and, after a full barrier, the
 * next record looked at once more (Dekker with the thread that publishes
 * it: it stores its seq, full barrier, loads trig_read and sends
 * MSG_APP_TRIGGER only when it finds its own number there; one of us sees
 * the other, so no firing waits for a wake-up that never comes).
 *
 * Bounds: a record is copied before it is believed, and the copy is what
 * is checked and queued; the queue holds at most FIRING_QUEUE firings
 * (those beyond are dropped and counted). A position that the page does
 * not support (beyond the head, or more than a ring behind it: a new
 * process page, a forked child's copy) starts at the head.
 *
 * A process that goes has its last firings read and acted on at once
 * (firings_last(), the hook trigger.c registered: this file knows nothing
 * of actions), before the consumer forgets its buffers.
 *
 * State: the queue, the firings dropped and the hook. A crash loses the queue: the
 * records it held are read already (their actions are not carried out).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "firing.h"
#include "app.h"
#include "support/log.h"
#include "common/util.h"

#define FIRING_QUEUE	4096
#define FIRING_TAKE	(4 * SHM_TRIG_RING)	/* read at once, at most */

static struct firing *q_head, **q_tail = &q_head;
static unsigned int q_len;
static uint64_t dropped;
static void (*hook)(const struct app *a);

void firings_attach(struct app *a)
{
	uint64_t head = __atomic_load_n(&a->proc->trig.head, __ATOMIC_ACQUIRE);
	uint64_t pos = __atomic_load_n(&a->ctl->trig_read, __ATOMIC_RELAXED);

	if (pos > head || head - pos > SHM_TRIG_RING)
		pos = head;
	__atomic_store_n(&a->ctl->trig_read, pos, __ATOMIC_SEQ_CST);
}

/* Does the copy @r hold together, for @a? */
static int firing_ok(const struct app *a, const struct shm_trig_rec *r)
{
	uint32_t used = 0;

	if (r->slot >= SHM_MAX_TRIG || r->nfields > SHM_TRIG_FIELDS ||
	    r->str_used > SHM_TRIG_STR || r->event_id >= a->nev || !a->ev[r->event_id].known)
		return 0;
	if (r->nfields != (a->ev[r->event_id].desc.nfields < SHM_TRIG_FIELDS ?
			   a->ev[r->event_id].desc.nfields : SHM_TRIG_FIELDS))
		return 0;
	for (uint32_t i = 0; i < r->nfields; i++) {
		const char *s, *e;

		if (a->ev[r->event_id].desc.fields[i].type != SHMTRACE_TYPE_STRING)
			continue;
		if (used >= r->str_used)
			return r->flags & SHM_TRIG_CUT ? 1 : 0;	/* no room was left for it */
		s = r->str + used;
		e = memchr(s, 0, r->str_used - used);
		if (!e)
			return 0;
		used += (uint32_t)(e - s) + 1;
	}
	return 1;
}

static void firing_queue(const struct app *a, const struct shm_trig_rec *r)
{
	struct firing *f;
	uint64_t mono = now_ns(CLOCK_MONOTONIC), real = now_ns(CLOCK_REALTIME);

	if (q_len >= FIRING_QUEUE || !firing_ok(a, r) || !(f = calloc(1, sizeof(*f)))) {
		if (!dropped++)
			log_warn("%s[%d]: a trigger firing dropped (queue full or damaged record)",
				 a->procname, (int)a->pid);
		return;
	}
	f->rec = *r;
	f->pid = a->pid;
	f->mono_ns = mono;
	/* its time: as long before now as its monotonic time is */
	f->time_ns = r->mono_ns && r->mono_ns <= mono && mono - r->mono_ns < real ?
		     real - (mono - r->mono_ns) : real;
	f->known = 1;
	f->ev = a->ev[r->event_id].desc;
	*q_tail = f;
	q_tail = &f->next;
	q_len++;
}

void firings_take(struct app *a)
{
	struct shm_trig_area *t;
	unsigned int n = 0;
	uint64_t pos;

	if (!a->ctl || !a->proc)
		return;
	t = (struct shm_trig_area *)&a->proc->trig;
	pos = __atomic_load_n(&a->ctl->trig_read, __ATOMIC_RELAXED);
	for (int round = 0; round < 2; round++) {
		while (n++ < FIRING_TAKE) {
			const struct shm_trig_rec *src = &t->ring[pos % SHM_TRIG_RING];
			struct shm_trig_rec copy;

			if (__atomic_load_n(&src->seq, __ATOMIC_ACQUIRE) != pos + 1)
				break;
			memcpy(&copy, src, sizeof(copy));
			pos++;
			firing_queue(a, &copy);
			round = 0;
		}
		/* Dekker: our position, full barrier, one more look */
		__atomic_store_n(&a->ctl->trig_read, pos, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
}

void firings_set_hook(void (*act)(const struct app *a))
{
	hook = act;
}

void firings_last(struct app *a)
{
	firings_take(a);
	if (hook)
		hook(a);
}

struct firing *firings_pop(void)
{
	struct firing *f = q_head;

	if (!f)
		return NULL;
	q_head = f->next;
	if (!q_head)
		q_tail = &q_head;
	q_len--;
	f->next = NULL;
	return f;
}

uint64_t firings_dropped(void)
{
	return dropped;
}
