// SPDX-License-Identifier: MIT
/*
 * reclaim.c - the pages of buffers no thread uses, given back to the
 * kernel.
 *
 * A slot whose thread exited goes back to its process's pool once drained
 * (drain.c: RELEASED -> FREE, noted in the stream's free_ns). Its pages
 * stay in the process's shared memory, resident, until another thread of
 * that process takes the slot, which may be never: a program that once ran
 * 64 busy threads would hold their 8 MiB each for the rest of its life.
 * Once a slot has been free for the reclaim delay (SHMTRACE_RECLAIM_MS,
 * 10 s by default; 0: never), the main thread takes it out of the pool
 * (FREE -> RECLAIMING, compare-and-swap: a thread that took it first keeps
 * it), removes the pages of its sub-buffers from the memfd (MADV_REMOVE on
 * our shared mapping: the process's mapping loses them too; they read as
 * zeros and are allocated afresh at the next write) and puts it back
 * (RECLAIMING -> FREE, release store). The slot's header page, the
 * counters that run across owners, stays. Nothing is lost: a free slot has
 * nothing left to drain. A library that does not know RECLAIMING
 * (segments of version < 7) would take the slot meanwhile: its segments
 * are left alone.
 *
 * Who writes what: a stream's free_ns, drain.c's thread when it frees the
 * slot (release store); this file clears it by compare-and-swap when done
 * or when the slot was taken meanwhile, so that a later release noted
 * meanwhile is not lost. A crash between the two stores leaves the slot
 * RECLAIMING (its process does not take it, and counts the events of a
 * thread that finds no other slot as lost); the next consumer finishes the
 * job when it maps the segment (reclaim_seg_added()): only a consumer sets
 * RECLAIMING, and one runs at a time.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include "reclaim.h"
#include "app.h"
#include "support/log.h"
#include "common/shm.h"

#define RECLAIM_DEFAULT_MS	10000u
#define RECLAIM_SWEEP_NS	1000000000ull	/* looked at once a second */

static uint64_t reclaim_ns = UINT64_MAX;	/* the delay; 0: never (read once) */
static uint64_t next_sweep;

static uint64_t reclaim_delay(void)
{
	if (reclaim_ns == UINT64_MAX) {
		const char *e = getenv("SHMTRACE_RECLAIM_MS");
		char *end;
		unsigned long long ms = e && *e ? strtoull(e, &end, 10) : RECLAIM_DEFAULT_MS;

		if (e && *e && *end)
			ms = RECLAIM_DEFAULT_MS;
		reclaim_ns = ms * 1000000ull;
	}
	return reclaim_ns;
}

void reclaim_note_free(struct c_stream *st, uint64_t now)
{
	__atomic_store_n(&st->free_ns, now ? now : 1, __ATOMIC_RELEASE);
}

/* The sub-buffers of @st's slot, whole pages, removed from the memfd. */
static void reclaim_pages(struct c_stream *st)
{
	uintptr_t b = (uintptr_t)st->rb.data;
	uintptr_t e = b + (uintptr_t)st->rb.subbuf_size * st->rb.num_subbuf;

	b = (b + SHM_PAGE - 1) & ~(uintptr_t)(SHM_PAGE - 1);
	e &= ~(uintptr_t)(SHM_PAGE - 1);
	if (e > b && madvise((void *)b, e - b, MADV_REMOVE) < 0)
		log_dbg("a free buffer's pages not given back: %m");
	/* its next writer's pages are to be made again, as it writes (drain.c) */
	st->populated = 0;
	st->pop_base = __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE);
}

/* Does @s's library know RECLAIMING? (What the process wrote: only ever a hint.) */
static int reclaim_known(const struct c_seg *s)
{
	const struct shm_seg_hdr *h = (const struct shm_seg_hdr *)(const void *)s->base;

	return __atomic_load_n(&h->version, __ATOMIC_RELAXED) >= 7;
}

void reclaim_seg_added(struct c_seg *s)
{
	if (!reclaim_known(s))
		return;
	for (uint32_t i = 0; i < s->nslots; i++) {
		struct c_stream *st = &s->streams[i];

		if (__atomic_load_n(&st->rb.hdr->state, __ATOMIC_ACQUIRE) != SHM_SLOT_RECLAIMING)
			continue;
		reclaim_pages(st);
		__atomic_store_n(&st->rb.hdr->state, SHM_SLOT_FREE, __ATOMIC_RELEASE);
	}
}

/* @st's slot reclaimed if it has been free long enough at @now. */
static void reclaim_stream(struct c_stream *st, uint64_t now, uint64_t delay)
{
	uint64_t since = __atomic_load_n(&st->free_ns, __ATOMIC_ACQUIRE);
	uint32_t state = SHM_SLOT_FREE;

	if (!since || now - since < delay)
		return;
	if (__atomic_compare_exchange_n(&st->rb.hdr->state, &state, SHM_SLOT_RECLAIMING, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		reclaim_pages(st);
		__atomic_store_n(&st->rb.hdr->state, SHM_SLOT_FREE, __ATOMIC_RELEASE);
	}
	/* done, or taken meanwhile: noted again at its next release */
	__atomic_compare_exchange_n(&st->free_ns, &since, 0, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

void reclaim_tick(uint64_t now)
{
	uint64_t delay = reclaim_delay();
	struct cds_lfht_iter it;
	struct c_app *a;

	if (!delay || now < next_sweep)
		return;
	next_sweep = now + RECLAIM_SWEEP_NS;
	capp_for_each(&it, a)
		for (struct c_seg *s = a->segs; s; s = s->next)
			if (reclaim_known(s))
				for (uint32_t i = 0; i < s->nslots; i++)
					reclaim_stream(&s->streams[i], now, delay);
}
