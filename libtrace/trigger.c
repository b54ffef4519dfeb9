/* SPDX-License-Identifier: MIT */
/*
 * trigger.c - event triggers decided in the traced thread (tracectl
 * add-trigger --on-event), and the firings told to the session daemon.
 *
 * The session daemon puts each event trigger in a slot of every control
 * page (struct shm_ctl_trig: its id, filter and rate policy) and, per
 * event id, the mask of slots whose pattern takes the event (trigen).
 * registry.c marks such an event filtered in every channel that records it
 * (polled with REG_POLL_AGG when none does), so that its emit function
 * calls shmtrace__filter() with the field values, which calls
 * trig_event() before it decides the channels: a disabled event without a
 * trigger is untouched (one load and one branch), and the condition is
 * decided before any byte of the event is copied.
 *
 * The steps of a firing, in the thread that emits the event:
 *  1. the trigger's slot copied between two equal generations and its
 *     filter evaluated as that generation numbers it (the enable-event
 *     machinery, evfilter.c); when the page is being written at every
 *     look, or the filter cannot be read, the event is undecided: counted
 *     lost for the slot's trigger, never counted as a match;
 *  2. the match counted in the process page's trigger area: count[slot],
 *     by compare-and-swap, with the low 16 bits of the trigger's id above
 *     the count (a slot given to another trigger starts again from 0), so
 *     that the rate policy is exact across the process's threads: every:N
 *     fires at counts N, 2N...; once-after:N at count N only;
 *  3. a record claimed in the area's ring (compare-and-swap of `head`,
 *     only while head - ctl.trig_read < SHM_TRIG_RING: the daemon's read
 *     position is in the control page, it alone writes it; a full ring
 *     drops the firing and counts it in `lost`) and written: trigger,
 *     count, thread, event id, field values (strings cut to fit); the
 *     area's `lost` and the slot's lost_slot count a firing dropped;
 *  4. the event is written and committed by the emit function, which then
 *     calls shmtrace__fire() (SHMTRACE__FIRE in shmtrace__filter()'s
 *     result): the record's time is set and its seq stored (release); an
 *     event of a module built for ABI 2 has no such call: its records are
 *     published at step 3, flagged SHM_TRIG_EARLY;
 *  5. the daemon is woken when it has read every record before this one
 *     (Dekker with its side, sessiond/trigger.c: we store seq, full
 *     barrier, load trig_read; it stores trig_read, full barrier, loads
 *     the next seq: one of us sees the other): one MSG_APP_TRIGGER on the
 *     process's socket, sent by whoever holds the library's lock
 *     (LIB_PENDING_TRIGGER, lib_unlock()), never waited for.
 *
 * Nothing here blocks, allocates or takes a lock that is waited for; a
 * compare-and-swap that keeps failing (64 tries) drops the match, counted
 * as lost. A thread keeps at most TRIG_PENDING records between steps 3
 * and 4 (in initial-exec TLS); beyond, a record is published at once.
 */
#include <errno.h>
#include <time.h>
#include "lib.h"
#include "common/proto.h"
#include "common/util.h"

#define TRIG_PENDING	4
#define TRIG_TRIES	64
#define TRIG_COUNT_MASK	((UINT64_C(1) << SHM_TRIG_COUNT_BITS) - 1)

/* Records written between shmtrace__filter() and shmtrace__fire(). */
static __thread struct {
	uint64_t idx[TRIG_PENDING];
	struct shm_trig_area *area[TRIG_PENDING];	/* (a page replaced meanwhile stays mapped) */
	uint32_t n;
} trig_pend __attribute__((tls_model("initial-exec")));

/*
 * Slot @s of @ctl copied between two equal generations, the generation
 * into *@gen: 1; 0 when it holds no trigger; -EAGAIN when the page was
 * being written at every look (lib_ctl_gen()).
 */
static int trig_slot(const struct shm_ctl_page *ctl, unsigned int s, struct shm_ctl_trig *out,
		     uint64_t *gen)
{
	for (int tries = 0; tries < TRIG_TRIES; tries++) {
		uint64_t g;

		if (lib_ctl_gen(ctl, &g) < 0)
			break;
		out->trig_id = __atomic_load_n(&ctl->trig[s].trig_id, __ATOMIC_RELAXED);
		out->filter = __atomic_load_n(&ctl->trig[s].filter, __ATOMIC_RELAXED);
		out->policy = __atomic_load_n(&ctl->trig[s].policy, __ATOMIC_RELAXED);
		out->n = __atomic_load_n(&ctl->trig[s].n, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) == g) {
			*gen = g;
			return out->trig_id != 0 && out->n != 0 && out->policy <= SHM_TRIG_ONCE_AFTER;
		}
	}
	return -EAGAIN;
}

/*
 * Does the trigger of slot @s take event @ev: 1 (its copy in *@slot), 0
 * (no trigger there, or its filter refuses the event), or -EAGAIN (the
 * page changed at every look, or its filter could not be read): then
 * nobody knows, and the caller counts the event lost for the slot. The
 * filter is evaluated as numbered at the generation the slot was read
 * at: a match is never counted against the trigger's own filter.
 */
static int trig_takes(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
		      unsigned int s, const struct shmtrace__fval *v, struct shm_ctl_trig *slot)
{
	for (int tries = 0; tries < TRIG_TRIES; tries++) {
		uint64_t gen;
		int r = trig_slot(ctl, s, slot, &gen);

		if (r <= 0)
			return r;
		r = evf_keep(ctl, ev, slot->filter, gen, v);
		if (r != -EAGAIN)
			return r < 0 ? -EAGAIN : r;
	}
	return -EAGAIN;
}

/* Add one to the counter @w of trigger @id (its tag): the new count, 0 when it could not. */
static uint64_t trig_count(uint64_t *w, uint64_t id)
{
	uint64_t tag = (id & 0xffff) << SHM_TRIG_COUNT_BITS;
	uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED);

	for (int tries = 0; tries < TRIG_TRIES; tries++) {
		uint64_t c = (old & ~TRIG_COUNT_MASK) == tag ? (old & TRIG_COUNT_MASK) + 1 : 1;

		if (c > TRIG_COUNT_MASK)
			return 0;	/* 2^48 of them: no more */
		if (__atomic_compare_exchange_n(w, &old, tag | c, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return c;
	}
	return 0;
}

/* A match or a firing of trigger @id in slot @s that could not be counted or kept. */
static void trig_lost(struct shm_trig_area *t, unsigned int s, uint64_t id)
{
	__atomic_fetch_add(&t->lost, 1, __ATOMIC_RELAXED);
	trig_count(&t->lost_slot[s], id);
}

/* Claim the next record of the ring: its number, or UINT64_MAX (full, counted). */
static uint64_t trig_claim(const struct shm_ctl_page *ctl, struct shm_trig_area *t,
			   unsigned int s, uint64_t id)
{
	uint64_t h = __atomic_load_n(&t->head, __ATOMIC_RELAXED);

	for (int tries = 0; tries < TRIG_TRIES; tries++) {
		uint64_t read = __atomic_load_n(&ctl->trig_read, __ATOMIC_ACQUIRE);

		if (h - read >= SHM_TRIG_RING)
			break;	/* the daemon has not read them yet (or never will) */
		if (__atomic_compare_exchange_n(&t->head, &h, h + 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return h;
	}
	trig_lost(t, s, id);
	return UINT64_MAX;
}

/* The event's field values into @r. */
static void trig_fields(struct shm_trig_rec *r, const struct shmtrace_event *ev,
			const struct shmtrace__fval *v)
{
	uint32_t n = ev->nfields < SHM_TRIG_FIELDS ? ev->nfields : SHM_TRIG_FIELDS;
	uint32_t used = 0;

	r->nfields = (uint16_t)n;
	r->flags = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (ev->fields[i].type != SHMTRACE_TYPE_STRING) {
			r->val[i] = v[i].u;
			continue;
		}
		r->val[i] = 0;
		if (used >= SHM_TRIG_STR)
			continue;
		{
			const char *s = v[i].s ? v[i].s : "(null)";
			uint32_t k = 0;

			while (s[k] && used + k + 1 < SHM_TRIG_STR)
				r->str[used + k] = s[k], k++;
			if (s[k])
				r->flags |= SHM_TRIG_CUT;
			r->str[used + k] = 0;
			r->val[i] = k;
			used += k + 1;
		}
	}
	r->str_used = used;
}

/* Record @idx complete: its time, then its seq; the daemon woken if it waits for it. */
static void trig_publish(const struct shm_ctl_page *ctl, struct shm_trig_area *t, uint64_t idx,
			 uint64_t ts)
{
	struct shm_trig_rec *r = &t->ring[idx % SHM_TRIG_RING];

	r->ts = ts ? ts : shmtrace__clock();
	r->mono_ns = now_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&r->seq, idx + 1, __ATOMIC_RELEASE);
	/* Dekker: our seq before our look at the daemon's position */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ctl->trig_read, __ATOMIC_RELAXED) != idx)
		return;	/* it has records before this one to read: it is told already */
	__atomic_or_fetch(&lib.pending, LIB_PENDING_TRIGGER, __ATOMIC_SEQ_CST);
	if (lib_trylock())
		lib_unlock();	/* sends it; else the lock's holder does on unlock */
}

int trig_event(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
	       const struct shmtrace__fval *v)
{
	struct shm_proc_page *proc = __atomic_load_n(&lib.proc, __ATOMIC_ACQUIRE);
	unsigned int mask = __atomic_load_n(&ctl->trigen[ev->id], __ATOMIC_RELAXED);
	int later = ev->abi_version >= 3, fired = 0;

	if (!proc)
		return 0;
	while (mask) {
		unsigned int s = (unsigned int)__builtin_ctz(mask);
		struct shm_ctl_trig slot;
		struct shm_trig_rec *r;
		uint64_t c, idx;
		int ret;

		mask &= mask - 1;
		if (s >= SHM_MAX_TRIG)
			continue;
		ret = trig_takes(ctl, ev, s, v, &slot);
		if (ret < 0) {
			/* undecided: lost to the trigger the slot holds, if any */
			uint64_t id = __atomic_load_n(&ctl->trig[s].trig_id, __ATOMIC_RELAXED);

			if (id)
				trig_lost(&proc->trig, s, id);
			continue;
		}
		if (!ret)
			continue;
		c = trig_count(&proc->trig.count[s], slot.trig_id);
		if (!c) {
			trig_lost(&proc->trig, s, slot.trig_id);
			continue;
		}
		if (slot.policy == SHM_TRIG_EVERY ? c % slot.n != 0 : c != slot.n)
			continue;
		idx = trig_claim(ctl, &proc->trig, s, slot.trig_id);
		if (idx == UINT64_MAX)
			continue;
		r = &proc->trig.ring[idx % SHM_TRIG_RING];
		r->trig_id = slot.trig_id;
		r->count = c;
		r->slot = s;
		r->tid = writer_tid();
		r->event_id = ev->id;
		trig_fields(r, ev, v);
		if (later && trig_pend.n < TRIG_PENDING) {
			trig_pend.area[trig_pend.n] = &proc->trig;
			trig_pend.idx[trig_pend.n++] = idx;
			fired = 1;
			continue;
		}
		r->flags |= SHM_TRIG_EARLY;
		trig_publish(ctl, &proc->trig, idx, 0);
	}
	return fired;
}

SHMTRACE_API void shmtrace__fire(const struct shmtrace_event *ev, uint64_t ts)
{
	const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);

	(void)ev;
	for (uint32_t i = 0; i < trig_pend.n && i < TRIG_PENDING; i++)
		if (ctl)
			trig_publish(ctl, trig_pend.area[i], trig_pend.idx[i], ts);
	trig_pend.n = 0;
}

void trig_wake_locked(void)
{
	int fd = ownfd_get(&lib.sock);

	/* no daemon connected: the next one reads the ring when it registers us */
	if (fd >= 0)
		(void)proto_send(fd, MSG_APP_TRIGGER, 0, NULL, 0, NULL, 0);
}
