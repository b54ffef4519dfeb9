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
 * streams, between rounds; the streams of a memory-only channel are in
 * no draining list (only snapshots read them, chan.c). A stream's reader
 * state is then its draining thread's (worker.c); the slot's header is the process's (closed, pseq,
 * commit words, counters) but for `consumed`, which the consumer stores
 * (release) after each packet written out whole (rb_done()), and the
 * slot's state, which the consumer turns from released to free once the
 * slot is drained (drain.c).
 *
 * Where a stream resumes: where its record in its trace's progress file
 * says (progress.c), when a consumer before us wrote it; else at the
 * slot's `consumed` (acquire load: the previous consumer's release store
 * after its last packet). A segment described again (the same channel,
 * index and memfd) is already ours: nothing is mapped twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app.h"
#include "drain.h"
#include "support/log.h"
#include "progress.h"
#include "reclaim.h"
#include "seg.h"
#include "stats.h"
#include "trace.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "worker.h"

int seg_add(struct c_app *a, const struct msg_segment *m, int fd)
{
	struct c_chan *ch = chan_find(m->chan_id);
	uint32_t slot_hdr, slot_size, added;
	struct stat sb;
	const char *what;
	struct c_seg *s;
	void *base;
	int ret;

	if (!ch || m->chan_slot != ch->slot || !shm_geometry_ok(m->subbuf_size, m->num_subbuf) ||
	    m->nslots == 0 || m->nslots > SHM_MAX_SLOTS || m->first_slot > SHM_MAX_SLOTS ||
	    (m->context & ~SHMTRACE__CTX_ALL))
		return -EINVAL;
	/* described again (the process registered anew, or with a session
	 * daemon that took us over): the same memfd, already mapped */
	if (fstat(fd, &sb) < 0)
		return -errno;
	for (s = a->segs; s; s = s->next) {
		if (s->chan != ch || s->seg_index != m->seg_index)
			continue;
		return s->dev == (uint64_t)sb.st_dev && s->ino == (uint64_t)sb.st_ino ? 0 :
		       -EINVAL;
	}
	slot_hdr = shm_slot_hdr_size(m->num_subbuf);
	slot_size = slot_hdr + m->subbuf_size * m->num_subbuf;
	if (m->size != SHM_PAGE + (uint64_t)slot_size * m->nslots)
		return -EINVAL;
	what = "its memfd";
	ret = memfd_check(fd, m->size);
	if (ret < 0)
		goto fail;
	what = "mmap";
	base = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	what = "its streams";
	ret = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto err_unmap;
	s->streams = calloc(m->nslots, sizeof(*s->streams));
	if (!s->streams)
		goto err_free;
	/* (a trace that could not be written is drained all the same, its
	 * events counted as lost: its class is declared before its packets) */
	what = "its trace";
	s->trace = trace_get(a, ch);
	if (!s->trace)
		goto err_free;
	s->chan = ch;
	s->seg_index = m->seg_index;
	s->dev = (uint64_t)sb.st_dev;
	s->ino = (uint64_t)sb.st_ino;
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
		st->rec = -1;
		cnt_init(&st->disc, a->born);
		cnt_init(&st->over, a->born);
		/* resume where a previous consumer stopped: its record of the
		 * stream, else the slot's `consumed` (progress.c) */
		st->rd.rseq = __atomic_load_n(&st->rb.hdr->consumed, __ATOMIC_ACQUIRE);
		prog_take(s, st, prog_resume(s, st) == 1);
	}
	what = "the draining threads' lists";
	/* (a memory-only channel's streams are never drained: in no list) */
	for (added = 0; !ch->memory && added < m->nslots; added++) {
		ret = wk_stream_add(&s->streams[added], a->asleep);
		if (ret < 0)
			goto err_streams;
	}
	reclaim_seg_added(s);	/* what a consumer killed while reclaiming left */
	s->next = a->segs;
	a->segs = s;
	return 0;
err_streams:
	while (added--)
		wk_stream_del(&s->streams[added]);
err_free:
	free(s->streams);
	free(s);
err_unmap:
	munmap(base, m->size);
fail:
	log_err("%s[%u]: buffer segment %u of channel %s not mapped: %s: %s (errno %d)",
		a->procname, a->pid, m->seg_index, ch->name, what, strerror(-ret), -ret);
	return ret;
}

void seg_free(struct c_seg *s)
{
	stats_seg_gone(s);
	for (uint32_t i = 0; !s->chan->memory && i < s->nslots; i++)
		wk_stream_del(&s->streams[i]);
	for (uint32_t i = 0; i < s->nslots; i++)
		drain_stream_close(s, &s->streams[i]);
	munmap(s->base, s->size);
	free(s->streams);
	free(s);
}
