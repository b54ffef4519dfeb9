/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the process's table of events.
 *
 * Each module (the program, each shared library) hands its array of event
 * descriptors to shmtrace_register_events() from a constructor. Every
 * descriptor gets the next free id; ids are never reused, so an id names
 * one event for the life of the process (and of its CTF trace).
 *
 * reg_events[id] points into the module's data. The event fast path never
 * reads this table (an event's enabled byte lives in its own module), so
 * the table needs no read-copy-update machinery: its readers, reg_apply()
 * from threads and from the doorbell signal handler, announce themselves
 * in a process-wide counter around their walk (sequentially consistent
 * add and subtract, rare), and shmtrace_unregister_events() clears the
 * pointers, then waits until it sees the counter at zero before dlclose
 * unmaps the module: a reader that could still hold an old pointer
 * incremented the counter before loading it. Nothing here touches TLS, so
 * the signal handler relies on no global-dynamic TLS of another library.
 *
 * reg_apply() copies the control page's per-id channel masks into the
 * descriptors' `enabled` bytes. It is idempotent and lock-free: it reads
 * the page between two equal even generations, so a concurrent apply with
 * older data is corrected by whichever apply finishes last reading the
 * newest generation.
 *
 * In a process without a doorbell (doorbell.c), reg_apply() gives every
 * event enabled nowhere the masks REG_POLL_MASK and sets its `polled`
 * byte: shmtrace() then calls the emit function, which compares the
 * control generation (so a session started later is seen at the next
 * event) and asks shmtrace__filter() about the poll channel, which refuses
 * any polled event. lib_ev_mask() gives the true mask. The doorbell may
 * come and go while a walk runs: a walk that sees it changed at its end
 * walks again, so the last walk to finish is right. With SHMTRACE_DEBUG,
 * events are polled too while a session daemon did not answer in time
 * (control.c), to count what they emit meanwhile. reg_apply() leaves in
 * lib.applied_gen the generation it applied.
 *
 * An event that updates aggregations (aggen in the control page) must
 * reach shmtrace__filter() with its field values: every channel that
 * records it is marked filtered (a channel without a filter keeps it
 * there), and an event recorded nowhere but aggregated is polled with
 * REG_POLL_AGG, so that its emit function calls shmtrace__filter(), which
 * updates the aggregations (aggr.c) and records nothing. An event that a
 * trigger's pattern takes (trigen, tracectl add-trigger --on-event) is
 * marked the same way, so that shmtrace__filter() decides the trigger
 * (trigger.c): a trigger costs the events it does not take nothing.
 *
 * Events of modules built for ABI 2 (before triggers) are registered too:
 * their emit function never calls shmtrace__fire(), so their firings are
 * told before the event is written (trigger.c). Those of ABI 2 and 3 call
 * shmtrace__filter(), those of ABI 4 and 5 shmtrace__filter_ts(), which
 * hands back the time an aggregation read; those of ABI 5 also apply the
 * thread's aggregation plans (aggr.c) themselves: a library older than a
 * module's ABI refuses its events, so their emit functions never call an
 * entry point it lacks nor read a plan it does not make.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "lib.h"
#include "common/proto.h"

/* a polled event's masks: any channel; shmtrace__filter() refuses it
 * (its `polled` values: lib.h) */
#define REG_POLL_MASK	1u

static struct shmtrace_event *reg_events[SHM_MAX_EVENTS];
static int reg_readers;	/* walks of reg_events under way */

#define REG_MAX_MODULES 256
static struct shmtrace_event *const *reg_modules[REG_MAX_MODULES];
static uint32_t reg_module_first[REG_MAX_MODULES];
static uint32_t reg_module_last[REG_MAX_MODULES];
static unsigned int reg_nmodules;

static unsigned int reg_chan_mask(const struct shm_ctl_page *ctl)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if (__atomic_load_n(&ctl->chan[i].chan_id, __ATOMIC_RELAXED))
			m |= 1u << i;
	return m;
}

/*
 * Set an event's masks. Filtered before enabled, so that a channel is never
 * enabled unfiltered; polled set before and cleared after its masks, so
 * that a thread that sees the poll mask also sees polled (it may drop an
 * event of the very moment the event is turned on, never record one
 * turned off).
 */
static void reg_set(struct shmtrace_event *ev, uint8_t en, uint8_t f, int poll, int agg)
{
	if (agg)
		f = en;		/* every channel: the aggregations (triggers) see the fields */
	if ((poll || agg) && !en) {
		__atomic_store_n(&ev->polled, agg ? REG_POLL_AGG : REG_POLL_LOOK, __ATOMIC_RELAXED);
		__atomic_store_n(&ev->filtered, REG_POLL_MASK, __ATOMIC_RELEASE);
		__atomic_store_n(&ev->enabled, REG_POLL_MASK, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&ev->filtered, f & en, __ATOMIC_RELAXED);
	__atomic_store_n(&ev->enabled, en, __ATOMIC_RELEASE);
	__atomic_store_n(&ev->polled, 0, __ATOMIC_RELEASE);
}

/*
 * Must events enabled nowhere look for control changes? Without a doorbell,
 * yes; and, with SHMTRACE_DEBUG, while a session daemon did not answer in
 * time, so that what they emit meanwhile is counted (lib_late_event()).
 */
static int reg_poll(void)
{
	return !__atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST) ||
	       (lib.debug && __atomic_load_n(&lib.late, __ATOMIC_SEQ_CST));
}

void reg_apply(void)
{
	const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	uint32_t n = __atomic_load_n(&lib.next_id, __ATOMIC_ACQUIRE);
	int poll = reg_poll();

	if (!ctl)
		return;
	for (int tries = 0; tries < 16; tries++) {
		uint64_t g1 = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE), g2;
		unsigned int mask;

		if (g1 & 1)
			continue;
		mask = reg_chan_mask(ctl);
		__atomic_add_fetch(&reg_readers, 1, __ATOMIC_SEQ_CST);
		for (uint32_t id = 0; id < n; id++) {
			struct shmtrace_event *ev = __atomic_load_n(&reg_events[id], __ATOMIC_SEQ_CST);

			if (ev) {
				uint8_t en = (uint8_t)(__atomic_load_n(&ctl->enabled[id],
								       __ATOMIC_RELAXED) & mask);
				uint8_t f = 0;

				for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
					if (__atomic_load_n(&ctl->filt[c][id], __ATOMIC_RELAXED))
						f |= (uint8_t)(1u << c);
				reg_set(ev, en, f, poll,
					__atomic_load_n(&ctl->aggen[id], __ATOMIC_RELAXED) != 0 ||
					__atomic_load_n(&ctl->trigen[id], __ATOMIC_RELAXED) != 0);
			}
		}
		__atomic_sub_fetch(&reg_readers, 1, __ATOMIC_SEQ_CST);
		g2 = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);
		/* the doorbell came or went during the walk (doorbell.c): its
		 * own walk may have finished before ours, walk again */
		if (poll != reg_poll()) {
			poll = reg_poll();
			continue;
		}
		if (g1 == g2) {
			__atomic_store_n(&lib.applied_gen, g1, __ATOMIC_RELAXED);
			procev_applied();
			return;
		}
	}
}

/*
 * After fork, in the child: no other thread exists, so no walk is under
 * way whatever the parent's counter said; with @disable, nothing is
 * enabled until the child's own registration.
 */
void reg_after_fork(int disable)
{
	reg_readers = 0;
	for (uint32_t id = 0; disable && id < lib.next_id; id++)
		if (reg_events[id])
			reg_events[id]->enabled = 0;
}

/* Would the session daemon accept this description? (the same decoder) */
static int reg_event_valid(const char *rec, size_t len)
{
	static struct proto_event ev;	/* lock held */
	size_t pos = 0;

	if (proto_event_decode(rec, len, &pos, &ev) != 1 || pos != len) {
		lib_dbg("event refused (names or fields)", 0);
		return 0;
	}
	return 1;
}

/* Send the descriptions of events [from, to) to the session daemon. */
int reg_send_events(uint32_t from, uint32_t to)
{
	static char buf[PROTO_MAX_MSG - 64];
	struct msg_events *h = (struct msg_events *)(void *)buf;
	size_t pos = sizeof(*h);
	int sock = ownfd_get(&lib.sock), ret = 0;

	if (sock < 0)
		return 0;	/* all of them go with the next registration */
	memset(h, 0, sizeof(*h));
	for (uint32_t id = from; id < to; id++) {
		const struct shmtrace_event *ev = reg_events[id];
		uint32_t types[PROTO_MAX_FIELDS];
		const char *names[PROTO_MAX_FIELDS];
		long n;

		if (!ev || ev->nfields > PROTO_MAX_FIELDS)
			continue;
		for (uint32_t i = 0; i < ev->nfields; i++) {
			types[i] = ev->fields[i].type;
			names[i] = ev->fields[i].name;
		}
		n = proto_event_encode(buf + pos, sizeof(buf) - pos, id, ev->loglevel,
				       ev->provider, ev->name, ev->nfields, types, names);
		if (n == -ENOSPC && h->count) {
			ret = proto_send(sock, MSG_APP_EVENTS, 0, buf, pos, NULL, 0);
			if (ret < 0)
				return ret;
			h->count = 0;
			pos = sizeof(*h);
			id--;
			continue;
		}
		if (n < 0 || !reg_event_valid(buf + pos, (size_t)n))
			continue;	/* the daemon would refuse it: never traceable */
		pos += (size_t)n;
		h->count++;
	}
	if (h->count)
		ret = proto_send(sock, MSG_APP_EVENTS, 0, buf, pos, NULL, 0);
	return ret;
}

SHMTRACE_API int shmtrace_register_events(struct shmtrace_event *const *begin,
					  struct shmtrace_event *const *end)
{
	uint32_t first;
	int added = 0, full = 0;

	lib_init();
	lib_lock();
	for (unsigned int i = 0; i < reg_nmodules; i++) {
		if (reg_modules[i] == begin) {
			lib_unlock();
			return 0;
		}
	}
	if (reg_nmodules == REG_MAX_MODULES) {
		/* untracked, it could not be forgotten at dlclose: keep it off */
		lib_unlock();
		lib_dbg("too many modules with events", reg_nmodules);
		return -ENOSPC;
	}
	first = lib.next_id;
	for (struct shmtrace_event *const *p = begin; p < end; p++) {
		struct shmtrace_event *ev = *p;

		if (!ev || ev->registered || ev->abi_version < 2 ||
		    ev->abi_version > SHMTRACE_ABI_VERSION)
			continue;
		if (lib.next_id >= SHM_MAX_EVENTS) {
			full = 1;
			break;
		}
		ev->id = lib.next_id;
		ev->registered = 1;
		__atomic_store_n(&reg_events[lib.next_id], ev, __ATOMIC_RELEASE);
		__atomic_store_n(&lib.next_id, lib.next_id + 1, __ATOMIC_RELEASE);
		added++;
	}
	reg_modules[reg_nmodules] = begin;
	reg_module_first[reg_nmodules] = first;
	reg_module_last[reg_nmodules] = lib.next_id;
	reg_nmodules++;
	if (added && reg_send_events(first, lib.next_id) < 0)
		lib_dbg("sending events failed", 0);
	else if (added)
		lib_sync_locked();
	lib_unlock();
	reg_apply();
	return full ? -ENOSPC : added;
}

SHMTRACE_API void shmtrace_unregister_events(struct shmtrace_event *const *begin)
{
	int found = 0;

	lib_lock();
	/* what we wrote of these events must be described to a daemon first */
	lib_heard_locked();
	for (unsigned int i = 0; i < reg_nmodules; i++) {
		if (reg_modules[i] != begin)
			continue;
		for (uint32_t id = reg_module_first[i]; id < reg_module_last[i]; id++) {
			struct shmtrace_event *ev = reg_events[id];

			if (ev) {
				ev->enabled = 0;
				ev->registered = 0;
			}
			__atomic_store_n(&reg_events[id], NULL, __ATOMIC_SEQ_CST);
		}
		reg_modules[i] = reg_modules[--reg_nmodules];
		reg_module_first[i] = reg_module_first[reg_nmodules];
		reg_module_last[i] = reg_module_last[reg_nmodules];
		found = 1;
		break;
	}
	lib_unlock();
	/* no walk that could have loaded a cleared pointer is still going on */
	while (found && __atomic_load_n(&reg_readers, __ATOMIC_SEQ_CST))
		sched_yield();
}
