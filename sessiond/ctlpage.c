// SPDX-License-Identifier: MIT
/*
 * ctlpage.c - the traced processes' control pages, and their doorbell.
 *
 * The session daemon is the only writer of a process's control page: the
 * channel table, per event id the mask of channel slots recording it and
 * the number of its filter in each, the aggregations' slots and per event
 * the aggregations taking it, the event triggers' slots and per event the
 * triggers taking it, the filters' bytecode (shm.h).
 *
 * Update (ctl_update()): make the generation odd, write the page, make it
 * even (release), then ring the doorbell if a mask gained a bit
 * (ctl_ring(): see shm.h for the handshake with a program that takes the
 * signal; only while the process catches it, has no instance pending and
 * a thread that does not block it, by its pidfd, so a pid reused by
 * another program is never signalled). Nothing is written, and the
 * generation stays, when the page already says it all: a change of
 * another process or of a session that does not concern it costs it
 * nothing.
 *
 * State: none of its own; the pages are the processes' (mapped by app.c),
 * what they say is the sessions' (session.c, aggdef.c, allow.c). A crash
 * leaves the pages as they were: the next daemon takes them over as
 * they are (an app taken over is `blind` until its events are known).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>
#include "ctlpage.h"
#include "aggdef.h"
#include "allow.h"
#include "app.h"
#include "fdlimit.h"
#include "session.h"
#include "trigdef.h"
#include "common/glob.h"
#include "track.h"
#include "support/log.h"
#include "common/util.h"
#include "support/sysutil.h"

int ctl_may_ring(pid_t pid, int signo)
{
	int ret = proc_ring_check(pid, signo);

	if (ret == -EMFILE || ret == -ENFILE) {
		fds_exhausted();	/* its reserve lets us look */
		ret = proc_ring_check(pid, signo);
	}
	return ret;
}

/*
 * Ring @a's doorbell. ringing brackets the check and the signal, so that a
 * program changing the signal's action, blocking it or waiting for it
 * (doorbell_off, its side of the handshake in shm.h) either stops us here
 * or waits for us. Sent only while /proc says that the process catches
 * it, has no instance of it pending already (the one pending applies the
 * page as it is when handled: never more than one) and has a thread that
 * does not block it (else it would stay pending for sigwait() or a
 * signalfd of a program that changed its mask behind the library's back).
 */
void ctl_ring(struct app *a)
{
	if (!a->signo)
		return;
	__atomic_store_n(&a->ctl->ringing, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&a->proc->doorbell_off, __ATOMIC_SEQ_CST)) {
		int may = ctl_may_ring(a->pid, a->signo);

		if (may == PROC_RING_SEND) {
			if (a->pidfd >= 0)
				pidfd_send_signal(a->pidfd, a->signo, NULL, 0);
			else
				kill(a->pid, a->signo);
		} else if (may == PROC_RING_UNCAUGHT && !(a->bell_lost & APP_BELL_LOST)) {
			a->bell_lost |= APP_BELL_LOST;
			log_warn("%s[%d] no longer catches signal %d (changed without the C "
				 "library): it sees control changes only at its next enabled event",
				 a->procname, (int)a->pid, a->signo);
		} else if (may == PROC_RING_BLOCKED && !(a->bell_lost & APP_BELL_BLOCKED)) {
			a->bell_lost |= APP_BELL_BLOCKED;
			log_info("%s[%d] blocks signal %d in every thread (changed without the C "
				 "library, or waiting with a temporary mask): not rung while it does",
				 a->procname, (int)a->pid, a->signo);
		}
	}
	__atomic_store_n(&a->ctl->ringing, 0, __ATOMIC_RELEASE);
}

void ctl_touch(struct app *a)
{
	uint64_t g = __atomic_load_n(&a->ctl->generation, __ATOMIC_RELAXED);

	g = (g + 1) | 1;
	__atomic_store_n(&a->ctl->generation, g, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&a->ctl->generation, g + 1, __ATOMIC_RELEASE);
}

/*
 * A new generation whose dump_req changed: the first of @a's threads to
 * apply it (at its next enabled event, procev.c) writes the state dump
 * again. No doorbell: its handler must not write a dump (the loader's
 * lock is not async-signal-safe) and would change no thread's view, so
 * the process is never signalled for it, whether it blocks the signal or
 * not. Written for a process taken over (`blind`) too: its masks stay.
 */
void ctl_dump(struct app *a)
{
	uint64_t g = __atomic_load_n(&a->ctl->generation, __ATOMIC_RELAXED);

	g = (g + 1) | 1;
	__atomic_store_n(&a->ctl->generation, g, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&a->ctl->dump_req, a->ctl->dump_req + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&a->ctl->generation, g + 1, __ATOMIC_RELEASE);
}

unsigned int ctl_filter_add(struct shm_ctl_filters *fl, const struct enabler *e)
{
	if (fl->nfilters == SHM_MAX_FILTERS || e->code_len > sizeof(fl->code) - fl->used)
		return 0;
	fl->f[fl->nfilters].off = fl->used;
	fl->f[fl->nfilters].len = e->code_len;
	memcpy(fl->code + fl->used, e->code, e->code_len);
	fl->used += e->code_len;
	return ++fl->nfilters;
}

/*
 * The channel slots that may record @a: of the sessions that allow its uid
 * and whose tracking takes it (decided here, when its page is written).
 */
static unsigned int app_chan_mask(const struct app *a)
{
	unsigned int m = allow_chan_mask(a->uid);

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if ((m & (1u << i)) && ss.chan[i] &&
		    !track_takes(ss.chan[i]->session, a->pid, a->uid, a->exe))
			m &= ~(1u << i);
	return m;
}

/*
 * Enable masks of app @a into @out (a->nev entries), and for each channel
 * slot and event the number of its filter into @filt, the filters' code
 * into @fl (numbered from 1 in the order met; the same enabler, one
 * number). An event whose filter does not fit is recorded unfiltered.
 */
static void app_masks(const struct app *a, uint8_t *out, uint8_t filt[][SHM_MAX_EVENTS],
		      struct shm_ctl_filters *fl)
{
	const struct enabler *seen[SHM_MAX_FILTERS];
	unsigned int may = app_chan_mask(a);

	memset(fl, 0, sizeof(*fl));
	for (uint32_t id = 0; id < a->nev; id++) {
		const struct enabler *f[SHM_MAX_CHAN];

		out[id] = a->ev[id].known ? (uint8_t)(session_mask(a->ev[id].desc.name,
								   a->ev[id].desc.loglevel, f) &
						      may) : 0;
		for (unsigned int c = 0; c < SHM_MAX_CHAN; c++) {
			uint32_t n;

			filt[c][id] = 0;
			if (!(out[id] & (1u << c)) || !f[c])
				continue;
			for (n = 0; n < fl->nfilters && seen[n] != f[c]; n++)
				;
			if (n == fl->nfilters) {
				if (!ctl_filter_add(fl, f[c]))
					continue;
				seen[n] = f[c];
			}
			filt[c][id] = (uint8_t)(n + 1);
		}
	}
}

/* The channel slots @a's control page should hold. */
static void app_chans(const struct app *a, struct shm_ctl_chan *out)
{
	unsigned int allowed = allow_chan_mask(a->uid);

	memset(out, 0, SHM_MAX_CHAN * sizeof(*out));
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		const struct channel *ch = ss.chan[i];

		if (!ch || !(allowed & (1u << i)))
			continue;
		out[i].subbuf_size = ch->subbuf_size;
		out[i].num_subbuf = ch->num_subbuf;
		out[i].pool_size = ch->pool_size;
		out[i].max_buffers = channel_max_buffers(ch);
		out[i].mode = ch->mode;
		out[i].context = ch->context;
		out[i].flags = ch->session->memory ? SHM_CHAN_NOWAKE : 0;
		out[i].chan_id = ch->id;
	}
}

/*
 * The aggregation part of @a's control page: the slots into @slots, the
 * slots each event updates into @aggen (a->nev entries), the filters
 * appended to @fl (an aggregation whose filter does not fit takes every
 * event: more than asked, said in the log).
 */
static void ctl_aggs(const struct app *a, struct shm_ctl_agg *slots, uint8_t *aggen,
		struct shm_ctl_filters *fl)
{
	memset(aggen, 0, a->nev);
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		const struct aggregation *ag = ss.agg[i];
		struct shm_ctl_agg *c = &slots[i];

		memset(c, 0, sizeof(*c));
		if (!ag || !ag->session->active || !allow_uid(ag->session, a->uid) ||
		    !track_takes(ag->session, a->pid, a->uid, a->exe))
			continue;
		c->agg_id = ag->id;
		c->capacity = ag->capacity;
		c->nnames = ag->nnames;
		c->flags = ag->flags;
		c->def = ag->def;
		memcpy(c->names, ag->names, sizeof(c->names));
		if (ag->ev.code) {
			c->filter = ctl_filter_add(fl, &ag->ev);
			if (!c->filter)
				log_warn("aggregation %s: no room for its filter in the control page: "
					 "it takes every event", ag->name);
		}
		for (uint32_t id = 0; id < a->nev; id++)
			if (a->ev[id].known && agg_takes(ag, a->ev[id].desc.name))
				aggen[id] |= (uint8_t)(1u << i);
	}
}

/*
 * The event triggers' part of @a's control page: the slots into @slots,
 * the slots each event's name takes into @trigen (a->nev entries), the
 * filters appended to @fl (a trigger whose filter does not fit takes
 * every event of its pattern: said in the log). A once-after trigger that
 * fired is off. Every process has them, whatever its sessions.
 */
static void ctl_trigs(const struct app *a, struct shm_ctl_trig *slots, uint16_t *trigen,
		      struct shm_ctl_filters *fl)
{
	memset(trigen, 0, a->nev * sizeof(*trigen));
	for (unsigned int i = 0; i < SHM_MAX_TRIG; i++) {
		const struct trigger *t = trigs.slot[i];
		struct shm_ctl_trig *c = &slots[i];

		memset(c, 0, sizeof(*c));
		if (!t || t->spent)
			continue;
		c->trig_id = t->id;
		c->policy = t->policy;
		c->n = t->n;
		if (t->ev.code) {
			c->filter = ctl_filter_add(fl, &t->ev);
			if (!c->filter)
				log_warn("trigger %s: no room for its filter in the control page: "
					 "every event of its pattern fires it", t->name);
		}
		for (uint32_t id = 0; id < a->nev; id++)
			if (a->ev[id].known && glob_match(t->ev.pattern, a->ev[id].desc.name))
				trigen[id] |= (uint16_t)(1u << i);
	}
}

void ctl_update(struct app *a, int ring)
{
	static uint8_t masks[SHM_MAX_EVENTS], filt[SHM_MAX_CHAN][SHM_MAX_EVENTS];
	static uint8_t aggen[SHM_MAX_EVENTS];
	static uint16_t trigen[SHM_MAX_EVENTS];
	static struct shm_ctl_trig tslots[SHM_MAX_TRIG];
	static struct shm_ctl_agg slots[SHM_MAX_AGG];
	static struct shm_ctl_chan chans[SHM_MAX_CHAN];
	static struct shm_ctl_filters fl;
	struct shm_ctl_page *c = a->ctl;
	uint64_t g = __atomic_load_n(&c->generation, __ATOMIC_RELAXED);
	int changed = 0, same;

	if (a->blind) {
		/* taken over: what we would write without its events could
		 * number its filters wrongly; the page stays as it was */
		if (!ring)
			ctl_touch(a);
		return;
	}
	app_chans(a, chans);
	app_masks(a, masks, filt, &fl);
	ctl_aggs(a, slots, aggen, &fl);
	ctl_trigs(a, tslots, trigen, &fl);
	same = !(g & 1) && !memcmp(c->chan, chans, sizeof(chans)) &&
	       !memcmp(c->agg, slots, sizeof(slots)) && !memcmp(&c->filters, &fl, sizeof(fl)) &&
	       !memcmp(c->enabled, masks, a->nev) && !memcmp(c->aggen, aggen, a->nev) &&
	       !memcmp(c->trig, tslots, sizeof(tslots)) &&
	       !memcmp(c->trigen, trigen, a->nev * sizeof(*trigen));
	for (unsigned int k = 0; same && k < SHM_MAX_CHAN; k++)
		same = !memcmp(c->filt[k], filt[k], a->nev);
	if (same && ring)
		return;
	g = (g + 1) | 1;			/* odd: being written */
	__atomic_store_n(&c->generation, g, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		struct shm_ctl_chan *cc = &c->chan[i];

		/* chan_id alone is read outside the generation (writer.c): a whole store */
		memcpy(&cc->subbuf_size, &chans[i].subbuf_size,
		       sizeof(*cc) - offsetof(struct shm_ctl_chan, subbuf_size));
		__atomic_store_n(&cc->chan_id, chans[i].chan_id, __ATOMIC_RELAXED);
	}
	for (uint32_t id = 0; id < a->nev; id++) {
		if (c->enabled[id] != masks[id]) {
			changed |= masks[id] & ~c->enabled[id];
			__atomic_store_n(&c->enabled[id], masks[id], __ATOMIC_RELAXED);
		}
		for (unsigned int k = 0; k < SHM_MAX_CHAN; k++)
			c->filt[k][id] = filt[k][id];
		/* an aggregation's events: a doorbell, so that they take it now */
		changed |= aggen[id] & ~c->aggen[id];
		c->aggen[id] = aggen[id];
		/* and a trigger's */
		changed |= (trigen[id] & ~c->trigen[id]) != 0;
		c->trigen[id] = trigen[id];
	}
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		if (c->agg[i].agg_id != slots[i].agg_id && slots[i].agg_id)
			changed = 1;
		memcpy(&c->agg[i], &slots[i], sizeof(slots[i]));
	}
	for (unsigned int i = 0; i < SHM_MAX_TRIG; i++) {
		if (c->trig[i].trig_id != tslots[i].trig_id && tslots[i].trig_id)
			changed = 1;
		memcpy(&c->trig[i], &tslots[i], sizeof(tslots[i]));
	}
	memcpy(&c->filters, &fl, sizeof(fl));
	__atomic_store_n(&c->generation, g + 1, __ATOMIC_RELEASE);
	if (ring && changed)
		ctl_ring(a);
}
