// SPDX-License-Identifier: MIT
/*
 * aggr.c - aggregations updated in the traced thread: counts, sums,
 * extrema and histograms kept where the events happen, with nothing
 * written to the ring buffers.
 *
 * The session daemon puts an aggregation in a slot of the control page
 * (struct shm_ctl_agg: its definition, field names, filter, table
 * capacity) and marks the events that update it in aggen[event id].
 * registry.c routes such events to shmtrace__filter_ts() with their field
 * values, which calls aggr_event() before it decides the channels.
 *
 * Per thread (a page or two mapped at its first aggregated event, only
 * the pointer in initial-exec TLS, as evfilter.c does):
 *  - bindings: per (control generation, event id, slot), a private copy
 *    of the slot's definition read under the generation's sequence counter
 *    and checked with agg_geom(), its field names bound to the event's
 *    fields (or the thread's context). The control page is another
 *    process's memory: nothing of it is used unchecked.
 *  - tables: per slot, the table the thread owns in this process's
 *    segments of that aggregation.
 *  - the event cache: per event id (direct-mapped), the bindings and
 *    tables the event updates, made by the first event of that id at a
 *    control generation once every slot has both. An event whose entry
 *    has the page's generation, its aggen[] slots and the thread's epoch
 *    goes straight to the updates: no search, no lock. The epoch moves
 *    whenever a binding is written or a table let go (an entry may point
 *    at them), and in a forked child.
 *
 * Plans (ABI 5): when the entry made is one key1 aggregation (one integer
 * key, integer arguments straight from the fields, no filter) and the
 * event has no trigger and no channel filter at that generation (read,
 * then the generation read again), which is the one the thread applied,
 * aggr_plan() also writes the thread's plan for the event (struct
 * shmtrace__aggp, shmtrace__tls.agg), which the emit function of an ABI 5
 * module applies itself, without a call, as long as the plan is there:
 * aggr_new_gen() empties the plans when the thread applies another
 * generation (shmtrace__resync()), aggr_forget() wherever the epoch moves
 * (a binding made again, a table let go, fork), and aggr_thread_exit()
 * points the thread at aggr_no_plans before the tables are given back: a
 * plan never names a table the thread no longer owns. The update is the
 * same (tests/unit/agg compares the two byte for byte).
 *
 * Segments (shm.h, part 4) are created under lib_lock, never move and are
 * never unmapped while the process lives; a thread takes a free table by a
 * compare-and-swap on owner[i] (once per thread and aggregation) and gives
 * it back at exit with a release store; a new thread adds to the counts
 * of the tables it takes. The update itself (agg_update_key(), with the
 * key made from the field values and hashed once; agg_update() for a
 * string key) is plain stores under the table's sequence counter: no
 * lock, no atomic read-modify-write, no clock read (except for profiles).
 *
 * Losses are counted, never silent: an update nested in a signal handler
 * (writer.c, shmtrace__nested_drop_ev()), one that found no table (memory,
 * segment table full) or an unreadable definition adds to `lost` in the
 * aggregation's first segment, or, before the process has one, to
 * lib.agg_lost[slot], moved into it when it is made.
 *
 * Crashes: a thread that dies in an update leaves its table's sequence odd:
 * the consumer merges it and says it is torn (at most one update half
 * done). A process that dies leaves its segments to the consumer, which
 * merges them once it learns the process is gone. fork: the segments are
 * MADV_DONTFORK; the child forgets them (aggr_after_fork()) and makes its
 * own: a child's updates are its own.
 *
 * Profiles (SHM_AGG_PROFILE): the values come from a per-thread shadow
 * stack of function entries (shmtrace_func:entry/exit, the func preload
 * helper) and allocations (shmtrace_libc:*): at a function's exit, its key
 * (process, address) gets one call, its total and self time in
 * nanoseconds, and the bytes and allocations made in it
 * (self, and with its callees). As trace-read --profile counts them: the
 * total (time, bytes, allocations with callees) of a recursive function
 * counts its outermost activation only, so that nothing counts twice.
 * Times are the events' own (shmtrace__clock(), read once per event and
 * handed back to the emit function, which stamps the event with it when
 * it records it too); TSC ticks become nanoseconds by a multiplier the
 * process measures against CLOCK_MONOTONIC over its first 10 ms of
 * profiling, reading both clocks until then (aggr_mult()).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"
#include "common/proto.h"

#define AGGR_BINDS	32		/* two-way, by event id and slot */
#define AGGR_EVC	32		/* event cache: direct-mapped by event id */
#define AGGR_DEPTH	256		/* profile: deepest call stack followed */
#define AGGR_FIRST_TABLES 4u		/* tables of the first segment */
#define AGGR_RETRY	63		/* no table: updates lost before asking again */
#define AGGR_P_NONE	(-1)		/* profile names: none of ours */
#define AGGR_P_ADDR	(-2)		/* the function's address */
#define AGGR_P_PID	(-3)		/* the process */
#define AGGR_CAL_NS	10000000u	/* profiles: TSC measured against CLOCK_MONOTONIC so long */
#define AGGR_CAL_GAP	2000u		/* ... by readings this close (ticks) */

struct aggr_bind {
	uint64_t gen;			/* control generation it was read at, 0 = empty */
	uint64_t agg_id;
	uint32_t id;			/* event id */
	uint8_t slot;
	uint8_t ok;			/* definition checked and bound */
	uint8_t nnames;
	uint8_t role;			/* profiles: enum agg_role */
	uint8_t int_keys;		/* every key an integer: agg_update_key() */
	uint8_t direct;			/* ... and every key and argument a field or none */
	uint8_t key1;			/* ... one key, no filter: aggr_update1() */
	int8_t ksrc[AGG_MAX_KEYS];	/* direct: each key's field, -1: none (0); */
	int8_t asrc[AGG_MAX_FUNCS];	/* ... each argument's; profiles: AGGR_P_* */
	uint8_t ksh[AGG_MAX_KEYS], ash[AGG_MAX_FUNCS];	/* their sign-extending shifts */
	uint32_t filter;		/* filter number, 0 = none */
	uint32_t capacity;
	uint32_t flags;
	uint32_t table_size;
	int8_t bind[SHM_AGG_NAMES];	/* field index or EVF_* */
	uint8_t vtype[SHM_AGG_NAMES];	/* enum flt_type of the field */
	uint8_t sext[SHM_AGG_NAMES];
	int8_t size_field, nmemb_field;	/* profiles: allocation sizes */
	int8_t addr_field;		/* profiles: function address */
	int8_t prof[SHM_AGG_NAMES];	/* profiles: AGGR_P_* or a value's index */
	struct agg_def def;
	struct agg_geom geom;
};

struct aggr_table {
	uint64_t agg_id;		/* the aggregation it belongs to, 0 = none */
	void *table;
	uint32_t *owner;
	uint32_t skip;			/* none to be had: updates to go before asking again */
};

struct aggr_frame {
	uint64_t addr;
	uint64_t start;			/* shmtrace__clock() at the entry */
	uint64_t start_ns;		/* CLOCK_MONOTONIC too, while the TSC is not measured */
	uint64_t child_ns;
	uint64_t bytes, allocs;		/* made in the function itself */
	uint64_t child_bytes, child_allocs;
	int outer;			/* not inside another activation of the function */
};

/*
 * What an event id updates at one control generation: its bindings and
 * their tables, in slot order, so that an event finds them without a
 * search. Valid while the generation, the slots of aggen[id] and the
 * thread's epoch (bumped whenever a binding or a table it points at may
 * have changed) are those it was made at.
 */
struct aggr_evc {
	uint64_t gen;			/* 0 = empty */
	uint32_t id;
	uint32_t epoch;
	uint32_t slots;			/* aggen[id] */
	uint32_t n;
	uint32_t key1;			/* n == 1 and b[0]->key1: aggr_update1() */
	uint32_t replan;		/* no plan made, for a reason that passes */
	struct aggr_bind *b[SHM_MAX_AGG];
	void *table[SHM_MAX_AGG];
};

struct aggr_thread {
	struct aggr_table tab[SHM_MAX_AGG];
	struct aggr_bind bind[AGGR_BINDS];
	struct aggr_evc evc[AGGR_EVC];
	struct shmtrace__aggp plan[SHMTRACE__AGGP];	/* the emit function's (shmtrace__tls.agg) */
	uint32_t epoch;
	unsigned int next;
	uint32_t depth;			/* frames on the shadow stack (may exceed AGGR_DEPTH) */
	struct aggr_frame stack[AGGR_DEPTH];
};

#define AGGR_THREAD_BYTES (((sizeof(struct aggr_thread)) + SHM_PAGE - 1) & ~(size_t)(SHM_PAGE - 1))

static __thread struct aggr_thread *aggr_tls __attribute__((tls_model("initial-exec")));
const struct shmtrace__aggp aggr_no_plans[SHMTRACE__AGGP] = {
	[0 ... SHMTRACE__AGGP - 1] = { .id = SHMTRACE__AGGP_NONE },
};
/* updates lost in a forked child before its handler ran (moved by it) */
static uint64_t aggr_fork_lost[SHM_MAX_AGG];

/* ---- segments (lock held) ------------------------------------------- */

static void *aggr_table_at(const struct lib_agg *a, const struct lib_aggseg *s, uint32_t i)
{
	return (char *)s->hdr + SHM_AGG_SEG_HDR + (size_t)i * a->table_size;
}

/* Send segment @k of slot @slot to the session daemon. Lock held. */
static void aggr_describe(unsigned int slot, struct lib_agg *a, uint32_t k)
{
	struct lib_aggseg *s = &a->seg[k];
	struct msg_agg_seg m;

	memset(&m, 0, sizeof(m));
	m.agg_id = a->agg_id;
	m.size = s->size;
	m.agg_slot = slot;
	m.seg_index = k;
	m.first_table = s->hdr->first_table;
	m.ntables = s->hdr->ntables;
	m.table_size = a->table_size;
	m.capacity = a->capacity;
	m.def_hash = a->def_hash;
	s->described = lib_send_fd(MSG_APP_AGG_SEG, &m, sizeof(m), &s->fd) == 0;
	if (!s->described)
		lib_dbg("cannot describe an aggregation segment", k);
}

void aggr_describe_all(void)
{
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++)
		for (uint32_t k = 0; lib.agg[i].agg_id && k < lib.agg[i].nseg; k++)
			aggr_describe(i, &lib.agg[i], k);
}

static int aggr_add_segment(unsigned int slot, struct lib_agg *a, uint32_t ntables)
{
	struct lib_aggseg *s = &a->seg[a->nseg];
	size_t size = SHM_AGG_SEG_HDR + (size_t)ntables * a->table_size;
	struct shm_agg_seg *h;
	struct lib_fd f;
	void *base;

	if (a->nseg >= SHM_AGG_MAX_SEGMENTS)
		return -ENOSPC;
	if (ownfd_take(&f, lib_memfd("shmtrace-agg", size)) < 0)
		return -ENOMEM;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
	if (base == MAP_FAILED)
		goto fail_fd;
	madvise(base, size, MADV_DONTFORK);
	h = base;
	h->magic = SHM_AGG_MAGIC;
	h->version = SHM_VERSION;
	h->hdr_size = SHM_AGG_SEG_HDR;
	h->seg_index = a->nseg;
	h->ntables = ntables;
	h->agg_id = a->agg_id;
	h->size = size;
	h->first_table = a->ntables;
	h->table_size = a->table_size;
	h->capacity = a->capacity;
	h->def_hash = a->def_hash;
	if (a->nseg == 0)
		h->lost = __atomic_exchange_n(&lib.agg_lost[slot], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->hdr, h, __ATOMIC_RELAXED);
	s->size = size;
	s->fd = f;
	s->described = 0;
	a->ntables += ntables;
	__atomic_store_n(&a->nseg, a->nseg + 1, __ATOMIC_RELEASE);
	aggr_describe(slot, a, a->nseg - 1);
	return 0;
fail_fd:
	ownfd_close(&f);
	return -ENOMEM;
}

/* Make slot @slot's segments (none yet) those of the aggregation @b reads. Lock held. */
static void aggr_setup(unsigned int slot, const struct aggr_bind *b)
{
	struct lib_agg *a = &lib.agg[slot];

	if (a->agg_id == b->agg_id)
		return;
	/*
	 * An old aggregation's segments stay mapped: its threads may still
	 * write, and aggr_lost() may still read seg[0].hdr (never cleared).
	 */
	for (uint32_t k = 0; k < a->nseg; k++)
		ownfd_close(&a->seg[k].fd);
	__atomic_store_n(&a->nseg, 0, __ATOMIC_RELEASE);
	a->ntables = 0;
	a->agg_id = b->agg_id;
	a->capacity = b->capacity;
	a->table_size = b->table_size;
	a->def_hash = agg_def_hash(&b->def);
}

/* A free table of slot @slot for the calling thread. Lock held. */
static int aggr_take(unsigned int slot, struct aggr_table *t, uint32_t tid)
{
	struct lib_agg *a = &lib.agg[slot];

	for (int round = 0; round < 2; round++) {
		for (uint32_t k = 0; k < a->nseg; k++) {
			struct lib_aggseg *s = &a->seg[k];

			if (!s->described)
				aggr_describe(slot, a, k);	/* retry what failed */
			if (!s->described)
				continue;	/* its updates would reach nobody */
			for (uint32_t i = 0; i < s->hdr->ntables; i++) {
				uint32_t free_owner = 0;

				if (__atomic_load_n(&s->hdr->owner[i], __ATOMIC_RELAXED) ||
				    !__atomic_compare_exchange_n(&s->hdr->owner[i], &free_owner, tid, 0,
								 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
					continue;
				t->table = aggr_table_at(a, s, i);
				t->owner = &s->hdr->owner[i];
				t->agg_id = a->agg_id;
				return 0;
			}
		}
		/* none yet, or every table owned: as many again, within the limits */
		if (round || aggr_add_segment(slot, a, !a->ntables ? AGGR_FIRST_TABLES :
						    a->ntables < SHM_AGG_MAX_TABLES ?
						    a->ntables : SHM_AGG_MAX_TABLES) < 0)
			break;
	}
	return -ENOSPC;
}

/* ---- the thread's state ------------------------------------------------ */

/*
 * What the thread's event cache and plans point at (a binding, a table)
 * may change: none of them is used again.
 */
static void aggr_plans_empty(struct aggr_thread *th)
{
	memset(th->plan, 0xff, sizeof(th->plan));	/* id SHMTRACE__AGGP_NONE */
}

static void aggr_forget(struct aggr_thread *th)
{
	th->epoch++;
	aggr_plans_empty(th);
}

void aggr_new_gen(void)
{
	if (aggr_tls)
		aggr_plans_empty(aggr_tls);
}

static struct aggr_thread *aggr_thread(void)
{
	if (!aggr_tls) {
		void *p = mmap(NULL, AGGR_THREAD_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		aggr_tls = p;
		aggr_forget(aggr_tls);
		shmtrace__tls.agg = aggr_tls->plan;
		writer_arm_exit();
	}
	return aggr_tls;
}

static void aggr_put(struct aggr_table *t)
{
	if (t->owner)
		__atomic_store_n(t->owner, 0, __ATOMIC_RELEASE);
	memset(t, 0, sizeof(*t));
}

void aggr_thread_exit(void)
{
	if (!aggr_tls)
		return;
	shmtrace__tls.agg = aggr_no_plans;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);	/* before its tables go */
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++)
		aggr_put(&aggr_tls->tab[i]);
	munmap(aggr_tls, AGGR_THREAD_BYTES);
	aggr_tls = NULL;
}

/* In the child, one thread: the parent's segments are not mapped here. */
void aggr_after_fork(void)
{
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		for (uint32_t k = 0; k < lib.agg[i].nseg; k++)
			ownfd_close(&lib.agg[i].seg[k].fd);
		lib.agg_lost[i] = __atomic_exchange_n(&aggr_fork_lost[i], 0, __ATOMIC_RELAXED);
	}
	memset(lib.agg, 0, sizeof(lib.agg));
	if (aggr_tls) {
		memset(aggr_tls->tab, 0, sizeof(aggr_tls->tab));
		aggr_tls->depth = 0;
		aggr_forget(aggr_tls);
	}
}

/* The thread's table of binding @b's aggregation, taken at first use. */
static void *aggr_table(struct aggr_thread *th, const struct aggr_bind *b)
{
	struct aggr_table *t = &th->tab[b->slot];

	if (__builtin_expect(t->agg_id == b->agg_id, 1))
		return t->table;
	if (t->skip) {		/* memory or segments exhausted: not at every event */
		t->skip--;
		return NULL;
	}
	aggr_put(t);		/* an aggregation that left the slot */
	aggr_forget(th);
	lib_lock();
	aggr_setup(b->slot, b);
	if (aggr_take(b->slot, t, (uint32_t)writer_tid()) == 0) {
		uint32_t magic;

		memcpy(&magic, t->table, sizeof(magic));
		if (magic != AGG_MAGIC)	/* never used: made for this definition */
			agg_table_init(t->table, &b->def, &b->geom, b->capacity);
	} else {
		t->skip = AGGR_RETRY;
	}
	lib_unlock();
	return t->table;
}

void aggr_lost(unsigned int slots)
{
	int child = __atomic_load_n(&lib.forking, __ATOMIC_RELAXED) && getpid() != lib.pid;

	while (slots) {
		unsigned int i = (unsigned int)__builtin_ctz(slots);
		struct shm_agg_seg *h;

		slots &= slots - 1;
		if (i >= SHM_MAX_AGG)
			break;
		/* seg[0].hdr, once set, always points at a mapped segment */
		h = __atomic_load_n(&lib.agg[i].nseg, __ATOMIC_ACQUIRE) ?
		    __atomic_load_n(&lib.agg[i].seg[0].hdr, __ATOMIC_RELAXED) : NULL;
		if (child)	/* the parent's segments: not mapped here */
			__atomic_fetch_add(&aggr_fork_lost[i], 1, __ATOMIC_RELAXED);
		else if (h)
			__atomic_fetch_add(&h->lost, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&lib.agg_lost[i], 1, __ATOMIC_RELAXED);
	}
}

/* ---- bindings ------------------------------------------------------------ */

/* Copy slot @slot's definition under the sequence counter; 0 or -EAGAIN. */
static int aggr_copy(const struct shm_ctl_page *ctl, unsigned int slot, struct aggr_bind *b,
		     char names[SHM_AGG_NAMES][SHM_AGG_NAME])
{
	const struct shm_ctl_agg *c = &ctl->agg[slot];

	for (int tries = 0; tries < 64; tries++) {
		uint64_t g1 = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);

		if (g1 & 1) {
			__builtin_ia32_pause();	/* a few microseconds at most */
			continue;
		}
		b->agg_id = __atomic_load_n(&c->agg_id, __ATOMIC_RELAXED);
		b->capacity = __atomic_load_n(&c->capacity, __ATOMIC_RELAXED);
		b->filter = __atomic_load_n(&c->filter, __ATOMIC_RELAXED);
		b->nnames = (uint8_t)__atomic_load_n(&c->nnames, __ATOMIC_RELAXED);
		b->flags = __atomic_load_n(&c->flags, __ATOMIC_RELAXED);
		memcpy(&b->def, &c->def, sizeof(b->def));
		memcpy(names, c->names, sizeof(c->names));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) == g1) {
			b->gen = g1;
			return 0;
		}
	}
	return -EAGAIN;
}

static int aggr_field(const struct shmtrace_event *ev, const char *name)
{
	for (uint32_t f = 0; f < ev->nfields && f < 127; f++)
		if (!strcmp(ev->fields[f].name, name))
			return (int)f;
	return -1;
}

/* Index of profile value @name in agg_profile_sums, or AGGR_P_NONE. */
static int aggr_prof_index(const char *name)
{
	for (unsigned int i = 0; i < AGG_PROFILE_NSUMS; i++)
		if (!strcmp(name, agg_profile_sums[i]))
			return (int)i;
	return AGGR_P_NONE;
}

/* Fill binding @b for event @ev and slot @slot; 0, or -EINVAL: unusable. */
static int aggr_bind_fill(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
			  unsigned int slot, struct aggr_bind *b)
{
	char names[SHM_AGG_NAMES][SHM_AGG_NAME];

	if (aggr_copy(ctl, slot, b, names) < 0)
		return -EAGAIN;
	if (!b->agg_id)
		return -EINVAL;
	if (agg_geom(&b->def, &b->geom) < 0 || b->nnames > SHM_AGG_NAMES ||
	    b->filter > SHM_MAX_FILTERS)
		return -EINVAL;
	b->table_size = shm_agg_table_size(&b->geom, b->capacity);
	if (!b->table_size)
		return -EINVAL;
	for (unsigned int k = 0; k < b->nnames; k++) {
		int f;

		names[k][SHM_AGG_NAME - 1] = 0;
		f = aggr_field(ev, names[k]);
		b->bind[k] = EVF_NONE;
		b->vtype[k] = FLT_T_NONE;
		b->sext[k] = 0;
		if (f >= 0) {
			b->bind[k] = (int8_t)f;
			evf_kind(ev->fields[f].type, &b->vtype[k], &b->sext[k]);
		} else {
			b->bind[k] = evf_ctx_kind(names[k]);
			if (b->bind[k] != EVF_NONE)
				b->vtype[k] = FLT_T_U64;
		}
	}
	b->role = (b->flags & SHM_AGG_PROFILE) ?
		  (uint8_t)agg_profile_role(ev->provider, ev->name) : AGG_ROLE_NONE;
	for (unsigned int k = 0; k < b->nnames; k++)
		b->prof[k] = !strcmp(names[k], "addr") ? AGGR_P_ADDR :
			     b->bind[k] == EVF_PID ? AGGR_P_PID : (int8_t)aggr_prof_index(names[k]);
	b->int_keys = 1;
	for (unsigned int i = 0; i < b->def.nkeys; i++)
		b->int_keys &= b->def.key_kind[i] == AGG_KEY_INT;
	b->direct = b->int_keys && !(b->flags & SHM_AGG_PROFILE);
	for (unsigned int i = 0; i < b->def.nkeys + b->def.nfuncs; i++) {
		unsigned int k = i < b->def.nkeys ? b->def.key_field[i] :
				 b->def.f[i - b->def.nkeys].field;
		int8_t src = -1;
		uint8_t sh = 0;

		if (k < b->nnames && (b->vtype[k] == FLT_T_U64 || b->vtype[k] == FLT_T_S64)) {
			if (b->bind[k] < 0)
				b->direct = 0;	/* the context: aggr_word() */
			src = b->bind[k];
			sh = b->sext[k];
		} else if (k < b->nnames && b->vtype[k] == FLT_T_F64) {
			b->direct = 0;		/* converted: aggr_word() */
		}
		if (b->flags & SHM_AGG_PROFILE)
			src = k < b->nnames ? b->prof[k] : AGGR_P_NONE;
		if (i < b->def.nkeys) {
			b->ksrc[i] = src;
			b->ksh[i] = sh;
		} else {
			b->asrc[i - b->def.nkeys] = src;
			b->ash[i - b->def.nkeys] = sh;
		}
	}
	b->key1 = b->direct && !b->filter && b->def.nkeys == 1 && b->geom.key_bytes == 8;
	b->addr_field = (int8_t)aggr_field(ev, "addr");
	b->size_field = (int8_t)aggr_field(ev, "size");
	b->nmemb_field = (int8_t)aggr_field(ev, "nmemb");
	return 0;
}

/*
 * The binding of slot @slot for event @ev at the control page's current
 * generation. While the page is being written (odd generation, or a copy
 * that found it changing), the thread goes on with the binding it had:
 * updates are never lost to the session daemon's writing.
 */
static struct aggr_bind *aggr_bind_get(struct aggr_thread *th, const struct shm_ctl_page *ctl,
				       const struct shmtrace_event *ev, unsigned int slot)
{
	uint64_t gen = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);
	unsigned int h = (ev->id * SHM_MAX_AGG + slot) & (AGGR_BINDS - 1);
	struct aggr_bind *b = NULL, fresh;
	int ret;

	for (unsigned int i = h & ~1u; i <= (h | 1); i++) {
		if (th->bind[i].id != ev->id || th->bind[i].slot != slot || !th->bind[i].gen)
			continue;
		b = &th->bind[i];
		if (b->gen == gen)
			return b->ok ? b : NULL;
		break;
	}
	if ((gen & 1) && b)
		return b->ok ? b : NULL;
	memset(&fresh, 0, sizeof(fresh));
	fresh.id = ev->id;
	fresh.slot = (uint8_t)slot;
	ret = aggr_bind_fill(ctl, ev, slot, &fresh);
	if (ret == -EAGAIN && b)
		return b->ok ? b : NULL;
	fresh.ok = ret == 0;
	if (!fresh.gen)
		fresh.gen = gen | 1;	/* unusable until the next change */
	if (!b)
		b = &th->bind[(h & ~1u) | (th->next++ & 1)];
	*b = fresh;
	aggr_forget(th);	/* the event cache may point at it */
	return b->ok ? b : NULL;
}

/* ---- updates ------------------------------------------------------------- */

/* A field's value for a key or a function (aggregations with a string key). */
static void aggr_value(const struct aggr_bind *b, unsigned int k, const struct shmtrace__fval *v,
		       struct flt_value *out)
{
	int f = b->bind[k];

	out->type = (enum flt_type)b->vtype[k];
	switch (out->type) {
	case FLT_T_STR:
		out->str = v[f].s ? v[f].s : "";
		break;
	case FLT_T_S64:
	case FLT_T_U64:
		if (f < 0) {
			out->u = evf_ctx(f);
		} else {
			unsigned int sh = b->sext[k];

			out->u = sh ? (uint64_t)((int64_t)(v[f].u << sh) >> sh) : v[f].u;
		}
		break;
	case FLT_T_F64: {
		double d;

		memcpy(&d, &v[f].u, sizeof(d));
		out->type = FLT_T_S64;	/* whole numbers, saturated */
		out->s = d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN :
			 (int64_t)d;
		break;
	}
	default:
		out->type = FLT_T_NONE;
		break;
	}
}

/*
 * The same value as the integer agg_update() would make of it (a string
 * or a missing name: 0), for aggregations whose keys are all integers.
 */
static inline uint64_t aggr_word(const struct aggr_bind *b, unsigned int k,
				 const struct shmtrace__fval *v)
{
	int f = b->bind[k];

	switch (b->vtype[k]) {
	case FLT_T_S64:
	case FLT_T_U64: {
		unsigned int sh = b->sext[k];

		if (f < 0)
			return evf_ctx(f);
		return sh ? (uint64_t)((int64_t)(v[f].u << sh) >> sh) : v[f].u;
	}
	case FLT_T_F64: {
		struct flt_value x;

		aggr_value(b, k, v, &x);
		return (uint64_t)x.s;
	}
	default:
		return 0;
	}
}

/* A field's raw value sign-extended by @sh bits; @f < 0: none, 0. */
static inline uint64_t aggr_raw(const struct shmtrace__fval *v, int f, unsigned int sh)
{
	if (f < 0)
		return 0;
	return sh ? (uint64_t)((int64_t)(v[f].u << sh) >> sh) : v[f].u;
}

static uint64_t aggr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Profiles time calls with the event's own time (shmtrace__clock(), read
 * once for the event's recording too) and count nanoseconds: with the TSC,
 * ticks times aggr_cal.mult, which the process measures itself against
 * CLOCK_MONOTONIC over its first AGGR_CAL_NS of profiling (both read
 * meanwhile, as before it); with CLOCK_MONOTONIC, the ticks are
 * nanoseconds. Lock-free and async-signal-safe: the first thread to take
 * a reading sets it (state 0 -> 1 -> 2), any thread ends the measure, and
 * threads that end it together store nearly the same multiplier.
 */
static struct {
	uint64_t t0, n0;		/* a TSC reading and CLOCK_MONOTONIC then */
	uint64_t mult;			/* ns per tick << 32; 0: not known yet */
	int state;			/* 0 no reading, 1 being set, 2 t0 and n0 set */
} aggr_cal;

/* The event's time: read once per event, shared with its recording. */
static inline uint64_t aggr_clock(uint64_t *ts)
{
	if (!*ts)
		*ts = shmtrace__clock();
	return *ts;
}

/* Both clocks at one moment (that of CLOCK_MONOTONIC); -1: read too far apart. */
static int aggr_cal_read(uint64_t *t, uint64_t *ns)
{
	uint64_t t1 = shmtrace__clock(), n = aggr_now_ns(), t2 = shmtrace__clock();

	if (t2 - t1 > AGGR_CAL_GAP)
		return -1;
	*t = t1 + (t2 - t1) / 2;
	*ns = n;
	return 0;
}

/* Nanoseconds per tick << 32, or 0 while the TSC is being measured. */
static uint64_t aggr_mult(void)
{
	uint64_t m = __atomic_load_n(&aggr_cal.mult, __ATOMIC_RELAXED), t, n;
	int st, none = 0;

	if (__builtin_expect(m != 0, 1))
		return m;
	if (!shmtrace__clock_tsc) {
		m = (uint64_t)1 << 32;
		__atomic_store_n(&aggr_cal.mult, m, __ATOMIC_RELAXED);
		return m;
	}
	st = __atomic_load_n(&aggr_cal.state, __ATOMIC_ACQUIRE);
	if (aggr_cal_read(&t, &n) < 0)
		return 0;
	if (st == 0) {
		if (__atomic_compare_exchange_n(&aggr_cal.state, &none, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			aggr_cal.t0 = t;
			aggr_cal.n0 = n;
			__atomic_store_n(&aggr_cal.state, 2, __ATOMIC_RELEASE);
		}
		return 0;
	}
	if (st != 2 || n - aggr_cal.n0 < AGGR_CAL_NS || t <= aggr_cal.t0 || n < aggr_cal.n0)
		return 0;
	m = (uint64_t)(((unsigned __int128)(n - aggr_cal.n0) << 32) / (t - aggr_cal.t0));
	if (!m)
		m = 1;
	__atomic_store_n(&aggr_cal.mult, m, __ATOMIC_RELAXED);
	return m;
}

static uint64_t aggr_u(const struct shmtrace__fval *v, int f)
{
	return f >= 0 ? v[f].u : 0;
}

/* A profile's values for one event (struct aggr_prof), computed once per event. */
struct aggr_prof {
	int state;			/* -1 not yet, 0 nothing to update, 1 update */
	uint64_t addr;
	uint64_t p[AGG_PROFILE_NSUMS];	/* by agg_profile_sums */
};

/*
 * Follow the shadow stack for an event of role @b->role: a function's exit
 * (or an allocation outside every function, address 0) gives values to
 * update the tables with; an entry or an allocation inside a function
 * only changes the stack. @ts: the event's time, read here when needed.
 */
static int aggr_profile(struct aggr_thread *th, const struct aggr_bind *b,
			const struct shmtrace__fval *v, struct aggr_prof *out, uint64_t *ts)
{
	uint64_t addr = aggr_u(v, b->addr_field), now, n, m, *p = out->p;
	struct aggr_frame *fr;

	memset(p, 0, sizeof(out->p));
	out->addr = addr;
	switch (b->role) {
	case AGG_ROLE_ENTRY:
		if (th->depth < AGGR_DEPTH) {
			fr = &th->stack[th->depth];
			fr->addr = addr;
			fr->child_ns = 0;
			fr->bytes = fr->allocs = fr->child_bytes = fr->child_allocs = 0;
			fr->outer = 1;
			for (uint32_t d = 0; d < th->depth && fr->outer; d++)
				fr->outer = th->stack[d].addr != addr;
			fr->start = aggr_clock(ts);
			fr->start_ns = aggr_mult() ? 0 : aggr_now_ns();
		}
		th->depth++;
		return 0;
	case AGG_ROLE_ALLOC:
		n = aggr_u(v, b->size_field);
		if (b->nmemb_field >= 0)
			n *= aggr_u(v, b->nmemb_field);
		if (th->depth && th->depth <= AGGR_DEPTH) {
			th->stack[th->depth - 1].bytes += n;
			th->stack[th->depth - 1].allocs++;
			return 0;
		}
		out->addr = 0;	/* outside every function followed */
		p[3] = p[5] = n;
		p[4] = p[6] = 1;
		return 1;
	case AGG_ROLE_EXIT:
		if (!th->depth)
			return 0;	/* entered before the aggregation began */
		if (--th->depth >= AGGR_DEPTH)
			return 0;	/* deeper than followed */
		fr = &th->stack[th->depth];
		if (fr->addr != addr)
			return 0;	/* left by longjmp or an exception: not timed */
		now = aggr_clock(ts);
		m = aggr_mult();
		if (m)		/* a frame entered before the measure ended has its ticks too */
			n = now > fr->start ?
			    (uint64_t)(((unsigned __int128)(now - fr->start) * m) >> 32) : 0;
		else
			n = aggr_now_ns() - fr->start_ns;
		p[0] = 1;
		p[2] = n > fr->child_ns ? n - fr->child_ns : 0;
		p[3] = fr->bytes;
		p[4] = fr->allocs;
		if (fr->outer) {	/* recursion: the outermost activation's total only */
			p[1] = n;
			p[5] = fr->bytes + fr->child_bytes;
			p[6] = fr->allocs + fr->child_allocs;
		}
		if (th->depth) {
			struct aggr_frame *up = &th->stack[th->depth - 1];

			up->child_ns += n;
			up->child_bytes += fr->bytes + fr->child_bytes;
			up->child_allocs += fr->allocs + fr->child_allocs;
		}
		return 1;
	default:
		return 0;
	}
}

/* A profile's value named by @src (AGGR_P_*, or an index in p[]). */
static inline uint64_t aggr_prof_word(const struct aggr_prof *pr, int src)
{
	return src >= 0 ? pr->p[src] : src == AGGR_P_ADDR ? pr->addr :
	       src == AGGR_P_PID ? (uint64_t)lib.pid : 0;
}

/*
 * Does @b's filter take the event? Evaluated as the page was when @b was
 * bound; a filter in doubt (that page gone, no copy of it) takes nothing
 * and the event is counted lost, never taken against its filter.
 */
static inline int aggr_filter(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
			      const struct aggr_bind *b, const struct shmtrace__fval *v)
{
	int r;

	if (!b->filter)
		return 1;
	r = evf_keep(ctl, ev, b->filter, b->gen, v);
	if (r < 0)
		aggr_lost(1u << b->slot);
	return r > 0;
}

/* What an event does to one aggregation's table: agg_update_key()'s or agg_update()'s arguments. */
struct aggr_upd {
	uint64_t key[AGG_MAX_KEYS * AGG_STR_KEY / 8];
	int64_t args[AGG_MAX_FUNCS];
	struct flt_value vals[SHM_AGG_NAMES];	/* a string key: agg_update() */
};

/*
 * The update event @v makes to binding @b's aggregation into @u: 1, or 0
 * when it makes none (its filter refused it; a profile's stack only moved).
 */
static inline __attribute__((always_inline)) int aggr_prepare(struct aggr_thread *th, const struct shm_ctl_page *ctl,
			const struct shmtrace_event *ev, const struct shmtrace__fval *v,
			const struct aggr_bind *b, struct aggr_prof *prof, uint64_t *ts,
			struct aggr_upd *u)
{
	uint64_t w[SHM_AGG_NAMES];

	if (__builtin_expect(b->direct, 1)) {
		/* integer fields straight into the key and the arguments */
		if (!aggr_filter(ctl, ev, b, v))
			return 0;
		for (unsigned int i = 0; i < b->def.nkeys; i++)
			u->key[i] = aggr_raw(v, b->ksrc[i], b->ksh[i]);
		for (unsigned int k = 0; k < b->def.nfuncs; k++)
			u->args[k] = (int64_t)aggr_raw(v, b->asrc[k], b->ash[k]);
		return 1;
	}
	if (b->flags & SHM_AGG_PROFILE) {
		/* one shadow stack per thread, whatever the profiles */
		if (prof->state < 0)
			prof->state = aggr_profile(th, b, v, prof, ts);
		if (!prof->state)
			return 0;
		if (__builtin_expect(b->int_keys, 1)) {
			for (unsigned int i = 0; i < b->def.nkeys; i++)
				u->key[i] = aggr_prof_word(prof, b->ksrc[i]);
			for (unsigned int k = 0; k < b->def.nfuncs; k++)
				u->args[k] = (int64_t)aggr_prof_word(prof, b->asrc[k]);
			return 1;
		}
		for (unsigned int k = 0; k < b->nnames; k++)
			w[k] = b->prof[k] == AGGR_P_ADDR ? prof->addr :
			       b->prof[k] == AGGR_P_PID ? (uint64_t)lib.pid :
			       b->prof[k] >= 0 ? prof->p[b->prof[k]] : 0;
		if (!b->int_keys) {
			for (unsigned int k = 0; k < b->nnames; k++) {
				u->vals[k].type = FLT_T_U64;
				u->vals[k].u = w[k];
			}
			return 1;
		}
	} else {
		if (!aggr_filter(ctl, ev, b, v))
			return 0;
		if (!b->int_keys) {
			for (unsigned int k = 0; k < b->nnames; k++)
				aggr_value(b, k, v, &u->vals[k]);
			return 1;
		}
		for (unsigned int k = 0; k < b->nnames; k++)
			w[k] = aggr_word(b, k, v);
	}
	for (unsigned int i = 0; i < b->def.nkeys; i++)
		u->key[i] = b->def.key_field[i] < b->nnames ? w[b->def.key_field[i]] : 0;
	for (unsigned int k = 0; k < b->def.nfuncs; k++)
		u->args[k] = b->def.f[k].field < b->nnames ? (int64_t)w[b->def.f[k].field] : 0;
	return 1;
}

/*
 * The common aggregation in one step: one integer key and arguments
 * straight from the event's fields, no filter (b->key1). The key's length
 * is known here, so its hash and compare are one round each.
 */
static inline __attribute__((always_inline)) void aggr_update1(void *table, const struct aggr_bind *b,
							       const struct shmtrace__fval *v)
{
	uint64_t key = aggr_raw(v, b->ksrc[0], b->ksh[0]);
	int64_t args[AGG_MAX_FUNCS];

	for (unsigned int k = 0; k < b->def.nfuncs; k++)
		args[k] = (int64_t)aggr_raw(v, b->asrc[k], b->ash[k]);
	agg_update_kb(table, &b->def, &b->geom, (const char *)&key, 8, args);
}

static inline void aggr_apply(void *table, const struct aggr_bind *b, const struct aggr_upd *u)
{
	if (__builtin_expect(b->int_keys, 1))
		agg_update_key(table, &b->def, &b->geom, (const char *)u->key, u->args);
	else
		agg_update(table, &b->def, &b->geom, u->vals, b->nnames);
}

/*
 * The emit function's plan for event @ev (ABI 5: shmtrace.h), from its
 * cache entry @e, whole at e->gen: one key1 aggregation whose functions a
 * plan does, and at that generation no trigger and no channel filter on
 * the event, so that updating the table is all shmtrace__filter_ts()
 * would do before the channels take the event. Else the event's plan
 * slot is left empty, and e->replan says whether to try again (the thread
 * had not applied that generation yet, or the page changed meanwhile:
 * the next event of the id that finds the entry does).
 */
static void aggr_plan(struct aggr_thread *th, const struct shm_ctl_page *ctl,
		      const struct shmtrace_event *ev, struct aggr_evc *e)
{
	struct shmtrace__aggp *a = &th->plan[ev->id & (SHMTRACE__AGGP - 1)], p;
	const struct aggr_bind *b = e->b[0];

	a->id = SHMTRACE__AGGP_NONE;
	e->replan = 0;
	if (!e->key1 || __atomic_load_n(&ctl->trigen[ev->id], __ATOMIC_RELAXED))
		return;
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
		if (__atomic_load_n(&ctl->filt[c][ev->id], __ATOMIC_RELAXED))
			return;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	/* (the thread empties its plans when it applies another generation) */
	if (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) != e->gen ||
	    e->gen != shmtrace__tls.gen) {
		e->replan = 1;	/* what was read may be another generation's */
		return;
	}
	if (agg_plan(&b->def, &b->geom, e->table[0], b->capacity, ev->nfields, b->ksrc[0],
		     b->asrc, &p) < 0)
		return;
	p.id = ev->id;
	*a = p;
}

/*
 * Every aggregation of @slots, each binding looked for (and made at a new
 * generation) and each table taken at need; then the event's cache entry
 * made, when every slot has its binding and its table at this generation.
 */
static __attribute__((noinline)) void aggr_event_slow(struct aggr_thread *th, const struct shm_ctl_page *ctl,
			    const struct shmtrace_event *ev, const struct shmtrace__fval *v,
			    unsigned int slots, uint64_t gen, uint64_t *ts)
{
	struct aggr_prof prof = { .state = -1 };
	struct aggr_bind *bs[SHM_MAX_AGG];
	unsigned int todo = slots, n = 0, whole = !(gen & 1);
	struct aggr_evc *e;
	struct aggr_upd u;

	while (todo) {
		unsigned int s = (unsigned int)__builtin_ctz(todo);
		struct aggr_bind *b;
		void *table;

		todo &= todo - 1;
		if (s >= SHM_MAX_AGG) {
			whole = 0;
			break;
		}
		b = aggr_bind_get(th, ctl, ev, s);
		if (!b) {
			whole = 0;
			/* an empty slot (being changed) is not a loss */
			if (__atomic_load_n(&ctl->agg[s].agg_id, __ATOMIC_RELAXED))
				aggr_lost(1u << s);
			continue;
		}
		bs[n++] = b;
		if (!aggr_prepare(th, ctl, ev, v, b, &prof, ts, &u))
			continue;
		table = aggr_table(th, b);
		if (!table) {
			aggr_lost(1u << s);
			continue;
		}
		aggr_apply(table, b, &u);
	}
	if (!whole)
		return;
	e = &th->evc[ev->id & (AGGR_EVC - 1)];
	e->slots = 0;		/* empty until whole */
	for (unsigned int i = 0; i < n; i++) {
		struct aggr_table *t = &th->tab[bs[i]->slot];

		/* a binding made later in this walk may have taken its place */
		if (bs[i]->gen != gen || bs[i]->id != ev->id || !bs[i]->ok ||
		    t->agg_id != bs[i]->agg_id || !t->table)
			return;
		e->b[i] = bs[i];
		e->table[i] = t->table;
	}
	e->gen = gen;
	e->id = ev->id;
	e->epoch = th->epoch;
	e->n = n;
	e->key1 = n == 1 && bs[0]->key1;
	e->slots = slots;
	aggr_plan(th, ctl, ev, e);
}

/*
 * An event that updates the aggregations of @slots (ctl->aggen[ev->id],
 * nonzero). The common case, an event id the thread saw at this control
 * generation, finds its bindings and tables in its cache entry: no
 * search, no lock, and the key hashed once per aggregation; the most
 * common of all, one aggregation by one integer field with no filter
 * (key1), in one step (that of an ABI 5 module is done by its emit
 * function, from the plan made here).
 */
void aggr_event(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
		const struct shmtrace__fval *v, uint64_t *ts, unsigned int slots)
{
	uint64_t gen = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);
	struct aggr_thread *th = aggr_tls;

	if (__builtin_expect(th != NULL, 1)) {
		struct aggr_evc *e = &th->evc[ev->id & (AGGR_EVC - 1)];

		if (__builtin_expect(e->gen == gen && e->id == ev->id && e->slots == slots &&
				     e->epoch == th->epoch, 1)) {
			struct aggr_prof prof;
			struct aggr_upd u;

			if (e->key1) {
				if (__builtin_expect(e->replan, 0))
					aggr_plan(th, ctl, ev, e);
				aggr_update1(e->table[0], e->b[0], v);
				return;
			}
			prof.state = -1;
			for (unsigned int i = 0; i < e->n; i++)
				if (aggr_prepare(th, ctl, ev, v, e->b[i], &prof, ts, &u))
					aggr_apply(e->table[i], e->b[i], &u);
			return;
		}
	} else {
		th = aggr_thread();
		if (!th) {
			aggr_lost(slots);
			return;
		}
	}
	aggr_event_slow(th, ctl, ev, v, slots, gen, ts);
}
