/* SPDX-License-Identifier: MIT */
/*
 * pool.c - the per-channel buffer pool of a traced process.
 *
 * A pool is a table of segments (memfds, see shm.h); each segment holds a
 * run of slots, and a slot is one thread's buffer. Segments are created
 * under lib_lock, never move and are never unmapped while the process
 * lives, so a slot pointer stays valid. The first segment has the
 * channel's pool_size slots; each further one doubles the total, up to
 * SHM_MAX_SEGMENTS segments, and never past the channel's budget
 * (max_buffers in the control page: enable-channel --buffer-budget): past
 * it a thread that finds every buffer owned goes without one, its events
 * counted as lost without a buffer, until a thread gives its buffer back
 * at exit.
 *
 * Slot ownership (struct shm_slot.state):
 *   FREE or RELEASED -> OWNED   a thread, compare-and-swap (the only RMW,
 *                               once per thread and channel)
 *   OWNED -> RELEASED           the owning thread at exit, after publishing
 *                               its last packet (release store)
 *   RELEASED -> FREE            the consumer, once everything is on disk
 *   FREE -> RECLAIMING -> FREE  the consumer, giving its pages back to the
 *                               kernel after a while free (consumerd/reclaim.c):
 *                               not taken meanwhile
 * The packet and discard counters of a slot keep running across owners, so
 * a new owner may take a released slot that still holds packets: it opens
 * the next packet of the same ring only where the consumer made room.
 *
 * A buffer's pages are mapped into our page tables (pool_prepare():
 * MADV_POPULATE_WRITE, then one load per page) one sub-buffer ahead of
 * its writer, once per process: when the thread that owns it fills a
 * sub-buffer and switches to the next one, that one and the one after
 * are mapped, so that the rest of its first lap takes no page fault
 * every 4 KiB in the thread's events, and later owners find what is
 * mapped already (a count of sub-buffers per slot, `mapped`; a forked
 * child builds its own pool, the segments being MADV_DONTFORK). Not
 * before the first switch, and not the whole buffer at once: a buffer is
 * 8 MiB by default, and threads that emit a few events each, one after
 * the other, would otherwise make every buffer they pass through
 * resident; a thread's memory grows with what it writes. Not whole
 * segments when they are made: growth happens in some thread's event,
 * and a new segment's buffers may never all have an owner. Nothing in the
 * buffer changes (a released buffer may hold packets the consumer has not
 * read yet), and lib_lock is not held meanwhile: the buffer is the
 * thread's.
 *
 * A segment is described to the session daemon (and through it to the
 * consumer) right after it is created, and again after every registration
 * (a daemon that lost us, or a new one). Its descriptor is kept for that.
 * A segment whose description could not be sent is not handed out: its
 * events would reach no consumer; threads that find nothing else count
 * their events as lost for want of a buffer, and the next taker retries.
 * A description that finds our connection gone (a killed daemon) makes
 * the taker register again there and then, when a daemon listens: the
 * thread gets its buffer in the same event.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib.h"
#include "common/proto.h"
#include "common/util.h"

static struct shm_slot *pool_slot(const struct lib_pool *p, const struct lib_seg *s, uint32_t i)
{
	return (struct shm_slot *)(void *)(s->base + SHM_PAGE + (size_t)i * p->slot_size);
}

_Static_assert(SHM_MAX_NUM_SUBBUF <= UINT8_MAX, "mapped[] counts sub-buffers in a byte");

/* Slot number @n of the pool has all its pages mapped here (pool_prepare()). */
static int pool_ready(const struct lib_pool *p, uint32_t n)
{
	return __atomic_load_n(&p->mapped[n], __ATOMIC_RELAXED) >= p->num_subbuf;
}

/* Send segment @k's description and descriptor. Lock held; async-signal-safe. */
static void pool_describe(unsigned int chan, struct lib_pool *p, uint32_t k)
{
	struct lib_seg *s = &p->seg[k];
	struct msg_segment m;

	memset(&m, 0, sizeof(m));
	m.chan_id = p->chan_id;
	m.size = s->size;
	m.chan_slot = chan;
	m.seg_index = k;
	m.first_slot = s->first;
	m.nslots = s->nslots;
	m.subbuf_size = p->subbuf_size;
	m.num_subbuf = p->num_subbuf;
	m.context = p->context;
	s->described = lib_send_fd(MSG_APP_SEGMENT, &m, sizeof(m), &s->fd) == 0;
	if (!s->described)
		lib_dbg("cannot describe a segment", k);
}

/* After a registration: the daemon must learn every segment. Lock held. */
void pool_describe_all(void)
{
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
		for (uint32_t k = 0; lib.pool[c].chan_id && k < lib.pool[c].nseg; k++)
			pool_describe(c, &lib.pool[c], k);
}

static int pool_add_segment(unsigned int chan, struct lib_pool *p, uint32_t nslots)
{
	struct lib_seg *s = &p->seg[p->nseg];
	struct shm_seg_hdr *h;
	size_t size;
	void *base;
	struct lib_fd f;

	/* the channel's budget: as many as still fit, none past it */
	if (p->max_buffers && p->nslots + nslots > p->max_buffers)
		nslots = p->nslots < p->max_buffers ? p->max_buffers - p->nslots : 0;
	if (!nslots || p->nseg >= SHM_MAX_SEGMENTS || p->nslots + nslots > SHM_MAX_SLOTS)
		return -ENOSPC;
	size = SHM_PAGE + (size_t)nslots * p->slot_size;
	if (ownfd_take(&f, lib_memfd("shmtrace-buf", size)) < 0)
		return -ENOMEM;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
	if (base == MAP_FAILED)
		goto fail_fd;
	madvise(base, size, MADV_DONTFORK);
	h = base;
	h->magic = SHM_SEG_MAGIC;
	h->version = SHM_VERSION;
	h->hdr_size = sizeof(*h);
	h->seg_index = p->nseg;
	h->chan_slot = chan;
	h->size = size;
	h->chan_id = p->chan_id;
	h->first_slot = p->nslots;
	h->nslots = nslots;
	h->subbuf_size = p->subbuf_size;
	h->num_subbuf = p->num_subbuf;
	h->slot_size = p->slot_size;
	h->slot_hdr = p->slot_hdr;
	h->context = p->context;
	s->base = base;
	s->size = size;
	s->first = p->nslots;
	s->nslots = nslots;
	for (uint32_t i = 0; i < nslots; i++) {
		struct shm_slot *sl = pool_slot(p, s, i);

		for (uint32_t j = 0; j < p->num_subbuf; j++)
			sl->sb[j].pseq = UINT64_MAX;
	}
	s->fd = f;
	/* publish the segment to our own threads before anyone can scan it */
	__atomic_store_n(&p->nseg, p->nseg + 1, __ATOMIC_RELEASE);
	p->nslots += nslots;
	pool_describe(chan, p, p->nseg - 1);
	return 0;
fail_fd:
	ownfd_close(&f);
	return -ENOMEM;
}

/* (Re)initialise the pool of channel slot @chan for channel @chan_id. */
static int pool_setup(unsigned int chan, struct lib_pool *p, uint64_t chan_id)
{
	const struct shm_ctl_chan *c = &lib.ctl->chan[chan];
	uint32_t subbuf = __atomic_load_n(&c->subbuf_size, __ATOMIC_RELAXED);
	uint32_t num = __atomic_load_n(&c->num_subbuf, __ATOMIC_RELAXED);
	uint32_t size = __atomic_load_n(&c->pool_size, __ATOMIC_RELAXED);
	uint32_t max = __atomic_load_n(&c->max_buffers, __ATOMIC_RELAXED);
	uint32_t mode = __atomic_load_n(&c->mode, __ATOMIC_RELAXED);
	uint32_t context = __atomic_load_n(&c->context, __ATOMIC_RELAXED);
	uint32_t flags = __atomic_load_n(&c->flags, __ATOMIC_RELAXED);

	if (!shm_geometry_ok(subbuf, num) || size == 0 || size > SHM_MAX_SLOTS ||
	    (mode != SHM_MODE_DISCARD && mode != SHM_MODE_OVERWRITE) ||
	    (context & ~SHMTRACE__CTX_ALL))
		return -EINVAL;
	/* an old channel's segments stay mapped: its threads may still write */
	for (uint32_t k = 0; k < p->nseg; k++)
		ownfd_close(&p->seg[k].fd);
	memset(p, 0, sizeof(*p));
	p->chan_id = chan_id;
	p->subbuf_size = subbuf;
	p->num_subbuf = num;
	p->slot_hdr = shm_slot_hdr_size(num);
	p->slot_size = p->slot_hdr + subbuf * num;
	p->pool_size = size;
	p->max_buffers = max;
	p->mode = mode;
	p->context = context;
	p->flags = flags;
	p->consumed_seen_ns = now_ns(CLOCK_MONOTONIC);	/* a consumer's first packet takes time */
	if (pool_add_segment(chan, p, size) == 0)
		return 0;
	return pool_add_segment(chan, p, 1);	/* short of memory: one buffer */
}

/*
 * Give a buffer to a new thread: among the buffers no thread owns, the one
 * with the most room left in its ring (a released buffer may still hold
 * packets the consumer has not written out yet; its new owner appends to
 * them); in overwrite mode the least recently released one, so that the
 * newest data of exited threads survives longest; between equals, one
 * whose pages are mapped already (pool_prepare()). Buffers whose ring has
 * less than two free sub-buffers are left to the consumer in discard mode,
 * unless @take_full. *nfree is set to the number of other usable buffers,
 * *slot to the number of the buffer taken. Lock held.
 */
static int pool_try_take(struct lib_pool *p, struct rb_slot *out, uint32_t *nfree,
			 int take_full, uint32_t *slot)
{
	uint32_t nseg = __atomic_load_n(&p->nseg, __ATOMIC_ACQUIRE), best_state = 0, best_no = 0;
	struct shm_slot *best = NULL;
	uint64_t best_key = UINT64_MAX;
	int best_ready = 0;

	*nfree = 0;
	for (uint32_t k = 0; k < nseg; k++) {
		struct lib_seg *s = &p->seg[k];

		if (!s->described)
			continue;
		for (uint32_t i = 0; i < s->nslots; i++) {
			struct shm_slot *sl = pool_slot(p, s, i);
			uint32_t st = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
			uint64_t used, key;
			int ready;

			if (st != SHM_SLOT_FREE && st != SHM_SLOT_RELEASED)
				continue;	/* owned, or the consumer reclaims its pages */
			used = sl->closed - __atomic_load_n(&sl->consumed, __ATOMIC_ACQUIRE);
			if (p->mode == SHM_MODE_DISCARD && used + 1 >= p->num_subbuf && !take_full)
				continue;
			(*nfree)++;
			key = p->mode == SHM_MODE_OVERWRITE ? sl->released : used;
			ready = pool_ready(p, s->first + i);
			if (key < best_key || (key == best_key && ready && !best_ready)) {
				best = sl;
				best_key = key;
				best_state = st;
				best_no = s->first + i;
				best_ready = ready;
			}
		}
	}
	if (!best)
		return -ENOBUFS;
	/* the consumer may have moved it from released to free meanwhile
	 * (and from free to reclaiming: then it is not ours to take) */
	if (!__atomic_compare_exchange_n(&best->state, &best_state, SHM_SLOT_OWNED, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED) &&
	    (best_state != SHM_SLOT_FREE ||
	     !__atomic_compare_exchange_n(&best->state, &best_state, SHM_SLOT_OWNED, 0,
					  __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return -EAGAIN;
	(*nfree)--;
	*slot = best_no;
	out->hdr = best;
	out->data = (char *)best + p->slot_hdr;
	out->subbuf_size = p->subbuf_size;
	out->num_subbuf = p->num_subbuf;
	out->mode = p->mode;
	return 0;
}

/* the kernel has no MADV_POPULATE_WRITE: not asked again (atomic) */
static int pool_no_populate;

/*
 * Map the @len bytes of a buffer at @addr into our page tables, writable,
 * as write faults would, and load a byte of each page: in a virtual
 * machine the first access to each newly mapped page may trap to the
 * hypervisor, which is better paid here than in events. Without
 * MADV_POPULATE_WRITE the buffer's first lap pays its page faults as
 * before: touching the pages by reading would cost as much as the faults
 * (a fresh memfd has no pages to map around a fault) and, in a virtual
 * machine, leave a trap on the first write of each page. Nothing is
 * written. Async-signal-safe; errno is kept.
 */
static void pool_populate(void *addr, size_t len)
{
	int saved = errno;

	if (__atomic_load_n(&pool_no_populate, __ATOMIC_RELAXED))
		return;
	if (madvise(addr, len, MADV_POPULATE_WRITE) < 0) {
		if (errno == EINVAL) {
			__atomic_store_n(&pool_no_populate, 1, __ATOMIC_RELAXED);
			lib_dbg("no MADV_POPULATE_WRITE: buffers fault in their first lap", EINVAL);
		} else {
			lib_dbg("cannot populate a buffer", errno);
		}
		errno = saved;
		return;
	}
	for (size_t o = 0; o < len; o += SHM_PAGE)
		(void)*(volatile const char *)((const char *)addr + o);
	errno = saved;
}

/* the consumer made progress this recently: it is merely behind, grow */
#define POOL_LIVE_NS	10000000u
/* doubling stops at this many times the buffers owned */
#define POOL_GROWTH	4u
/* no progress for this long, and half the buffers unowned but full: stalled */
#define POOL_STALL_NS	100000000u

/* Buffers a thread owns, and packets consumed in all. Lock held. */
static uint32_t pool_owned(struct lib_pool *p, uint64_t *consumed)
{
	uint32_t n = 0;

	*consumed = 0;
	for (uint32_t k = 0; k < p->nseg; k++) {
		for (uint32_t i = 0; i < p->seg[k].nslots; i++) {
			struct shm_slot *sl = pool_slot(p, &p->seg[k], i);

			n += __atomic_load_n(&sl->state, __ATOMIC_RELAXED) == SHM_SLOT_OWNED;
			*consumed += __atomic_load_n(&sl->consumed, __ATOMIC_RELAXED);
		}
	}
	return n;
}

/*
 * Take a buffer of channel slot @chan for the calling thread: one no
 * thread owns with room in its ring (pool_try_take()). Growth depends on
 * how recently the consumer consumed a packet:
 *  - within POOL_LIVE_NS, it is alive and at most behind: the pool doubles
 *    when fewer than an eighth of its buffers are left usable, so that the
 *    next threads find one without waiting for a segment (thread churn
 *    with a busy consumer needs a ring's worth of slack per buffer), as
 *    long as it stays under POOL_GROWTH times the buffers owned (or the
 *    initial size), so that the pool follows the threads alive at once;
 *  - when no buffer is usable, a single emergency buffer is added (an
 *    eighth of the pool once half the segment table is used), unless
 *    the consumer consumed nothing for POOL_STALL_NS while at least half
 *    the buffers have no owner and are merely full: it is stalled or gone,
 *    and memory must not grow without bound;
 *  - a stalled consumer, or a pool that cannot grow (memory, segment
 *    table), makes the thread take the least full buffer anyway: it
 *    discards, counted in that buffer's stream, until the consumer drains.
 * Only when every buffer has an owner does the thread go without one (its
 * events counted as lost_nobuf).
 */
int pool_take(unsigned int chan, uint64_t chan_id, struct rb_slot *out, uint32_t *slot,
	      int *ready, int *nowake)
{
	struct lib_pool *p = &lib.pool[chan];
	uint32_t nfree, owned;
	uint64_t consumed, now, idle;
	int ret;

	if (!lib.ctl || !chan_id)
		return -ENOENT;
	lib_lock();
	if (p->chan_id != chan_id) {
		ret = pool_setup(chan, p, chan_id);
		if (ret < 0)
			goto out;
	}
	for (uint32_t k = 0; k < p->nseg; k++)
		if (!p->seg[k].described)
			pool_describe(chan, p, k);	/* retry what failed */
	/* our connection found gone (lib_send_fd()): a new one now, which
	 * describes every segment, before this thread goes without a buffer */
	if (__atomic_load_n(&lib.pending, __ATOMIC_ACQUIRE) & LIB_PENDING_REGISTER) {
		__atomic_and_fetch(&lib.pending, ~LIB_PENDING_REGISTER, __ATOMIC_ACQ_REL);
		lib_register_locked(0);
	}
	owned = pool_owned(p, &consumed);
	now = now_ns(CLOCK_MONOTONIC);
	if (consumed != p->consumed_seen) {
		p->consumed_seen = consumed;
		p->consumed_seen_ns = now;
	}
	idle = now - p->consumed_seen_ns;
	do
		ret = pool_try_take(p, out, &nfree, 0, slot);
	while (ret == -EAGAIN);
	if (ret < 0 && (owned >= p->nslots / 2 || idle <= POOL_STALL_NS)) {
		/* one buffer; more at once when half the segment table is used */
		ret = pool_add_segment(chan, p, p->nseg >= SHM_MAX_SEGMENTS / 2 ? p->nslots / 8 + 1 : 1);
		if (ret == 0)
			ret = pool_try_take(p, out, &nfree, 0, slot);
	}
	if (ret == 0) {
		uint32_t cap = POOL_GROWTH * (owned + 1 > p->pool_size ? owned + 1 : p->pool_size);

		if (nfree < (p->nslots / 8 ? p->nslots / 8 : 1) && idle <= POOL_LIVE_NS &&
		    p->nslots < cap)
			pool_add_segment(chan, p, p->nslots);	/* may fail: the pool stays */
		goto out;
	}
	lib_dbg("consumer idle (ms) or pool full: taking a full buffer", (long)(idle / 1000000u));
	while ((ret = pool_try_take(p, out, &nfree, 1, slot)) == -EAGAIN)
		;
out:
	if (ret == 0) {
		*ready = pool_ready(p, *slot);
		*nowake = (p->flags & SHM_CHAN_NOWAKE) != 0;
	}
	lib_unlock();
	return ret;
}

/*
 * The calling thread owns buffer @s, slot number @slot of channel slot
 * @chan's pool for channel @chan_id, has just filled a sub-buffer of it
 * and writes in sub-buffer @cur now: map the pages of the sub-buffers up
 * to the one after @cur (from the slot's header on, the first time)
 * unless a thread did already. 1 when every page of the buffer is mapped:
 * not to be called again for it. Lock not held (the buffer is ours:
 * `mapped` of its slot changes only here, in its owner).
 */
int pool_prepare(unsigned int chan, uint64_t chan_id, uint32_t slot, const struct rb_slot *s,
		 uint32_t cur)
{
	struct lib_pool *p = &lib.pool[chan];
	uint32_t want = cur + 2 < s->num_subbuf ? cur + 2 : s->num_subbuf, have;
	size_t hdr = (size_t)(s->data - (char *)s->hdr), from;

	/* a buffer of an old channel is about to be given back */
	if (__atomic_load_n(&p->chan_id, __ATOMIC_RELAXED) != chan_id || slot >= SHM_MAX_SLOTS)
		return 1;
	have = __atomic_load_n(&p->mapped[slot], __ATOMIC_RELAXED);
	if (have < want) {
		from = have ? hdr + (size_t)have * s->subbuf_size : 0;
		pool_populate((char *)s->hdr + from, hdr + (size_t)want * s->subbuf_size - from);
		__atomic_store_n(&p->mapped[slot], (uint8_t)want, __ATOMIC_RELAXED);
		have = want;
	}
	return have >= s->num_subbuf;
}

int pool_in_use(void)
{
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
		if (__atomic_load_n(&lib.pool[c].nseg, __ATOMIC_ACQUIRE))
			return 1;
	return 0;
}

void pool_release(struct rb_slot *s)
{
	static uint64_t order;

	s->hdr->owner_tid = 0;
	s->hdr->released = __atomic_add_fetch(&order, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->hdr->state, SHM_SLOT_RELEASED, __ATOMIC_RELEASE);
	s->hdr = NULL;
}

void pool_reset_after_fork(void)
{
	for (unsigned int c = 0; c < SHM_MAX_CHAN; c++)
		for (uint32_t k = 0; k < lib.pool[c].nseg; k++)
			ownfd_close(&lib.pool[c].seg[k].fd);
	memset(lib.pool, 0, sizeof(lib.pool));
}
