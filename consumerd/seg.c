// SPDX-License-Identifier: MIT
/*
 * seg.c - mapping a traced process's buffer segments, and unmapping them.
 *
 * A segment is a memfd the process made: a page, then nslots slots, each
 * one thread's buffer (a header page, then num_subbuf sub-buffers; see
 * shm.h and ringbuf.h). Each slot is one CTF stream of the segment's
 * trace (the process's trace for the channel's output).
 *
 * Shared memory is never trusted: the geometry comes from the segment
 * message, checked against the limits and the channel, and the memfd
 * must be sealed against resizing and have exactly the size the geometry
 * gives before it is mapped, so it can never shrink under the mapping (no
 * SIGBUS). Every index and length read from a slot later is checked by
 * rb_next() (drain.c).
 *
 * Who writes: the main thread alone makes and frees segments and their
 * streams, between rounds. A stream's reader state is then its draining
 * thread's (worker.c); the slot's header is the process's (closed, pseq,
 * commit words, counters) but for `consumed`, which the consumer stores
 * (release) after each packet written out whole (rb_done()), and the
 * slot's state, which the consumer turns from released to free once the
 * slot is drained (drain.c).
 *
 * Where a stream resumes: at the slot's `consumed` (acquire load: the
 * previous consumer's release store after its last packet). A consumer
 * that crashed in the middle of a packet left `consumed` before it: the
 * next one writes that packet again, whole, into its own trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "app.h"
#include "drain.h"
#include "seg.h"
#include "stats.h"
#include "trace.h"
#include "util.h"
#include "worker.h"

int seg_add(struct c_app *a, const struct msg_segment *m, int fd)
{
	struct c_chan *ch = chan_find(m->chan_id);
	uint32_t slot_hdr, slot_size;
	struct c_seg *s;
	void *base;

	if (!ch || m->chan_slot != ch->slot || !shm_geometry_ok(m->subbuf_size, m->num_subbuf) ||
	    m->nslots == 0 || m->nslots > SHM_MAX_SLOTS || m->first_slot > SHM_MAX_SLOTS ||
	    (m->context & ~SHMTRACE__CTX_ALL))
		return -EINVAL;
	slot_hdr = shm_slot_hdr_size(m->num_subbuf);
	slot_size = slot_hdr + m->subbuf_size * m->num_subbuf;
	if (m->size != SHM_PAGE + (uint64_t)slot_size * m->nslots || memfd_check(fd, m->size) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->streams = calloc(m->nslots, sizeof(*s->streams));
	s->trace = trace_get(a, ch);
	base = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* (a trace that could not be written is drained all the same, its
	 * events counted as lost: its class is declared before its packets) */
	if (!s->streams || !s->trace || base == MAP_FAILED) {
		if (base != MAP_FAILED)
			munmap(base, m->size);
		free(s->streams);
		free(s);
		return -ENOMEM;
	}
	s->chan = ch;
	s->clock = a->clock;
	s->context = m->context;
	s->proc = a->proc;
	s->nobuf_base = &a->nobuf_base[ch->slot];
	s->base = base;
	s->size = m->size;
	s->nslots = m->nslots;
	for (uint32_t i = 0; i < m->nslots; i++) {
		struct c_stream *st = &s->streams[i];
		char *sl = s->base + SHM_PAGE + (size_t)i * slot_size;

		st->seg = s;
		st->rb.hdr = (struct shm_slot *)(void *)sl;
		st->rb.data = sl + slot_hdr;
		st->rb.subbuf_size = m->subbuf_size;
		st->rb.num_subbuf = m->num_subbuf;
		st->rb.mode = ch->mode;
		st->number = m->first_slot + i;
		st->fd = -1;
		/* resume where a previous consumer stopped */
		st->rd.rseq = __atomic_load_n(&st->rb.hdr->consumed, __ATOMIC_ACQUIRE);
	}
	for (uint32_t i = 0; i < m->nslots; i++) {
		if (wk_stream_add(&s->streams[i], a->asleep) == 0)
			continue;
		while (i--)
			wk_stream_del(&s->streams[i]);
		munmap(base, m->size);
		free(s->streams);
		free(s);
		return -ENOMEM;
	}
	s->next = a->segs;
	a->segs = s;
	return 0;
}

void seg_free(struct c_seg *s)
{
	stats_seg_gone(s);
	for (uint32_t i = 0; i < s->nslots; i++)
		wk_stream_del(&s->streams[i]);
	for (uint32_t i = 0; i < s->nslots; i++)
		drain_stream_close(s, &s->streams[i]);
	munmap(s->base, s->size);
	free(s->streams);
	free(s);
}
