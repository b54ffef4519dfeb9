// SPDX-License-Identifier: MIT
/*
 * seg.c - a traced process's segments: buffer segments (the slots of a
 * channel's pool) and aggregation segments (the tables of an
 * aggregation), one concept with a kind.
 *
 * Both have the same life: the process makes a memfd, seals it and
 * describes it to us (MSG_APP_SEGMENT, MSG_APP_AGG_SEG); we check the
 * description against its owner (the channel or aggregation in the slot
 * it names) and the memfd's seals and size, keep the descriptor and hand
 * both to the consumer (MSG_C_SEGMENT, MSG_C_AGG_SEG), again to every new
 * consumer (segs_replay()), until the owner goes (segs_forget()) or the
 * process does (segs_release(): the consumer drains what it holds first).
 * A process that registers again describes every segment again: one known
 * by its owner and index is kept once if it is the same memfd, refused
 * otherwise. A segment whose owner is gone (or not for the process's uid)
 * is closed: nothing to drain or merge.
 *
 * The kinds differ only in their checks and message types (the table
 * below); storing, replaying, forgetting and releasing are written once.
 * The two wire messages keep their numbers: their layouts are alike
 * (struct seg_head) but their last fields are the owner's geometry
 * (sub-buffers, or tables and the definition's hash), and the traced
 * processes already running and the consumer speak them.
 *
 * State: none of its own; each process's segments are in its struct app
 * (app.c), which owns their descriptors.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "seg.h"
#include "aggdef.h"
#include "allow.h"
#include "consumer.h"
#include "session.h"
#include "support/log.h"
#include "common/util.h"
#include "support/sysutil.h"

#define SAME_AT(f, fbuf, fagg)								\
	_Static_assert(offsetof(struct seg_head, f) == offsetof(struct msg_segment, fbuf) &&	\
		       offsetof(struct seg_head, f) == offsetof(struct msg_agg_seg, fagg), #f)
SAME_AT(app_id, app_id, app_id);
SAME_AT(owner, chan_id, agg_id);
SAME_AT(size, size, size);
SAME_AT(slot, chan_slot, agg_slot);
SAME_AT(index, seg_index, seg_index);
SAME_AT(first, first_slot, first_table);
SAME_AT(count, nslots, ntables);
_Static_assert(sizeof(struct msg_segment) == sizeof(struct msg_agg_seg), "segment messages");

/* 1: keep it; 0: its owner is gone (closed, not an error); -EPROTO: malformed. */
typedef int (*seg_check_fn)(const struct seg *s, const struct seg_from *from);

static int buf_check(const struct seg *s, const struct seg_from *from)
{
	const struct msg_segment *m = &s->m.buf;
	const struct channel *ch = m->chan_slot < SHM_MAX_CHAN ? ss.chan[m->chan_slot] : NULL;
	uint64_t slot_size;

	if (!shm_geometry_ok(m->subbuf_size, m->num_subbuf) || m->nslots == 0 ||
	    m->nslots > SHM_MAX_SLOTS || m->first_slot > SHM_MAX_SLOTS - m->nslots ||
	    m->seg_index >= SHM_MAX_SEGMENTS || (m->context & ~SHMTRACE__CTX_ALL))
		return -EPROTO;
	slot_size = shm_slot_hdr_size(m->num_subbuf) + (uint64_t)m->subbuf_size * m->num_subbuf;
	if (m->size != SHM_PAGE + slot_size * m->nslots || memfd_check(s->fd, m->size) < 0)
		return -EPROTO;
	/* a channel that is gone (or not for its uid): nothing to drain */
	return ch && ch->id == m->chan_id && (allow_chan_mask(from->uid) & (1u << m->chan_slot));
}

static int agg_check(const struct seg *s, const struct seg_from *from)
{
	const struct msg_agg_seg *m = &s->m.agg;
	const struct aggregation *ag = m->agg_slot < SHM_MAX_AGG ? ss.agg[m->agg_slot] : NULL;

	if (!ag || ag->id != m->agg_id || !allow_uid(ag->session, from->uid))
		return 0;	/* an aggregation that is gone: nothing to merge */
	if (m->capacity != ag->capacity || m->table_size != agg_bytes(ag, ag->capacity) ||
	    m->def_hash != agg_def_hash(&ag->def) || !m->ntables ||
	    m->ntables > SHM_AGG_MAX_TABLES || m->seg_index >= SHM_AGG_MAX_SEGMENTS ||
	    m->size != SHM_AGG_SEG_HDR + (uint64_t)m->ntables * m->table_size ||
	    memfd_check(s->fd, m->size) < 0)
		return -EPROTO;
	return 1;
}

static const struct seg_kind_ops {
	unsigned int app_type;		/* from the process */
	unsigned int c_type;		/* to the consumer */
	const char *what;
	seg_check_fn check;
} kinds[SEG_NKINDS] = {
	[SEG_BUF] = { MSG_APP_SEGMENT, MSG_C_SEGMENT, "buffer segment", buf_check },
	[SEG_AGG] = { MSG_APP_AGG_SEG, MSG_C_AGG_SEG, "aggregation segment", agg_check },
};

int seg_kind_of(unsigned int type)
{
	for (int k = 0; k < SEG_NKINDS; k++)
		if (kinds[k].app_type == type)
			return k;
	return -1;
}

static int same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static void seg_give(const struct seg *s)
{
	consumer_call(kinds[s->kind].c_type, &s->m, sizeof(s->m), &s->fd, 1, NULL, 0);
}

int seg_take(struct segs *v, const struct seg_from *from, enum seg_kind kind, const void *msg,
	     int fd)
{
	struct seg s = { .kind = kind, .fd = fd }, *nv;
	int ret;

	memcpy(&s.m, msg, sizeof(s.m));
	ret = kinds[kind].check(&s, from);
	if (ret <= 0) {
		if (ret < 0)
			log_warn("%s[%d]: malformed %s refused", from->procname, (int)from->pid,
				 kinds[kind].what);
		close(fd);
		return ret;
	}
	for (uint32_t i = 0; i < v->n; i++) {
		const struct seg *o = &v->v[i];

		if (o->kind == kind && o->m.head.owner == s.m.head.owner &&
		    o->m.head.index == s.m.head.index) {
			/* described again after a new registration: the same, or a lie */
			ret = same_file(fd, o->fd) ? 0 : -EPROTO;
			close(fd);
			return ret;
		}
	}
	nv = realloc(v->v, (v->n + 1) * sizeof(*nv));
	if (!nv) {
		close(fd);
		return -ENOMEM;
	}
	v->v = nv;
	s.m.head.app_id = from->app_id;
	v->v[v->n++] = s;
	seg_give(&s);
	return 0;
}

void segs_replay(const struct segs *v)
{
	for (uint32_t i = 0; i < v->n; i++)
		seg_give(&v->v[i]);
}

void segs_forget(struct segs *v, enum seg_kind kind, uint64_t owner)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < v->n; i++) {
		if (v->v[i].kind == kind && v->v[i].m.head.owner == owner)
			close(v->v[i].fd);
		else
			v->v[j++] = v->v[i];
	}
	v->n = j;
}

void segs_release(struct segs *v)
{
	for (uint32_t i = 0; i < v->n; i++)
		close(v->v[i].fd);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

/* Events committed in the slots of buffer segment @s not consumed yet (at most). */
static uint64_t seg_pending(const struct seg *s, uint64_t *bufs)
{
	const struct msg_segment *m = &s->m.buf;
	uint64_t slot_size = shm_slot_hdr_size(m->num_subbuf) +
			     (uint64_t)m->subbuf_size * m->num_subbuf, n = 0;
	char *base = mmap(NULL, m->size, PROT_READ, MAP_SHARED, s->fd, 0);

	if (base == MAP_FAILED)
		return 0;
	for (uint32_t i = 0; i < m->nslots; i++) {
		const struct shm_slot *h = (const void *)(base + SHM_PAGE + i * slot_size);
		uint64_t consumed = __atomic_load_n(&h->consumed, __ATOMIC_ACQUIRE);
		uint64_t closed = __atomic_load_n(&h->closed, __ATOMIC_ACQUIRE), ev = 0;

		/* the process writes these: a ring's worth at most */
		if (closed < consumed || closed - consumed > m->num_subbuf)
			continue;
		for (uint64_t p = consumed; p <= closed; p++) {
			const struct shm_sbmeta *sb = &h->sb[p % m->num_subbuf];

			if (__atomic_load_n(&sb->pseq, __ATOMIC_ACQUIRE) == p)
				ev += __atomic_load_n(&sb->commit.word, __ATOMIC_ACQUIRE) >> 32;
		}
		n += ev;
		*bufs += ev != 0;
	}
	munmap(base, m->size);
	return n;
}

uint64_t segs_pending(const struct segs *v, uint64_t chan_id, uint64_t *bufs)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < v->n; i++)
		if (v->v[i].kind == SEG_BUF && v->v[i].m.head.owner == chan_id)
			n += seg_pending(&v->v[i], bufs);
	return n;
}
