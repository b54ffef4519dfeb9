// SPDX-License-Identifier: MIT
/*
 * trigger.c - triggers: tracectl add-trigger, list-triggers,
 * remove-trigger and wait-trigger; the firings acted on; the conditions
 * on aggregations evaluated; the clients waiting for a firing.
 *
 * An event trigger is decided in the traced thread (libtrace/trigger.c),
 * which writes the firing into its process page and wakes us: firing.c
 * queues what the processes published (on MSG_APP_TRIGGER, before a
 * process is removed, and every second for a wake-up that got lost), and
 * trig_tick(), run by the loop between batches, acts on each: the action
 * (a snapshot, start, stop or rotation of a session: the verb itself,
 * cmd_action(), answered to nobody; notify: a log line), then every
 * wait-trigger waiting for it is answered with a REC_FIRING and closed.
 * Actions run only from the loop, never in the middle of a command, so the
 * reply builder is free. A once-after trigger acts once: then it is
 * `spent`, off every control page, and later firings (of other processes
 * that counted their own N meanwhile) are counted as ignored.
 *
 * An aggregation trigger is evaluated every --every TIME (1 s by default):
 * the consumer merges the aggregation and writes the keys that meet the
 * condition (MSG_C_AGG_EVAL, support/aggcond.h); a key fires when it
 * meets it now and did not at the evaluation before (an edge, not a
 * level): the keys that met it are kept, sorted, and saved with the
 * trigger, so that a restarted daemon does not fire them again. A key
 * that stops meeting it and meets it again fires again.
 *
 * Waiters (wait-trigger): their connection is kept, watched in the loop
 * (a client that goes away is forgotten), answered at the trigger's next
 * firing, at their timeout (RE_WAIT_TIMEOUT), when the trigger is removed
 * (RE_TRIGGER_GONE) or when we stop (RE_SHUTDOWN).
 *
 * State: the waiters; the triggers are trigdef.c's, saved by state.c with
 * trig_state_save() (definitions, counts, keys met and the last firing).
 * A crash closes the waiters' connections.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "trigger.h"
#include "aggdef.h"
#include "app.h"
#include "client.h"
#include "cmd.h"
#include "consumer.h"
#include "firing.h"
#include "loop.h"
#include "session.h"
#include "trigdef.h"
#include "support/aggcond.h"
#include "support/json.h"
#include "support/log.h"
#include "common/util.h"
#include "support/protomsg.h"

#define TRIG_EVERY_MS		1000u		/* aggregation triggers, by default */
#define TRIG_EVERY_MIN_MS	10u
#define TRIG_EVERY_MAX_MS	86400000u
#define TRIG_MAX_HITS		4096u		/* keys that meet a condition, kept */
#define TRIG_SWEEP_MS		1000u		/* firings whose wake-up was lost */
#define TRIG_MAX_WAITERS	256u

/* A string into a record's array: cut to fit, the rest zeroed. */
#define REC_SET(dst, src)	snprintf((dst), sizeof(dst), "%s", (src))

struct waiter {
	int fd;
	uint64_t trig_id;
	char name[PROTO_NAME_MAX];
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC; 0: none */
	uint64_t since_ns;
	struct waiter *next;
};

static struct waiter *waiters;
static unsigned int nwaiters;
static uint64_t last_sweep_ns;

/* ---- records ------------------------------------------------------------- */

/* What process @a counted for @t in its trigger area (libtrace/trigger.c): its tagged counter. */
static uint64_t app_count(const struct trigger *t, const struct app *a, int lost)
{
	uint64_t tag = (t->id & 0xffff) << SHM_TRIG_COUNT_BITS;
	uint64_t mask = (UINT64_C(1) << SHM_TRIG_COUNT_BITS) - 1, v;

	if (t->kind != CMD_TRIG_EVENT || t->slot < 0 || !a->proc)
		return 0;
	v = __atomic_load_n(lost ? &a->proc->trig.lost_slot[t->slot] : &a->proc->trig.count[t->slot],
			    __ATOMIC_RELAXED);
	return (v & ~mask) == tag ? v & mask : 0;
}

/* The sum over the processes, those gone included, of a slot's counters. */
static uint64_t slot_sum(const struct trigger *t, int lost)
{
	uint64_t n = lost ? t->lost_gone : t->matches_gone;

	for (const struct app *a = apps_list(); a; a = a->next)
		n += app_count(t, a, lost);
	return n;
}

static unsigned int waiters_of(const struct trigger *t)
{
	unsigned int n = 0;

	for (const struct waiter *w = waiters; w; w = w->next)
		n += w->trig_id == t->id;
	return n;
}

static void trig_record(const struct trigger *t, uint32_t flags, struct rec_trigger *rt)
{
	memset(rt, 0, sizeof(*rt));
	REC_SET(rt->name, t->name);
	rt->id = t->id;
	rt->kind = t->kind;
	rt->action = t->action;
	REC_SET(rt->action_session, t->action_session);
	rt->flags = flags | (t->spent ? REC_TRIGGER_SPENT : 0) |
		    (t->last_time_ns ? REC_TRIGGER_FIRED : 0);
	rt->policy = t->policy;
	rt->n = t->n;
	if (t->kind == CMD_TRIG_EVENT) {
		REC_SET(rt->pattern, t->ev.pattern);
	} else {
		REC_SET(rt->agg_session, t->agg_session);
		REC_SET(rt->agg, t->agg);
		REC_SET(rt->when, t->when);
		rt->every_ms = t->every_ms;
	}
	rt->matches = slot_sum(t, 0);
	rt->lost = slot_sum(t, 1);
	rt->fired = t->fired;
	rt->failed = t->failed;
	rt->ignored = t->ignored;
	rt->waiters = waiters_of(t);
	rt->last_pid = t->last_pid;
	rt->last_tid = t->last_tid;
	rt->last_err = t->last_err;
	rt->last_time_ns = t->last_time_ns;
	REC_SET(rt->last_path, t->last_path);
	if (t->ev.filter) {
		size_t len = strlen(t->ev.filter);

		rt->flags |= REC_TRIGGER_FILTER | (len >= sizeof(rt->filter) ? REC_TRIGGER_FILTER_CUT : 0);
		rt->filter_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
		REC_SET(rt->filter, t->ev.filter);
	}
}

static void trig_send(struct reply *r, const struct trigger *t, uint32_t flags)
{
	static struct rec_trigger rt;

	trig_record(t, flags, &rt);
	reply_rec(r, REC_TRIGGER, &rt, sizeof(rt));
}

/* ---- the verbs ----------------------------------------------------------- */

/* The aggregation of @t, bound: 0, or -ENOENT / -EINVAL with @why said. */
static int agg_bind(struct trigger *t, const struct aggregation **out, char *why, size_t len)
{
	const struct session *s = session_by_name(t->agg_session);
	const struct aggregation *ag = s ? agg_by_name(s, t->agg) : NULL;

	if (!ag) {
		snprintf(why, len, "no aggregation %s in session %s", t->agg, t->agg_session);
		return -ENOENT;
	}
	*out = ag;
	return aggcond_bind(&t->cond, &ag->def, (const char (*)[32])ag->names, ag->nnames, why, len);
}

/* @c checked into @t (its filter compiled); 0, or the failure in @r. */
static int trig_make(struct reply *r, struct trigger *t, const struct cmd_trigger *c,
		     const char *filter)
{
	const struct aggregation *ag;
	char why[PROTO_WHY_MAX];
	int ret;

	if (!proto_name_ok(c->name))
		return reply_fail(r, -EINVAL, RE_BAD_NAME, .name = c->name, .name2 = "trigger",
				  .n = { PROTO_NAME_MAX - 1 });
	if (trig_by_name(c->name))
		return reply_fail(r, -EEXIST, RE_TRIGGER_EXISTS, .name = c->name);
	if (c->action < CMD_ACT_SNAPSHOT || c->action > CMD_ACT_NOTIFY)
		return reply_fail(r, -EINVAL, RE_TRIGGER_ARGS, .name = "action");
	if (c->action != CMD_ACT_NOTIFY && !session_by_name(c->action_session))
		return reply_fail(r, -ENOENT, RE_NO_SESSION, .session = c->action_session);
	snprintf(t->name, sizeof(t->name), "%s", c->name);
	t->kind = c->kind;
	t->slot = -1;
	t->action = c->action;
	if (c->action != CMD_ACT_NOTIFY)
		snprintf(t->action_session, sizeof(t->action_session), "%s", c->action_session);
	t->policy = c->policy;
	t->n = c->n;
	if (c->kind == CMD_TRIG_EVENT) {
		if (!c->pattern[0] || strlen(c->pattern) >= PROTO_EVNAME_MAX)
			return reply_fail(r, -EINVAL, RE_BAD_PATTERN, .name = c->pattern);
		if (c->policy > SHM_TRIG_ONCE_AFTER || !c->n)
			return reply_fail(r, -EINVAL, RE_TRIGGER_ARGS, .name = "policy");
		snprintf(t->ev.pattern, sizeof(t->ev.pattern), "%s", c->pattern);
		t->ev.ll_kind = LL_ANY;
		return filter ? filter_make(r, &t->ev, filter) : 0;
	}
	if (c->kind != CMD_TRIG_AGG || filter)
		return reply_fail(r, -EINVAL, RE_TRIGGER_ARGS, .name = "kind");
	if (c->every_ms && (c->every_ms < TRIG_EVERY_MIN_MS || c->every_ms > TRIG_EVERY_MAX_MS))
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "--every (ms)",
				  .n = { c->every_ms, TRIG_EVERY_MIN_MS, TRIG_EVERY_MAX_MS });
	t->every_ms = c->every_ms ? c->every_ms : TRIG_EVERY_MS;
	if (!c->agg_session[0] && !ss.list)
		return reply_fail(r, -ENOENT, RE_NO_SESSIONS);
	if (!c->agg_session[0] && ss.list->next)
		return reply_fail(r, -EINVAL, RE_SEVERAL_SESSIONS);
	/* the session's name, not "the only one": it is the same after a restart */
	snprintf(t->agg_session, sizeof(t->agg_session), "%s",
		 c->agg_session[0] ? c->agg_session : ss.list->name);
	snprintf(t->agg, sizeof(t->agg), "%s", c->agg);
	snprintf(t->when, sizeof(t->when), "%s", c->when);
	t->policy = SHM_TRIG_EVERY;
	t->n = 1;
	if (aggcond_parse(t->when, &t->cond, why, sizeof(why)) < 0)
		return reply_fail(r, -EINVAL, RE_AGG_COND, .name = t->when, .detail = why);
	ret = agg_bind(t, &ag, why, sizeof(why));
	if (ret == -ENOENT && !session_by_name(t->agg_session))
		return reply_fail(r, ret, RE_NO_SESSION, .session = t->agg_session);
	if (ret < 0 && !(session_by_name(t->agg_session) &&
			 agg_by_name(session_by_name(t->agg_session), t->agg)))
		return reply_fail(r, ret, RE_NO_AGG, .session = t->agg_session, .name = t->agg);
	if (ret < 0)
		return reply_fail(r, -EINVAL, RE_AGG_COND, .name = t->when, .detail = why);
	t->next_ns = now_ns(CLOCK_MONOTONIC) + t->every_ms * 1000000u;
	return 0;
}

int cmd_add_trigger(struct reply *r, const struct proto_cmd *c)
{
	const struct cmd_trigger *b = &c->b.trigger;
	struct trigger *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "trigger");
	ret = trig_make(r, t, b, b->filter ? c->str[0] : NULL);
	if (ret == 0 && t->kind == CMD_TRIG_EVENT) {
		t->slot = trig_free_slot();
		if (t->slot < 0)
			ret = reply_fail(r, -EBUSY, RE_TRIGGERS_FULL, .n = { SHM_MAX_TRIG });
	}
	if (ret < 0) {
		trig_free(t);
		return ret;
	}
	t->id = ++ss.next_id;
	t->next = trigs.list;
	trigs.list = t;
	if (t->slot >= 0) {
		trigs.slot[t->slot] = t;
		apps_update_all();
	}
	log_info("trigger %s added", t->name);
	trig_send(r, t, 0);
	return 0;
}

int cmd_list_triggers(struct reply *r)
{
	const struct trigger *order[256];
	unsigned int n = 0;

	/* oldest first; the list is newest first */
	for (const struct trigger *t = trigs.list; t; t = t->next) {
		if (n == sizeof(order) / sizeof(order[0])) {
			for (unsigned int i = n; i > 0; i--)
				trig_send(r, order[i - 1], 0);
			n = 0;
		}
		order[n++] = t;
	}
	for (unsigned int i = n; i > 0; i--)
		trig_send(r, order[i - 1], 0);
	return 0;
}

/* Answer waiter @w with @status (@code about trigger @name) and forget it. */
static void waiter_fail(struct waiter **pp, int status, uint32_t code, uint64_t waited_ms)
{
	struct waiter *w = *pp;
	struct reply *r = reply_open_aside(w->fd);

	reply_fail(r, status, code, .name = w->name, .n = { waited_ms });
	reply_finish(r, status);
	ev_del(w->fd);
	close(w->fd);
	*pp = w->next;
	nwaiters--;
	free(w);
}

int cmd_remove_trigger(struct reply *r, const struct proto_cmd *c)
{
	for (uint32_t i = 0; i < c->nstr; i++) {
		struct trigger *t = trig_by_name(c->str[i]);

		if (!t)
			return reply_fail(r, -ENOENT, RE_NO_TRIGGER, .name = c->str[i]);
		trig_unlink(t);
		if (t->kind == CMD_TRIG_EVENT)
			apps_update_all();
		trig_send(r, t, REC_TRIGGER_REMOVED);
		log_info("trigger %s removed", t->name);
		trig_free(t);
	}
	return 0;
}

/* A waiter's connection is readable: it went away (it sends nothing more). */
static void waiter_gone(int fd, void *data)
{
	(void)data;
	for (struct waiter **pp = &waiters; *pp; pp = &(*pp)->next) {
		if ((*pp)->fd != fd)
			continue;
		struct waiter *w = *pp;

		ev_del(fd);
		close(fd);
		*pp = w->next;
		nwaiters--;
		free(w);
		return;
	}
}

int cmd_wait_trigger(struct reply *r, const struct cmd_wait_trigger *c)
{
	struct trigger *t = trig_by_name(c->name);
	struct waiter *w;
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	if (!t)
		return reply_fail(r, -ENOENT, RE_NO_TRIGGER, .name = c->name);
	if (nwaiters >= TRIG_MAX_WAITERS)
		return reply_fail(r, -EBUSY, RE_RANGE, .name = "clients waiting",
				  .n = { nwaiters + 1u, 0, TRIG_MAX_WAITERS });
	w = calloc(1, sizeof(*w));
	if (!w)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "waiter");
	w->fd = reply_detach(r);
	if (ev_add(w->fd, waiter_gone, NULL) < 0) {
		free(w);
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "waiter");
	}
	w->trig_id = t->id;
	snprintf(w->name, sizeof(w->name), "%s", t->name);
	w->since_ns = now;
	w->deadline_ns = c->timeout_ms ? now + c->timeout_ms * 1000000u : 0;
	w->next = waiters;
	waiters = w;
	nwaiters++;
	return CMD_KEPT;
}

/* ---- firings ------------------------------------------------------------- */

/* What @f fired, for a waiter. */
static void firing_record(const struct trigger *t, const struct firing *f,
			  const struct msg_c_agg_hit *hit, uint64_t time_ns, struct rec_firing *rf)
{
	memset(rf, 0, sizeof(*rf));
	REC_SET(rf->trigger, t->name);
	rf->kind = t->kind;
	rf->time_ns = time_ns;
	if (hit) {
		rf->value = hit->value;
		rf->lo = hit->lo;
		rf->hi = hit->hi;
		memcpy(rf->key, hit->key, sizeof(rf->key));
		rf->key[sizeof(rf->key) - 1] = 0;
		return;
	}
	if (!f)
		return;
	rf->flags = REC_FIRING_EVENT | ((f->rec.flags & SHM_TRIG_CUT) ? REC_FIRING_CUT : 0) |
		    ((f->rec.flags & SHM_TRIG_EARLY) ? REC_FIRING_EARLY : 0);
	rf->ts = f->rec.ts;
	rf->count = f->rec.count;
	rf->pid = (uint32_t)f->pid;
	rf->tid = (uint32_t)f->rec.tid;
	REC_SET(rf->event, f->ev.name);
	rf->nfields = f->rec.nfields;
	{
		uint32_t used = 0;

		for (uint32_t i = 0; i < f->rec.nfields && i < PROTO_MAX_FIELDS; i++) {
			rf->field[i].type = f->ev.fields[i].type;
			REC_SET(rf->field[i].name, f->ev.fields[i].name);
			if (f->ev.fields[i].type != SHMTRACE_TYPE_STRING) {
				rf->field[i].value = f->rec.val[i];
				continue;
			}
			/* checked by firing.c: NUL-terminated within str_used */
			if (used < f->rec.str_used) {
				REC_SET(rf->field[i].str, f->rec.str + used);
				used += (uint32_t)strlen(f->rec.str + used) + 1;
			}
			rf->field[i].value = strlen(rf->field[i].str);
		}
	}
}

/* Every waiter of @t answered with @rf. */
static void waiters_answer(const struct trigger *t, const struct rec_firing *rf)
{
	for (struct waiter **pp = &waiters; *pp;) {
		struct waiter *w = *pp;
		struct reply *r;

		if (w->trig_id != t->id) {
			pp = &w->next;
			continue;
		}
		r = reply_open_aside(w->fd);
		reply_rec(r, REC_FIRING, rf, sizeof(*rf));
		reply_finish(r, 0);
		ev_del(w->fd);
		close(w->fd);
		*pp = w->next;
		nwaiters--;
		free(w);
	}
}

static const char *act_name(uint32_t a)
{
	static const char *const names[] = { "?", "snapshot-session", "start-session",
					     "stop-session", "rotate-session", "notify" };

	return a <= CMD_ACT_NOTIFY ? names[a] : "?";
}

/* @t's action for a firing (@f of an event, or @hit of an aggregation), its waiters told. */
static void trig_act(struct trigger *t, const struct firing *f, const struct msg_c_agg_hit *hit,
		     uint64_t time_ns)
{
	static struct rec_firing rf;
	static const unsigned int verbs[] = { 0, VERB_SNAPSHOT, VERB_START, VERB_STOP,
					      VERB_ROTATE };
	char path[PROTO_PATH_MAX];
	int err = 0;

	path[0] = 0;
	if (t->action == CMD_ACT_NOTIFY) {
		if (f)
			log_info("trigger %s fired: %s by %d/%d (match %" PRIu64 ")", t->name,
				 f->ev.name, (int)f->pid, (int)f->rec.tid, f->rec.count);
		else
			log_info("trigger %s fired: %s of %s/%s for key %s (%" PRId64 ")", t->name,
				 t->when, t->agg_session, t->agg, hit ? hit->key : "", hit ? hit->value : 0);
	} else {
		struct session *s = session_by_name(t->action_session);

		err = s ? cmd_action(verbs[t->action], s, path, sizeof(path)) : -ENOENT;
		if (err < 0)
			log_warn("trigger %s: %s %s failed: %s", t->name, act_name(t->action),
				 t->action_session, strerror(-err));
		else
			log_info("trigger %s: %s %s%s%s", t->name, act_name(t->action),
				 t->action_session, path[0] ? " to " : "", path);
	}
	if (err < 0)
		t->failed++;
	else
		t->fired++;
	t->last_err = err < 0 ? -err : 0;
	t->last_time_ns = time_ns;
	t->last_pid = f ? (uint32_t)f->pid : 0;
	t->last_tid = f ? (uint32_t)f->rec.tid : 0;
	snprintf(t->last_path, sizeof(t->last_path), "%s", path);
	firing_record(t, f, hit, time_ns, &rf);
	waiters_answer(t, &rf);
}

static int dirty;		/* counts changed out of trig_tick(): to save */
static int acting;		/* firings_act() runs: not again from inside it */

/* The firings read from the processes, acted on: 1 when any was. */
static int firings_act(void)
{
	struct firing *f;
	int changed = 0;

	if (acting)
		return 0;	/* an action's verb saw a process go: left to the loop */
	acting = 1;
	while ((f = firings_pop())) {
		struct trigger *t = trig_by_id(f->rec.trig_id);

		if (!t || t->kind != CMD_TRIG_EVENT) {
			free(f);	/* removed meanwhile: nothing to do */
			continue;
		}
		changed = 1;
		if (t->spent) {
			t->ignored++;
			free(f);
			continue;
		}
		if (t->policy == SHM_TRIG_ONCE_AFTER) {
			t->spent = 1;
			apps_update_all();	/* off every control page */
		}
		trig_act(t, f, NULL, f->time_ns);
		free(f);
	}
	acting = 0;
	return changed;
}

/* A process goes (firing.c): its firings acted on now, its counts kept. */
static void firings_now(const struct app *a)
{
	for (struct trigger *t = trigs.list; t; t = t->next) {
		uint64_t m = app_count(t, a, 0), l = app_count(t, a, 1);

		t->matches_gone += m;
		t->lost_gone += l;
		dirty |= (m | l) != 0;	/* counts that only the state keeps now */
	}
	dirty |= firings_act();
}

/* ---- aggregation triggers -------------------------------------------------- */

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int key_known(const struct trigger *t, const char *key)
{
	return bsearch(&key, t->keys, t->nkeys, sizeof(*t->keys), key_cmp) != NULL;
}

/* Evaluate @t now: its keys that meet the condition and did not before fire. 1 when any. */
static int agg_eval(struct trigger *t)
{
	const struct aggregation *ag;
	struct msg_c_agg_eval m;
	struct msg_c_agg_hit *hits = NULL;
	char why[PROTO_WHY_MAX], **keys = NULL;
	size_t nhits = 0, nkeys = 0;
	int fd, ret, fired = 0;
	off_t size;

	if (agg_bind(t, &ag, why, sizeof(why)) < 0 || !consumer_running())
		return 0;	/* its aggregation is not there (now): nothing meets it */
	memset(&m, 0, sizeof(m));
	m.agg_id = ag->id;
	m.max = TRIG_MAX_HITS;
	m.cond = t->cond;
	fd = memfd_create("shmtrace-agg-eval", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	apps_poll_all();	/* the segments the processes made */
	ret = consumer_call(MSG_C_AGG_EVAL, &m, sizeof(m), &fd, 1, NULL, 0);
	size = ret == 0 ? lseek(fd, 0, SEEK_END) : -1;
	if (size > 0 && (size_t)size <= TRIG_MAX_HITS * sizeof(*hits) &&
	    (size_t)size % sizeof(*hits) == 0) {
		hits = malloc((size_t)size);
		if (hits && pread(fd, hits, (size_t)size, 0) == size)
			nhits = (size_t)size / sizeof(*hits);
	}
	close(fd);
	keys = calloc(nhits ? nhits : 1, sizeof(*keys));
	if (!keys) {
		free(hits);
		return 0;
	}
	for (size_t i = 0; i < nhits; i++) {
		hits[i].key[sizeof(hits[i].key) - 1] = 0;
		if (!key_known(t, hits[i].key)) {
			trig_act(t, NULL, &hits[i], now_ns(CLOCK_REALTIME));
			fired = 1;
		}
		keys[nkeys] = strdup(hits[i].key);
		if (keys[nkeys])
			nkeys++;
	}
	qsort(keys, nkeys, sizeof(*keys), key_cmp);
	trig_keys_free(t);
	t->keys = keys;
	t->nkeys = nkeys;
	free(hits);
	return fired || nkeys != 0;
}

/* ---- the loop ------------------------------------------------------------ */

int trig_tick(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	int changed = 0;

	if (now - last_sweep_ns >= TRIG_SWEEP_MS * 1000000ull) {
		apps_firings();
		last_sweep_ns = now;
	}
	changed |= firings_act() | dirty;
	dirty = 0;
	for (struct trigger *t = trigs.list; t; t = t->next) {
		if (t->kind != CMD_TRIG_AGG || now < t->next_ns)
			continue;
		changed |= agg_eval(t);
		now = now_ns(CLOCK_MONOTONIC);
		t->next_ns = now + t->every_ms * 1000000u;
	}
	for (struct waiter **pp = &waiters; *pp;) {
		struct waiter *w = *pp;

		if (w->deadline_ns && now >= w->deadline_ns)
			waiter_fail(pp, -ETIMEDOUT, RE_WAIT_TIMEOUT,
				    (now - w->since_ns) / 1000000u);
		else if (!trig_by_id(w->trig_id))
			waiter_fail(pp, -ENOENT, RE_TRIGGER_GONE, 0);
		else
			pp = &w->next;
	}
	return changed;
}

int trig_wait_ms(int max)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), next = now + TRIG_SWEEP_MS * 1000000ull;
	int ms;

	for (const struct trigger *t = trigs.list; t; t = t->next)
		if (t->kind == CMD_TRIG_AGG && t->next_ns < next)
			next = t->next_ns;
	for (const struct waiter *w = waiters; w; w = w->next)
		if (w->deadline_ns && w->deadline_ns < next)
			next = w->deadline_ns;
	if (!trigs.list && !waiters)
		return max;
	ms = next <= now ? 0 : (int)((next - now + 999999) / 1000000);
	return max < 0 || ms < max ? ms : max;
}

void trig_init(void)
{
	firings_set_hook(firings_now);
}

void trig_shutdown(void)
{
	while (waiters)
		waiter_fail(&waiters, -ESHUTDOWN, RE_SHUTDOWN, 0);
}

/* ---- saved state ----------------------------------------------------------- */

static void put_str(FILE *f, const char *k, const char *v)
{
	fprintf(f, "\"%s\":", k);
	js_put_str(f, v, strlen(v));
	fputc(',', f);
}

int trig_unsaved(void)
{
	return dirty;
}

void trig_state_save(FILE *f)
{
	const struct trigger *order[1024];
	unsigned int n = 0;

	dirty = 0;
	for (const struct trigger *t = trigs.list; t && n < 1024; t = t->next)
		order[n++] = t;
	fputs("\"triggers\":[", f);
	for (unsigned int i = n; i > 0; i--) {
		const struct trigger *t = order[i - 1];

		fprintf(f, "{\"id\":%" PRIu64 ",\"slot\":%d,\"kind\":%u,\"action\":%u,"
			"\"policy\":%u,\"n\":%" PRIu64 ",\"every_ms\":%" PRIu64 ",\"fired\":%" PRIu64
			",\"failed\":%" PRIu64 ",\"ignored\":%" PRIu64 ",\"spent\":%d,"
			"\"matches_gone\":%" PRIu64 ",\"lost_gone\":%" PRIu64 ",",
			t->id, t->slot < 0 ? SHM_MAX_TRIG : t->slot, t->kind, t->action, t->policy,
			t->n, t->every_ms, t->fired, t->failed, t->ignored, t->spent, t->matches_gone,
			t->lost_gone);
		put_str(f, "name", t->name);
		put_str(f, "session", t->action_session);
		put_str(f, "pattern", t->ev.pattern);
		put_str(f, "agg_session", t->agg_session);
		put_str(f, "agg", t->agg);
		put_str(f, "when", t->when);
		if (t->last_time_ns) {
			fprintf(f, "\"last\":{\"time_ns\":%" PRIu64 ",\"pid\":%u,\"tid\":%u,"
				"\"errno\":%d,", t->last_time_ns, t->last_pid, t->last_tid,
				t->last_err);
			fputs("\"path\":", f);
			js_put_str(f, t->last_path, strlen(t->last_path));
			fputs("},", f);
		}
		fputs("\"filter\":", f);
		if (t->ev.filter)
			js_put_str(f, t->ev.filter, strlen(t->ev.filter));
		else
			fputs("null", f);
		fputs(",\"keys\":[", f);
		for (size_t k = 0; k < t->nkeys; k++) {
			js_put_str(f, t->keys[k], strlen(t->keys[k]));
			if (k + 1 < t->nkeys)
				fputc(',', f);
		}
		fputs(i > 1 ? "]}," : "]}", f);
	}
	fputs("],", f);
}

/* One saved trigger, checked as add-trigger checks it; NULL and r->why when not. */
static struct trigger *trd_trigger(struct js_rd *r, const struct js_node *o)
{
	static struct proto_cmd c;
	struct cmd_trigger *b = &c.b.trigger;
	const struct js_node *flt, *keys, *k, *last;
	struct trigger *t;
	struct reply *rep;
	unsigned int count = 0;
	uint64_t id, slot;
	int ret;

	memset(&c, 0, sizeof(c));
	id = js_rd_u64(r, o, "id", UINT64_MAX);
	slot = js_rd_u64(r, o, "slot", SHM_MAX_TRIG);
	b->kind = (uint32_t)js_rd_u64(r, o, "kind", CMD_TRIG_AGG);
	b->action = (uint32_t)js_rd_u64(r, o, "action", CMD_ACT_NOTIFY);
	b->policy = (uint32_t)js_rd_u64(r, o, "policy", SHM_TRIG_ONCE_AFTER);
	b->n = js_rd_u64(r, o, "n", UINT64_MAX);
	b->every_ms = js_rd_u64(r, o, "every_ms", TRIG_EVERY_MAX_MS);
	js_rd_str(r, o, "name", b->name, sizeof(b->name));
	js_rd_str(r, o, "session", b->action_session, sizeof(b->action_session));
	js_rd_str(r, o, "pattern", b->pattern, sizeof(b->pattern));
	js_rd_str(r, o, "agg_session", b->agg_session, sizeof(b->agg_session));
	js_rd_str(r, o, "agg", b->agg, sizeof(b->agg));
	js_rd_str(r, o, "when", b->when, sizeof(b->when));
	flt = js_member(r->doc, o, "filter", &count);
	if (count != 1 || !flt || (flt->type != JS_NULL && flt->type != JS_STR) ||
	    (flt->type == JS_STR && memchr(js_str(r->doc, flt), 0, flt->len)))
		r->why = r->why ? r->why : "filter";
	keys = js_rd_get(r, o, "keys", JS_ARR);
	if (r->why || !id)
		return NULL;
	if (flt->type == JS_STR) {
		b->filter = 1;
		c.nstr = 1;
		c.str[0] = js_str(r->doc, flt);
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		r->why = "memory";
		return NULL;
	}
	/* the same checks as add-trigger, answered to nobody (an aggregation or a
	 * session not there is not an error here: it may come back) */
	rep = reply_open(-1);
	ret = trig_make(rep, t, b, b->filter ? c.str[0] : NULL);
	reply_finish(rep, 0);
	if (ret < 0) {
		/* its session or aggregation is gone, or changed: kept as it was
		 * written (its action, its evaluation fail until they are back) */
		char err[200];

		trig_free(t);
		t = calloc(1, sizeof(*t));
		if (!t) {
			r->why = "memory";
			return NULL;
		}
		snprintf(t->name, sizeof(t->name), "%s", b->name);
		t->kind = b->kind;
		t->action = b->action;
		snprintf(t->action_session, sizeof(t->action_session), "%s", b->action_session);
		t->policy = b->policy;
		t->n = b->n;
		t->slot = -1;
		snprintf(t->ev.pattern, sizeof(t->ev.pattern), "%s", b->pattern);
		snprintf(t->agg_session, sizeof(t->agg_session), "%s", b->agg_session);
		snprintf(t->agg, sizeof(t->agg), "%s", b->agg);
		snprintf(t->when, sizeof(t->when), "%s", b->when);
		t->every_ms = b->every_ms ? b->every_ms : TRIG_EVERY_MS;
		if (!proto_name_ok(t->name) || trig_by_name(t->name) ||
		    t->kind < CMD_TRIG_EVENT || t->kind > CMD_TRIG_AGG ||
		    t->action < CMD_ACT_SNAPSHOT || !t->n ||
		    (b->filter && filter_set(&t->ev, c.str[0], err, sizeof(err)) < 0) ||
		    (t->kind == CMD_TRIG_AGG && aggcond_parse(t->when, &t->cond, err, sizeof(err)) < 0)) {
			trig_free(t);
			r->why = "trigger";
			return NULL;
		}
	}
	t->id = id;
	t->fired = js_rd_u64(r, o, "fired", UINT64_MAX);
	t->failed = js_rd_u64(r, o, "failed", UINT64_MAX);
	t->ignored = js_rd_u64(r, o, "ignored", UINT64_MAX);
	t->spent = (int)js_rd_u64(r, o, "spent", 1);
	t->matches_gone = js_rd_u64(r, o, "matches_gone", UINT64_MAX);
	t->lost_gone = js_rd_u64(r, o, "lost_gone", UINT64_MAX);
	/* its last firing (absent: none yet, or a state saved before it was kept) */
	count = 0;
	last = js_member(r->doc, o, "last", &count);
	if (count > 1 || (last && last->type != JS_OBJ)) {
		r->why = r->why ? r->why : "last";
	} else if (last) {
		t->last_time_ns = js_rd_u64(r, last, "time_ns", UINT64_MAX);
		t->last_pid = (uint32_t)js_rd_u64(r, last, "pid", UINT32_MAX);
		t->last_tid = (uint32_t)js_rd_u64(r, last, "tid", UINT32_MAX);
		t->last_err = (int)js_rd_u64(r, last, "errno", 4095);
		js_rd_str(r, last, "path", t->last_path, sizeof(t->last_path));
	}
	t->next_ns = now_ns(CLOCK_MONOTONIC) + t->every_ms * 1000000u;
	if (t->kind == CMD_TRIG_EVENT) {
		if (slot >= SHM_MAX_TRIG || trigs.slot[slot]) {
			trig_free(t);
			r->why = "slot";
			return NULL;
		}
		t->slot = (int)slot;
	}
	for (k = js_child(r->doc, keys); k && !r->why; k = js_next(r->doc, keys, k)) {
		char **nk;

		if (k->type != JS_STR || t->nkeys >= TRIG_MAX_HITS ||
		    memchr(js_str(r->doc, k), 0, k->len) ||
		    !(nk = realloc(t->keys, (t->nkeys + 1) * sizeof(*nk)))) {
			r->why = "keys";
			break;
		}
		t->keys = nk;
		t->keys[t->nkeys] = strdup(js_str(r->doc, k));
		if (!t->keys[t->nkeys])
			r->why = "keys";
		else
			t->nkeys++;
	}
	if (r->why) {
		trig_free(t);
		return NULL;
	}
	qsort(t->keys, t->nkeys, sizeof(*t->keys), key_cmp);
	return t;
}

const char *trig_state_load(const struct js_doc *doc, const struct js_node *root)
{
	struct js_rd r = { .doc = doc };
	unsigned int count = 0;
	const struct js_node *arr = js_member(doc, root, "triggers", &count);
	struct trigger **tail = &trigs.list;

	if (!arr && !count)
		return NULL;	/* a state saved before triggers */
	if (count != 1 || !arr || arr->type != JS_ARR)
		return "triggers";
	for (const struct js_node *el = js_child(doc, arr); el; el = js_next(doc, arr, el)) {
		struct trigger *t = el->type == JS_OBJ ? trd_trigger(&r, el) : NULL;

		if (!t || trig_by_name(t->name) || trig_by_id(t->id)) {
			trig_free(t);
			goto bad;
		}
		/* oldest first in the file, newest first on the list */
		t->next = NULL;
		*tail = t;
		tail = &t->next;
		if (t->slot >= 0)
			trigs.slot[t->slot] = t;
		if (t->id > ss.next_id)
			ss.next_id = t->id;
	}
	{
		/* newest first */
		struct trigger *rev = NULL;

		while (trigs.list) {
			struct trigger *t = trigs.list;

			trigs.list = t->next;
			t->next = rev;
			rev = t;
		}
		trigs.list = rev;
	}
	return NULL;
bad:
	while (trigs.list) {
		struct trigger *t = trigs.list;

		trig_unlink(t);
		trig_free(t);
	}
	return r.why ? r.why : "triggers";
}
