// SPDX-License-Identifier: MIT
/*
 * app.c - the consumer's traced processes: registered (and registered
 * again), their event descriptions, their losses without a buffer, their
 * end.
 *
 * The table (c_app_ht) is a lock-free RCU hash table by id. Only the main
 * thread adds and removes processes; a removed process is freed by
 * call_rcu after a grace period. Lookups and walks hold the RCU read lock,
 * which the main thread holds while it runs (consumerd.c), so that a reader
 * on any thread never sees freed memory.
 *
 * Fields: the main thread alone writes a process's fields, its lists of
 * traces and segments, its page and its event descriptions, between
 * rounds; the workers read them during a round (worker.c orders the two).
 * The workers write last_data only (wake.c).
 *
 * The process page is shared with the process, which is trusted for
 * nothing: the memfd must be sealed against resizing and have the page's
 * size before it is mapped, so it cannot shrink under the mapping. The
 * process adds to lost_nobuf[slot] (atomic adds); they are counts, read
 * relaxed: nothing else is published with them. nobuf_fresh is set by the
 * process on a new process image's page; the consumer that takes the page
 * clears it (an atomic exchange) and then counts lost_nobuf from 0, else
 * from the value it finds. consumer_sleeping is the consumer's (wake.c).
 *
 * Event descriptions: each id is described once (a description replayed
 * after a restart is ignored) and appended to the metadata of every trace
 * of the process (meta.c) before the session daemon enables the event, so
 * no packet can hold an event its trace does not describe.
 *
 * The end of a process (the session daemon saw it exit or crash, or the
 * consumer stops): everything committed in its buffers is drained out,
 * open packets too, its stream files and traces closed, its page
 * unmapped. A process that crashed loses only the event it was writing;
 * a consumer that crashed leaves the pages to the next one, which the
 * session daemon gives every process again.
 *
 * Its buffers of memory-only channels (chan.c) are kept after that, each
 * for its channel's flush interval (1 s by default, at least that;
 * enable-channel --flush-interval sets it), so that a snapshot taken just
 * after a process exited or crashed, the moment a flight recorder is for,
 * still holds its last events: a written session has them on disk by
 * then, its open packets written out at exit. Not longer, nor more than KEEP_MAX
 * processes at once (the oldest go first): a gone process's buffers are
 * memory only the consumer holds (its mapping keeps the memfd's pages),
 * and a program that starts many short processes must not make it grow
 * without bound. A kept process stays in the table, with its page, its
 * traces and those segments, but its wake socket and descriptors are
 * closed (it is given to no session daemon that takes us over) and it is
 * drained no more; it is freed when its time is up (capp_expire(), from
 * the main loop), or with its channels. A consumer that restarts has
 * lost it: the session daemon forgot the process when it went.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "app.h"
#include "chan.h"
#include "drain.h"
#include "frame.h"
#include "support/lfht.h"
#include "support/log.h"
#include "meta.h"
#include "seg.h"
#include "trace.h"
#include "common/tsc.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "wake.h"
#include "werr.h"

struct cds_lfht *c_app_ht;

/* processes gone whose memory-only buffers are kept, oldest first */
#define KEEP_MAX	32
#define KEEP_MIN_MS	1000u	/* a channel never flushed: as the default interval */
static CDS_LIST_HEAD(kept_apps);
static unsigned int nkept;

static int capp_match(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct c_app, node)->id == *(const uint64_t *)key;
}

int capp_init(void)
{
	c_app_ht = lfht_new(64);
	return c_app_ht ? 0 : -ENOMEM;
}

void capp_fini(void)
{
	lfht_destroy(c_app_ht);
}

struct c_app *capp_find(uint64_t id)
{
	struct cds_lfht_node *n = lfht_find(c_app_ht, hash_id(id), capp_match, &id);

	return n ? caa_container_of(n, struct c_app, node) : NULL;
}

/*
 * The same app id again is the same process registering anew after it
 * lost its descriptors: its trace goes on, with the new page and socket
 * (the process copied its counters into the new page).
 */
int capp_add(const struct msg_c_app *m, const int *fds)
{
	struct c_app *a = capp_find(m->app_id);
	struct stat st;
	void *proc;

	if (memfd_check(fds[0], SHM_PROC_SIZE) < 0 || fstat(fds[1], &st) < 0 ||
	    !S_ISSOCK(st.st_mode) || memfd_check(fds[2], SHM_CTL_SIZE) < 0)
		goto bad;
	if (a && a->kept_until)
		goto bad;	/* gone already: an id is never given twice */
	proc = mmap(NULL, SHM_PROC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (proc == MAP_FAILED)
		goto bad;
	if (a) {
		struct shm_proc_page *old = a->proc;

		for (struct c_seg *s = a->segs; s; s = s->next)
			s->proc = proc;
		a->proc = proc;
		munmap(old, SHM_PROC_SIZE);
		close(a->proc_fd);
		close(a->ctl_fd);
		a->proc_fd = fds[0];
		a->ctl_fd = fds[2];
		wake_renew(a, fds[1], now_ns(CLOCK_MONOTONIC));
		log_info("%s[%u] registered again", a->procname, a->pid);
		return 0;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		munmap(proc, SHM_PROC_SIZE);
		goto bad;
	}
	a->id = m->app_id;
	a->pid = m->pid;
	a->starttime = m->starttime;
	a->instance = m->instance;
	a->uid = m->uid;
	a->born = cnt_born(m->starttime);
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		cnt_init(&a->nobuf[i], a->born);
	a->signo = m->signo;
	a->proc_fd = fds[0];
	a->ctl_fd = fds[2];
	a->clock = m->clock <= CLOCK_KIND_TSC ? m->clock : CLOCK_KIND_MONOTONIC;
	memcpy(a->procname, m->procname, sizeof(a->procname) - 1);
	a->proc = proc;
	/* a new process image's counts are all ours (a forked child's drops
	 * before its handler ran); else they start from here */
	if (!__atomic_exchange_n(&a->proc->nobuf_fresh, 0, __ATOMIC_RELAXED))
		for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
			capp_nobuf_start(a, i);
	wake_start(a, fds[1], now_ns(CLOCK_MONOTONIC));
	cds_lfht_node_init(&a->node);
	cds_lfht_add(c_app_ht, hash_id(a->id), &a->node);
	return 0;
bad:
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	return -EINVAL;
}

int capp_add_events(struct c_app *a, const char *body, size_t len)
{
	struct proto_event ev;
	size_t pos = sizeof(struct msg_events);
	int ret;

	while ((ret = proto_event_decode(body, len, &pos, &ev)) == 1) {
		if (ev.id >= SHM_MAX_EVENTS)
			return -EPROTO;
		if (array_grow(&a->shape, &a->nshape, ev.id + 1, sizeof(*a->shape)) < 0 ||
		    array_grow(&a->ev, &a->nev, ev.id + 1, sizeof(*a->ev)) < 0)
			return -ENOMEM;
		if (a->ev[ev.id].name[0])
			continue;	/* replayed after a restart */
		a->ev[ev.id] = ev;
		frame_shape(&ev, &a->shape[ev.id]);
	}
	if (ret < 0)
		return ret;
	/* (a trace that cannot take them now takes them before its next packet) */
	for (struct c_trace *t = a->traces; t; t = t->next) {
		char path[PROTO_PATH_MAX + 128];

		if (t->rotated || t->meta_bad)
			continue;
		ret = meta_append_events(t);
		if (ret < 0) {
			meta_path(t, path, sizeof(path));
			werr_record(t->chan, t, path, -ret);
		}
	}
	return 0;
}

static void capp_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct c_app, rcu));
}

/* Segment @s of @a (out of its list): drained out, its counts kept, freed. */
static void capp_seg_out(struct c_app *a, struct c_seg *s)
{
	drain_seg_out(s);
	/* a process caught lying stays named by its channels' status */
	if (__atomic_load_n(&a->lies, __ATOMIC_RELAXED) && !(a->lied_in & (1u << s->chan->slot))) {
		a->lied_in |= 1u << s->chan->slot;
		if (!s->chan->gone.liars++)
			s->chan->gone.liar_pid = a->pid;
	}
	seg_free(s);
}

void capp_free(struct c_app *a)
{
	struct cds_lfht_iter it;
	struct c_chan *ch;

	cds_lfht_del(c_app_ht, &a->node);
	if (a->kept_until) {
		cds_list_del(&a->kept);
		nkept--;
	}
	while (a->segs) {
		struct c_seg *s = a->segs;

		a->segs = s->next;
		capp_seg_out(a, s);
	}
	while (a->traces) {
		struct c_trace *t = a->traces;

		a->traces = t->next;
		trace_free(t);
	}
	chan_for_each(&it, ch)
		ch->gone.nobuf += capp_nobuf(a, ch->slot);
	if (a->proc)
		munmap(a->proc, SHM_PROC_SIZE);
	a->proc = NULL;
	if (a->proc_fd >= 0)
		close(a->proc_fd);
	if (a->ctl_fd >= 0)
		close(a->ctl_fd);
	wake_stop(a);
	free(a->ev);
	free(a->shape);
	urcu_memb_call_rcu(&a->rcu, capp_free_rcu);
}

/* How long @s is kept once its process is gone: 0 (a written channel's) or ms. */
static uint32_t seg_keep_ms(const struct c_seg *s)
{
	if (!s->chan->memory)
		return 0;
	return s->chan->flush_ms > KEEP_MIN_MS ? s->chan->flush_ms : KEEP_MIN_MS;
}

/*
 * The segments of @a no longer kept @gone ns after it went (a written
 * channel's at once), out, and the traces no segment writes into any more.
 */
static void capp_segs_expire(struct c_app *a, uint64_t gone)
{
	struct c_seg **pp = &a->segs;
	struct c_trace **tp = &a->traces;

	while (*pp) {
		struct c_seg *s = *pp;

		if (seg_keep_ms(s) && gone < (uint64_t)seg_keep_ms(s) * 1000000u) {
			pp = &s->next;
			continue;
		}
		*pp = s->next;
		capp_seg_out(a, s);
	}
	while (*tp) {
		struct c_trace *t = *tp;
		const struct c_seg *user = a->segs;

		while (user && user->trace != t)
			user = user->next;
		if (user) {
			tp = &t->next;
			continue;
		}
		*tp = t->next;
		trace_free(t);
	}
}

void capp_gone(struct c_app *a, uint64_t now)
{
	uint32_t keep_ms = 0;

	if (a->kept_until)
		return;
	for (const struct c_seg *s = a->segs; s; s = s->next)
		keep_ms = seg_keep_ms(s) > keep_ms ? seg_keep_ms(s) : keep_ms;
	if (!keep_ms) {
		capp_free(a);
		return;
	}
	capp_segs_expire(a, 0);		/* written channels: as for any process gone */
	/* nothing of it reaches us any more, nor a session daemon after ours */
	wake_stop(a);
	if (a->proc_fd >= 0)
		close(a->proc_fd);
	if (a->ctl_fd >= 0)
		close(a->ctl_fd);
	a->proc_fd = -1;
	a->ctl_fd = -1;
	a->gone_at = now;
	a->kept_until = now + (uint64_t)keep_ms * 1000000u;
	cds_list_add_tail(&a->kept, &kept_apps);
	log_info("%s[%u] is gone: its buffers kept %u ms for snapshots", a->procname, a->pid,
		 keep_ms);
	if (++nkept > KEEP_MAX)
		capp_free(cds_list_first_entry(&kept_apps, struct c_app, kept));
}

void capp_expire(uint64_t now)
{
	struct c_app *a, *tmp;

	cds_list_for_each_entry_safe(a, tmp, &kept_apps, kept) {
		if (now >= a->kept_until) {
			capp_free(a);
			continue;
		}
		/* each channel's buffers for its own interval */
		capp_segs_expire(a, now - a->gone_at);
	}
}

/*
 * The process's counter is per slot, and a slot may have served an earlier
 * channel: what counts is the difference from when the channel began.
 */
uint64_t capp_nobuf(struct c_app *a, unsigned int slot)
{
	static long ncpu;

	if (!a->proc || slot >= SHM_MAX_CHAN)
		return 0;
	if (!ncpu)
		ncpu = sysconf(_SC_NPROCESSORS_CONF) > 0 ? sysconf(_SC_NPROCESSORS_CONF) : 1;
	/* any of its threads may add: as many at once as there are CPUs */
	if (!cnt_see(&a->nobuf[slot], __atomic_load_n(&a->proc->lost_nobuf[slot], __ATOMIC_RELAXED),
		     cnt_now(), (uint64_t)ncpu))
		capp_lied(a, "events lost without a buffer");
	return capp_nobuf_seen(a, slot);
}

uint64_t capp_nobuf_seen(const struct c_app *a, unsigned int slot)
{
	if (slot >= SHM_MAX_CHAN || a->nobuf[slot].val < a->nobuf_base[slot])
		return 0;
	return a->nobuf[slot].val - a->nobuf_base[slot];
}

void capp_nobuf_start(struct c_app *a, unsigned int slot)
{
	if (a->proc && slot < SHM_MAX_CHAN) {
		capp_nobuf(a, slot);
		a->nobuf_base[slot] = a->nobuf[slot].val;
	}
}

void capp_lied(struct c_app *a, const char *what)
{
	if (__atomic_fetch_add(&a->lies, 1, __ATOMIC_RELAXED) == 0)
		log_warn("%s[%u]: its count of %s moved in a way no program can: not believed "
			 "(it writes into the memory it shares with us)", a->procname, a->pid, what);
}
