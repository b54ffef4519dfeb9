/* SPDX-License-Identifier: MIT */
/*
 * evfilter.c - filters on event fields, decided in the traced thread
 * before any byte of the event is copied.
 *
 * The session daemon compiles `enable-event --filter EXPR` into bytecode
 * (common/filter.h) and puts it in the control page: filt[channel][event
 * id] names the filter, filters.f[] says where its code is. The inline
 * fast path calls shmtrace__filter_ts() (shmtrace__filter() in modules
 * of ABI 2 and 3) only for channels in the event's
 * `filtered` mask, with the event's field values. An event that updates
 * aggregations is filtered in every channel that records it (or polled
 * when none does): shmtrace__filter() hands it to aggr_event() first,
 * whose filters (`tracectl aggregate --filter`) use the same cache, and
 * the triggers of the event to trig_event() (trigger.c), whose filters do
 * too.
 *
 * The control page is written by another process: a thread copies a
 * filter's code into its own cache (a few entries in pages it maps at its
 * first filtered event and unmaps at exit; only the pointer is in
 * initial-exec TLS, which stays small for a library loaded by dlopen) under
 * the page's sequence counter, checks it with flt_validate() and binds its
 * field names to the event's fields, once per (generation, filter, event);
 * later events of the same kind evaluate the cached copy: straight from
 * the raw field values when it is a conjunction of integer comparisons
 * (most filters), else with the interpreter. A name that is not a field of
 * the event may name the thread's context: $ctx.cpu_id, $ctx.vtid,
 * $ctx.vpid. Nothing here
 * allocates or locks, so signal handlers may emit filtered events too (a
 * handler that interrupts an event does not get here: nested events are
 * dropped before).
 *
 * A filter's number means something only at the generation it was read
 * at: the daemon renumbers the filters whenever one comes or goes (a
 * trigger spent, an enable-event with --filter). evf_keep() is given that
 * generation and evaluates the code the page had then (a cached copy, or
 * one made while the page is still there), or says it cannot (-EAGAIN);
 * the caller reads again or decides without it: a channel keeps the
 * event (evf_channels(): nothing is lost because of a page being
 * written, or a damaged one), an aggregation or a trigger counts the
 * event lost (aggr.c, trigger.c): neither ever takes an event its filter
 * refuses.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "common/filter.h"
#include "lib.h"

#define EVF_CACHE	4
#define EVF_MAX_CODE	SHM_FILTER_MAX_CODE
#define EVF_TERMS	8
#define EVF_TRIES	8		/* rounds while the page keeps changing */

/* A comparison of a conjunction, bound to the event's field. */
struct evf_term {
	struct flt_term t;
	int8_t field;			/* a field, or EVF_* */
	uint8_t sext;			/* sign-extending shift of its raw bits */
	uint8_t is_signed;
};

struct evf_entry {
	uint64_t gen;			/* control page generation, 0 = empty */
	uint32_t id;			/* event id */
	uint8_t num;			/* filter number (1..255) */
	uint8_t ok;			/* code valid and bound */
	uint8_t nfields;		/* field slots of the code */
	int8_t bind[FLT_MAX_FIELDS];	/* slot -> field index, or EVF_* */
	uint8_t vtype[FLT_MAX_FIELDS];	/* slot -> enum flt_type of its value */
	uint8_t sext[FLT_MAX_FIELDS];	/* slot -> shift that sign-extends it */
	int8_t nterms;			/* a conjunction of integer comparisons, or -1 */
	struct evf_term terms[EVF_TERMS];
	unsigned char code[EVF_MAX_CODE];
};

static __thread struct evf_entry *evf_cache __attribute__((tls_model("initial-exec")));
static __thread unsigned int evf_next __attribute__((tls_model("initial-exec")));

#define EVF_CACHE_BYTES (((EVF_CACHE * sizeof(struct evf_entry)) + SHM_PAGE - 1) & ~(size_t)(SHM_PAGE - 1))

/* At thread exit (writer.c). */
void evf_thread_exit(void)
{
	if (evf_cache)
		munmap(evf_cache, EVF_CACHE_BYTES);
	evf_cache = NULL;
}

/*
 * Copy filter @num's code as the page numbers it at generation @gen: its
 * length; -EAGAIN when the page is not at @gen (being written, or written
 * since: the number may name another filter now); -EINVAL when the page
 * at @gen holds no readable code under that number.
 */
static int evf_copy(const struct shm_ctl_page *ctl, unsigned int num, unsigned char *out,
		    uint64_t gen)
{
	uint32_t off, len;
	int inside;

	if (__atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE) != gen)
		return -EAGAIN;
	off = __atomic_load_n(&ctl->filters.f[num - 1].off, __ATOMIC_RELAXED);
	len = __atomic_load_n(&ctl->filters.f[num - 1].len, __ATOMIC_RELAXED);
	inside = len && len <= EVF_MAX_CODE && off <= sizeof(ctl->filters.code) &&
		 len <= sizeof(ctl->filters.code) - off;
	if (inside)
		memcpy(out, ctl->filters.code + off, len);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) != gen)
		return -EAGAIN;	/* what was read may be torn: nothing said of it */
	return inside ? (int)len : -EINVAL;
}

/*
 * How the evaluator sees a field of @type: *vtype, and for signed integers
 * narrower than 64 bits the shift that sign-extends their raw bits.
 */
void evf_kind(uint32_t type, uint8_t *vtype, uint8_t *sext)
{
	*sext = 0;
	switch (type) {
	case SHMTRACE_TYPE_U8: case SHMTRACE_TYPE_U16: case SHMTRACE_TYPE_U32:
	case SHMTRACE_TYPE_U64: case SHMTRACE_TYPE_HEX64:
		*vtype = FLT_T_U64;
		break;
	case SHMTRACE_TYPE_S8: case SHMTRACE_TYPE_S16: case SHMTRACE_TYPE_S32:
	case SHMTRACE_TYPE_S64:
		*vtype = FLT_T_S64;
		*sext = (uint8_t)(64 - 8 * (1u << (type - SHMTRACE_TYPE_S8)));
		break;
	case SHMTRACE_TYPE_DOUBLE:
		*vtype = FLT_T_F64;	/* the bits, as stored */
		break;
	case SHMTRACE_TYPE_STRING:
		*vtype = FLT_T_STR;
		break;
	default:
		*vtype = FLT_T_NONE;	/* sequences cannot be compared */
		break;
	}
}

/*
 * When the filter is a conjunction of comparisons of integer fields with
 * constants, decide it straight from the raw values (evf_conj()), without
 * the interpreter: same result, half the time.
 */
static void evf_plan(struct evf_entry *e)
{
	struct flt_term t[EVF_TERMS];
	int n = flt_conjunction(e->code, t, EVF_TERMS);

	e->nterms = -1;
	for (int i = 0; i < n; i++) {
		struct evf_term *x = &e->terms[i];
		uint8_t vt;

		if (t[i].slot >= e->nfields)
			return;
		vt = e->vtype[t[i].slot];
		if (vt != FLT_T_S64 && vt != FLT_T_U64 && vt != FLT_T_NONE)
			return;		/* a double or a string: the interpreter */
		x->t = t[i];
		x->field = vt == FLT_T_NONE ? EVF_NONE : e->bind[t[i].slot];
		x->sext = e->sext[t[i].slot];
		x->is_signed = vt == FLT_T_S64;
	}
	e->nterms = (int8_t)n;
}

/* The context named by @kind (EVF_CPU, EVF_TID, EVF_PID), now. */
uint64_t evf_ctx(int kind)
{
	switch (kind) {
	case EVF_CPU:
		return shmtrace__cpu(&shmtrace__tls);
	case EVF_TID:
		return (uint64_t)writer_tid();
	default:
		return (uint64_t)lib.pid;
	}
}

/* The bits of slot @field's value: a raw field value sign-extended, or the context. */
static inline uint64_t evf_raw(int field, unsigned int sext, const struct shmtrace__fval *v)
{
	if (field < 0)
		return evf_ctx(field);
	return sext ? (uint64_t)((int64_t)(v[field].u << sext) >> sext) : v[field].u;
}

static int evf_conj(const struct evf_entry *e, const struct shmtrace__fval *v)
{
	for (int i = 0; i < e->nterms; i++) {
		const struct evf_term *x = &e->terms[i];
		uint64_t u;

		if (x->field == EVF_NONE)
			return 0;
		u = evf_raw(x->field, x->sext, v);
		if (!flt_op_holds(x->t.op, flt_int_cmp(x->is_signed, u, x->t.c_signed, x->t.c)))
			return 0;
	}
	return 1;
}

/* The context a name that is not one of the event's fields names, or EVF_NONE. */
int8_t evf_ctx_kind(const char *name)
{
	if (!strncmp(name, "$ctx.", 5))
		name += 5;
	else if (strcmp(name, "cpu_id"))
		return EVF_NONE;	/* bare names: only the context field cpu_id */
	if (!strcmp(name, "cpu_id"))
		return EVF_CPU;
	if (!strcmp(name, "vtid") || !strcmp(name, "tid"))
		return EVF_TID;
	if (!strcmp(name, "vpid") || !strcmp(name, "pid"))
		return EVF_PID;
	return EVF_NONE;
}

/*
 * Filter @num of generation @gen bound to @ev's fields, from the thread's
 * cache, into *@out: 0; -EAGAIN (the page has left @gen) or -EINVAL (no
 * valid code under that number at @gen, remembered as such).
 */
static int evf_get(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
		   unsigned int num, uint64_t gen, struct evf_entry **out)
{
	struct evf_entry *e;
	int len;

	if (!evf_cache) {
		void *p = mmap(NULL, EVF_CACHE_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -EINVAL;
		evf_cache = p;
	}
	for (unsigned int i = 0; i < EVF_CACHE; i++) {
		e = &evf_cache[i];
		if (e->gen == gen && e->id == ev->id && e->num == num) {
			*out = e;
			return e->ok ? 0 : -EINVAL;
		}
	}
	e = &evf_cache[evf_next++ % EVF_CACHE];
	memset(e, 0, offsetof(struct evf_entry, code));
	len = evf_copy(ctl, num, e->code, gen);
	if (len == -EAGAIN)
		return len;	/* the entry stays empty */
	e->gen = gen;
	e->id = ev->id;
	e->num = (uint8_t)num;
	if (len < 0 || flt_validate(e->code, (uint32_t)len) < 0)
		return -EINVAL;
	e->nfields = (uint8_t)flt_nfields(e->code);
	for (unsigned int k = 0; k < e->nfields; k++) {
		const char *name = flt_field_name(e->code, k);

		e->bind[k] = EVF_NONE;
		e->vtype[k] = FLT_T_NONE;
		e->sext[k] = 0;
		for (uint32_t f = 0; f < ev->nfields && f < 127; f++) {
			if (!strcmp(ev->fields[f].name, name)) {
				e->bind[k] = (int8_t)f;
				evf_kind(ev->fields[f].type, &e->vtype[k], &e->sext[k]);
			}
		}
		if (e->bind[k] == EVF_NONE) {
			e->bind[k] = evf_ctx_kind(name);
			if (e->bind[k] != EVF_NONE)
				e->vtype[k] = FLT_T_U64;
		}
	}
	evf_plan(e);
	e->ok = 1;
	*out = e;
	return 0;
}

/* Does filter @e keep the event of values @v? */
static int evf_holds(const struct evf_entry *e, const struct shmtrace__fval *v)
{
	struct flt_value vals[FLT_MAX_FIELDS];

	if (e->nterms >= 0)
		return evf_conj(e, v);
	for (unsigned int k = 0; k < e->nfields; k++) {
		vals[k].type = (enum flt_type)e->vtype[k];
		if (vals[k].type == FLT_T_NONE)
			continue;	/* not looked at */
		if (vals[k].type == FLT_T_STR)
			vals[k].str = v[e->bind[k]].s;
		else	/* bits as stored, or the context */
			vals[k].u = evf_raw(e->bind[k], e->sext[k], v);
	}
	return flt_eval(e->code, vals);
}

int evf_keep(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev, unsigned int num,
	     uint64_t gen, const struct shmtrace__fval *v)
{
	struct evf_entry *e;
	int ret;

	if (!num)
		return 1;
	if (num > SHM_MAX_FILTERS || ev->id >= SHM_MAX_EVENTS || (gen & 1))
		return -EINVAL;
	ret = evf_get(ctl, ev, num, gen, &e);
	return ret < 0 ? ret : evf_holds(e, v);
}

/*
 * The channels of @mask whose filters keep the event: each channel's
 * filter number read and its code evaluated at one generation, checked
 * unchanged after (a number read after a change could name another
 * filter). A page that keeps changing, or a filter that cannot be read,
 * keeps the event in that channel: a filter in doubt loses nothing.
 */
static unsigned int evf_channels(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
				 unsigned int mask, const struct shmtrace__fval *v)
{
	for (int tries = 0; tries < EVF_TRIES; tries++) {
		unsigned int todo = mask & ev->filtered, out = mask;
		int again = 0;
		uint64_t g;

		if (lib_ctl_gen(ctl, &g) < 0)
			break;
		while (todo) {
			unsigned int c = (unsigned int)__builtin_ctz(todo);
			int r;

			todo &= todo - 1;
			if (c >= SHM_MAX_CHAN)
				break;
			r = evf_keep(ctl, ev, __atomic_load_n(&ctl->filt[c][ev->id], __ATOMIC_RELAXED),
				     g, v);
			if (r == 0)
				out &= ~(1u << c);
			again |= r == -EAGAIN;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!again && __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) == g)
			return out;
	}
	return mask;
}

/*
 * The channels of @mask that keep the event, after its aggregations (in
 * the event's `filtered` mask when it has some, polled when it has only
 * them: aggr.c) took it. *@ts is the event's time when an aggregation
 * needed it (a profile), else left 0: the emit function then reads it
 * itself, after the filters, so that an event is never stamped twice.
 */
SHMTRACE_API unsigned int shmtrace__filter_ts(const struct shmtrace_event *ev, unsigned int mask,
					      const struct shmtrace__fval *v, uint64_t *ts)
{
	const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	unsigned int fire = 0, slots;

	if (ctl && ev->id < SHM_MAX_EVENTS) {
		slots = __atomic_load_n(&ctl->aggen[ev->id], __ATOMIC_RELAXED);
		if (slots)
			aggr_event(ctl, ev, v, ts, slots);
		if (__atomic_load_n(&ctl->trigen[ev->id], __ATOMIC_RELAXED) && trig_event(ctl, ev, v))
			fire = SHMTRACE__FIRE;	/* only for ABI 3 and later (trigger.c) */
	}
	if (__builtin_expect(ev->polled, 0)) {
		/* recorded nowhere: it only looked for changes, aggregated or fired */
		if (ev->polled == REG_POLL_LOOK && __atomic_load_n(&lib.late, __ATOMIC_RELAXED))
			lib_late_event();
		return fire;
	}
	if (!ctl || ev->id >= SHM_MAX_EVENTS)
		return mask | fire;
	return evf_channels(ctl, ev, mask, v) | fire;
}

/* The entry point of modules built for ABI 2 and 3, which read the clock after it. */
SHMTRACE_API unsigned int shmtrace__filter(const struct shmtrace_event *ev, unsigned int mask,
					   const struct shmtrace__fval *v)
{
	uint64_t ts = 0;

	return shmtrace__filter_ts(ev, mask, v, &ts);
}
