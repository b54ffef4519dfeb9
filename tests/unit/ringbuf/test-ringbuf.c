/* SPDX-License-Identifier: MIT */
/*
 * test-ringbuf.c - unit tests of the ring buffer protocol (common/ringbuf.c)
 * with the writer and the consumer in one process.
 *
 * A slot is laid out in ordinary memory as in a segment: a page-aligned
 * header of shm_slot_hdr_size(num) bytes then num sub-buffers, every
 * sb[].pseq set to UINT64_MAX as libshmtrace does. Events are written the
 * way the inline fast path of <shmtrace/shmtrace.h> writes them: header with
 * shmtrace__hdr_size/shmtrace__put_hdr, payload, shmtrace__commit, and
 * rb_reserve_slow when the event does not fit.
 *
 * Every event carries its sequence number; a model of what was emitted
 * and recorded checks that the consumer reads back exactly the recorded
 * events, once each and in order, with timestamps inside monotonic ranges.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmtrace/shmtrace.h>
#include "common/ringbuf.h"

/* The inline clock reads this flag, which libshmtrace defines; this test
 * links only the ring buffer code, so it stamps with CLOCK_MONOTONIC. */
int shmtrace__clock_tsc;

/* ---- slot in ordinary memory ----------------------------------------------- */

static struct rb_slot *slot_new(uint32_t subbuf, uint32_t num)
{
	struct rb_slot *s = calloc(1, sizeof(*s));
	uint32_t hs = shm_slot_hdr_size(num);
	size_t size = (size_t)hs + (size_t)num * subbuf;
	void *mem;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hs % SHM_PAGE, 0);
	ck_assert_uint_ge(hs, sizeof(struct shm_slot) + num * sizeof(struct shm_sbmeta));
	ck_assert_int_eq(posix_memalign(&mem, SHM_PAGE, size), 0);
	memset(mem, 0, size);
	s->hdr = mem;
	s->data = (char *)mem + hs;
	s->subbuf_size = subbuf;
	s->num_subbuf = num;
	for (uint32_t i = 0; i < num; i++)
		s->hdr->sb[i].pseq = UINT64_MAX;
	return s;
}

static void slot_free(struct rb_slot *s)
{
	free(s->hdr);
	free(s);
}

/* ---- writer, as the inline fast path ---------------------------------------- */

/* Bytes written in the writer's current sub-buffer. */
static uint32_t wpos(const struct shmtrace__wbuf *w)
{
	return (uint32_t)w->commit->word;
}

struct twriter {
	const struct rb_slot *s;
	struct shmtrace__wbuf w;
	int32_t tid;
	uint64_t published;	/* packets reported published by rb_reserve_slow */
};

static void writer_init(struct twriter *tw, const struct rb_slot *s, int32_t tid, uint64_t ts)
{
	memset(tw, 0, sizeof(*tw));
	tw->s = s;
	tw->tid = tid;
	rb_wbuf_reset(&tw->w);	/* as shmtrace__reserve_slow does on a new slot */
	(void)ts;
}

/* Payload: u64 seq, u16 n, then n bytes (seq + i). */
#define PAYLOAD_FIXED 10

static uint32_t ev_size(uint32_t id, uint64_t ts, uint64_t last, uint16_t n)
{
	return shmtrace__hdr_size(id, ts, last) + PAYLOAD_FIXED + n;
}

/* Emit one event. Returns 1 when recorded, 0 when dropped. */
static int emit(struct twriter *tw, uint32_t id, uint64_t ts, uint64_t seq, uint16_t n)
{
	struct shmtrace__wbuf *w = &tw->w;
	const uint32_t h = shmtrace__hdr_size(id, ts, w->commit->last_ts);
	const uint64_t size = (uint64_t)h + PAYLOAD_FIXED + n;
	char *p;

	if ((uint64_t)wpos(w) + size > w->end) {
		int published = 0, ret;

		ret = rb_reserve_slow(tw->s, w, size, ts, tw->tid, &published);
		tw->published += (uint64_t)published;
		if (!ret)
			return 0;
	}
	p = shmtrace__put_hdr(w->data + wpos(w), h, id, ts);
	memcpy(p, &seq, 8);
	memcpy(p + 8, &n, 2);
	for (uint16_t i = 0; i < n; i++)
		p[PAYLOAD_FIXED + i] = (char)(seq + i);
	shmtrace__commit(w->commit, wpos(w) + (uint32_t)size,
			 (uint32_t)(w->commit->word >> 32) + 1, ts);
	return 1;
}

/* ---- decoding a range --------------------------------------------------------- */

struct tev {
	uint32_t id;
	uint64_t ts;
	uint64_t seq;
	uint16_t n;
};

/*
 * Decode the events of @rg into @out (at most @max). Returns the count, or
 * a negative line number of the first inconsistency (usable from threads,
 * where ck_assert cannot be called).
 */
static long decode_range(const struct rb_range *rg, struct tev *out, size_t max)
{
	const unsigned char *p = (const unsigned char *)rg->data, *end = p + rg->len;
	uint64_t prev = rg->begin_ts;
	size_t k = 0;

	if (rg->begin_ts > rg->end_ts)
		return -__LINE__;
	while (p < end) {
		struct tev e;

		if (k == max)
			return -__LINE__;
		if (p[0] == SHMTRACE__ID_EXTENDED) {
			if (end - p < 13)
				return -__LINE__;
			memcpy(&e.id, p + 1, 4);
			memcpy(&e.ts, p + 5, 8);
			p += 13;
		} else {
			uint32_t word, low;

			if (end - p < 4)
				return -__LINE__;
			memcpy(&word, p, 4);
			e.id = word & 0xff;
			low = word >> 8;
			e.ts = (prev & ~(uint64_t)0xffffff) | low;
			if (low < (prev & 0xffffff))
				e.ts += 1u << 24;
			p += 4;
		}
		if (end - p < PAYLOAD_FIXED)
			return -__LINE__;
		memcpy(&e.seq, p, 8);
		memcpy(&e.n, p + 8, 2);
		p += PAYLOAD_FIXED;
		if (end - p < e.n)
			return -__LINE__;
		for (uint16_t i = 0; i < e.n; i++)
			if (p[i] != (unsigned char)(e.seq + i))
				return -__LINE__;
		p += e.n;
		/* inside the range, never decreasing */
		if (e.ts < prev || e.ts < rg->begin_ts || e.ts > rg->end_ts)
			return -__LINE__;
		prev = e.ts;
		out[k++] = e;
	}
	if (k != rg->nev)
		return -__LINE__;
	return (long)k;
}

/* ---- model of the emitted events ------------------------------------------ */

struct model {
	struct tev *ev;		/* emitted, by sequence number */
	uint8_t *rec;		/* recorded? */
	uint64_t nemit, nrec, cap;
	uint64_t next;		/* sequence number at which reading resumes */
	uint64_t nread;
	uint64_t last_end;	/* end timestamp of the last range read */
	struct tev *tmp;
};

static void model_init(struct model *m, uint64_t cap)
{
	memset(m, 0, sizeof(*m));
	m->cap = cap;
	m->ev = calloc(cap, sizeof(*m->ev));
	m->rec = calloc(cap, 1);
	m->tmp = calloc(cap, sizeof(*m->tmp));
	ck_assert(m->ev && m->rec && m->tmp);
}

static void model_free(struct model *m)
{
	free(m->ev);
	free(m->rec);
	free(m->tmp);
}

/* Emit event number m->nemit and remember whether it was recorded. */
static int memit(struct model *m, struct twriter *tw, uint32_t id, uint64_t ts, uint16_t n)
{
	uint64_t seq = m->nemit++;
	int ret;

	ck_assert_uint_lt(seq, m->cap);
	ret = emit(tw, id, ts, seq, n);
	m->ev[seq] = (struct tev){ .id = id, .ts = ts, .seq = seq, .n = n };
	m->rec[seq] = (uint8_t)ret;
	m->nrec += (uint64_t)ret;
	return ret;
}

/* Check a range against the model: the next recorded events, in order. */
static void model_check(struct model *m, const struct rb_range *rg)
{
	long k = decode_range(rg, m->tmp, m->cap);

	ck_assert_msg(k >= 0, "range inconsistent at test-ringbuf.c:%ld", -k);
	ck_assert_uint_ge(rg->begin_ts, m->last_end);
	for (long i = 0; i < k; i++) {
		const struct tev *e = &m->tmp[i];

		while (m->next < m->nemit && !m->rec[m->next])
			m->next++;
		ck_assert_msg(m->next < m->nemit, "read an event never recorded (seq %llu)",
			      (unsigned long long)e->seq);
		ck_assert_uint_eq(e->seq, m->next);
		ck_assert_uint_eq(e->id, m->ev[m->next].id);
		ck_assert_uint_eq(e->ts, m->ev[m->next].ts);
		ck_assert_uint_eq(e->n, m->ev[m->next].n);
		m->next++;
		m->nread++;
	}
	if (rg->len)
		m->last_end = rg->end_ts;
}

/* Read everything available; returns the number of ranges. */
static int drain(const struct rb_slot *s, struct rb_reader *r, struct model *m, int partial)
{
	struct rb_range rg;
	int ret, n = 0;

	while ((ret = rb_next(s, r, partial, &rg)) == 1) {
		ck_assert(rg.data >= s->data);
		ck_assert(rg.data + rg.len <= s->data + (size_t)s->num_subbuf * s->subbuf_size);
		model_check(m, &rg);
		rb_done(s, r, &rg);
		n++;
		ck_assert_int_lt(n, 100000);
	}
	ck_assert_int_eq(ret, 0);
	return n;
}

static uint64_t commit_word(const struct rb_slot *s, uint32_t idx)
{
	return __atomic_load_n(&s->hdr->sb[idx].commit.word, __ATOMIC_ACQUIRE);
}

/* ---- tests ------------------------------------------------------------------ */

START_TEST(test_geometry)
{
	ck_assert_uint_eq(shm_slot_hdr_size(2), SHM_PAGE);
	ck_assert_uint_eq(shm_slot_hdr_size(SHM_MAX_NUM_SUBBUF), 192 + 64 * 64 <= SHM_PAGE ?
			  SHM_PAGE : 2 * SHM_PAGE);
	ck_assert(shm_geometry_ok(4096, 2));
	ck_assert(!shm_geometry_ok(4096, 1));
	ck_assert(!shm_geometry_ok(4095, 4));
	ck_assert(!shm_geometry_ok(6000, 4));
	ck_assert(!shm_geometry_ok(4096, SHM_MAX_NUM_SUBBUF + 1));
	/* fast path header sizes */
	ck_assert_uint_eq(shmtrace__hdr_size(0, 100, 100), 4);
	ck_assert_uint_eq(shmtrace__hdr_size(254, (1u << 24) - 1, 0), 4);
	ck_assert_uint_eq(shmtrace__hdr_size(254, 1u << 24, 0), 13);
	ck_assert_uint_eq(shmtrace__hdr_size(255, 1, 0), 13);
}
END_TEST

START_TEST(test_fill_and_switch)
{
	const uint32_t subbuf = 4096, num = 4;
	struct rb_slot *s = slot_new(subbuf, num);
	struct twriter tw;
	struct rb_reader r = { 0 };
	struct rb_range rg;
	struct model m;
	const uint16_t n = 22;
	const uint32_t esize = 4 + PAYLOAD_FIXED + n;
	const uint32_t k = subbuf / esize;	/* events per sub-buffer */
	uint64_t ts = 1000;

	model_init(&m, 1000);
	writer_init(&tw, s, 4242, ts);
	ck_assert_uint_eq(ev_size(3, ts, ts, n), esize);
	/* first event: the slow path opens packet 0 */
	ck_assert_int_eq(memit(&m, &tw, 3, ts, n), 1);
	ck_assert_uint_eq(s->hdr->sb[0].pseq, 0);
	ck_assert_uint_eq(s->hdr->sb[0].begin_ts, 1000);
	ck_assert_int_eq(s->hdr->sb[0].tid, 4242);
	ck_assert_uint_eq(s->hdr->sb[1].pseq, UINT64_MAX);
	ck_assert_ptr_eq(tw.w.data, s->data);
	ck_assert_uint_eq(tw.w.end, subbuf);
	ck_assert_uint_eq(s->hdr->closed, 0);
	ck_assert_uint_eq(tw.published, 0);
	for (uint32_t i = 1; i < k; i++) {
		ts += 10;
		ck_assert_int_eq(memit(&m, &tw, 3, ts, n), 1);
		ck_assert_uint_eq(commit_word(s, 0), ((uint64_t)(i + 1) << 32) | ((i + 1) * esize));
		ck_assert_uint_eq(s->hdr->sb[0].commit.last_ts, ts);
	}
	/* full but not switched: nothing complete yet */
	ck_assert_uint_eq(wpos(&tw.w), k * esize);
	ck_assert_uint_eq(s->hdr->closed, 0);
	ck_assert_uint_eq(tw.published, 0);
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 0);

	/* the next event switches: packet 0 published, packet 1 opened */
	ts += 10;
	ck_assert_int_eq(memit(&m, &tw, 3, ts, n), 1);
	ck_assert_uint_eq(s->hdr->closed, 1);
	ck_assert_uint_eq(tw.published, 1);
	ck_assert_uint_eq(s->hdr->sb[0].pseq, 0);
	ck_assert_uint_eq(s->hdr->sb[1].pseq, 1);
	ck_assert_uint_eq(s->hdr->sb[1].begin_ts, ts);
	ck_assert_ptr_eq(tw.w.data, s->data + subbuf);
	ck_assert_uint_eq(commit_word(s, 1), (1ull << 32) | esize);
	ck_assert_uint_eq(commit_word(s, 0), ((uint64_t)k << 32) | (k * esize));
	ck_assert_uint_eq(s->hdr->discarded, 0);

	/* the complete packet, exactly */
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 1);
	ck_assert_int_eq(rg.complete, 1);
	ck_assert_ptr_eq(rg.data, s->data);
	ck_assert_uint_eq(rg.len, k * esize);
	ck_assert_uint_eq(rg.nev, k);
	ck_assert_uint_eq(rg.begin_ts, 1000);
	ck_assert_uint_eq(rg.end_ts, 1000 + 10 * (k - 1));
	ck_assert_int_eq(rg.tid, 4242);
	/* rb_next does not move by itself */
	{
		struct rb_range again;

		ck_assert_int_eq(rb_next(s, &r, 0, &again), 1);
		ck_assert_ptr_eq(again.data, rg.data);
		ck_assert_uint_eq(again.len, rg.len);
		ck_assert_uint_eq(again.nev, rg.nev);
		ck_assert_int_eq(again.complete, rg.complete);
	}
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	ck_assert_uint_eq(s->hdr->consumed, 1);
	ck_assert_uint_eq(r.rseq, 1);
	ck_assert_uint_eq(r.events, k);
	ck_assert_uint_eq(m.nread, k);
	/* the open packet is returned only with partial */
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 0);
	ck_assert_int_eq(drain(s, &r, &m, 1), 1);
	ck_assert_uint_eq(m.nread, k + 1);
	ck_assert_uint_eq(r.events, k + 1);
	ck_assert_uint_eq(s->hdr->consumed, 1);

	/* fill three more sub-buffers; each switch publishes one packet */
	for (uint32_t i = 0; i < 3 * k; i++) {
		ts += 7;
		ck_assert_int_eq(memit(&m, &tw, (uint32_t)(i % 200), ts, n), 1);
	}
	ck_assert_uint_eq(s->hdr->closed, 4);
	ck_assert_uint_eq(tw.published, 4);
	ck_assert_uint_eq(s->hdr->sb[0].pseq, 4);
	ck_assert_int_eq(drain(s, &r, &m, 0), 3);
	ck_assert_uint_eq(s->hdr->consumed, 4);
	ck_assert_int_eq(drain(s, &r, &m, 1), 1);
	ck_assert_uint_eq(m.nread, m.nrec);
	ck_assert_uint_eq(rb_discarded(s), 0);

	/* the thread goes away: rb_close publishes the open packet */
	ck_assert_int_eq(rb_close(s, &tw.w), 1);
	ck_assert_uint_eq(s->hdr->closed, 5);
	ck_assert_ptr_eq(tw.w.commit, &rb_no_commit);
	ck_assert_uint_eq(tw.w.end, 0);
	ck_assert_int_eq(rb_close(s, &tw.w), 0);
	ck_assert_uint_eq(s->hdr->closed, 5);
	/* the rest of the packet read partially before: nothing left but its end */
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 1);
	ck_assert_int_eq(rg.complete, 1);
	ck_assert_uint_eq(rg.len, 0);
	ck_assert_uint_eq(rg.nev, 0);
	rb_done(s, &r, &rg);
	ck_assert_uint_eq(s->hdr->consumed, 5);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 0);
	model_free(&m);
	slot_free(s);
}
END_TEST

START_TEST(test_partial_reads)
{
	const uint32_t subbuf = 8192, num = 2;
	struct rb_slot *s = slot_new(subbuf, num);
	struct twriter tw;
	struct rb_reader r = { 0 };
	struct rb_range rg;
	struct model m;
	uint64_t ts = 5000000;
	uint32_t bytes;

	model_init(&m, 10000);
	writer_init(&tw, s, 7, ts);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 0);	/* nothing opened yet */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(memit(&m, &tw, 1, ts += 100, (uint16_t)(i * 5)), 1);
	/* partial: the three committed events */
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 1);
	ck_assert_int_eq(rg.complete, 0);
	ck_assert_uint_eq(rg.nev, 3);
	ck_assert_uint_eq(rg.len, wpos(&tw.w));
	ck_assert_ptr_eq(rg.data, s->data);
	ck_assert_uint_eq(rg.begin_ts, 5000100);
	ck_assert_uint_eq(rg.end_ts, 5000300);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	ck_assert_uint_eq(r.flushed, wpos(&tw.w));
	ck_assert_uint_eq(r.nev_flushed, 3);
	ck_assert_uint_eq(s->hdr->consumed, 0);
	/* nothing new */
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 0);
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 0);

	/* a half-written event past the commit word is invisible */
	bytes = wpos(&tw.w);
	memset(tw.w.data + wpos(&tw.w), 0xee, 40);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 0);

	/* two more: only they come back, right after the first three */
	ck_assert_int_eq(memit(&m, &tw, 2, ts += 100, 1), 1);
	ck_assert_int_eq(memit(&m, &tw, 300, ts += 100, 0), 1);	/* extended id */
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 1);
	ck_assert_int_eq(rg.complete, 0);
	ck_assert_ptr_eq(rg.data, s->data + bytes);
	ck_assert_uint_eq(rg.nev, 2);
	ck_assert_uint_eq(rg.len, wpos(&tw.w) - bytes);
	ck_assert_uint_ge(rg.begin_ts, 5000300);
	ck_assert_uint_eq(rg.end_ts, ts);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);

	/* more events, then a switch: the rest of packet 0 only */
	bytes = wpos(&tw.w);
	while (s->hdr->closed == 0)
		ck_assert_int_eq(memit(&m, &tw, 4, ts += 3, 100), 1);
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 1);
	ck_assert_int_eq(rg.complete, 1);
	ck_assert_ptr_eq(rg.data, s->data + bytes);
	ck_assert_uint_eq(rg.len, (uint32_t)commit_word(s, 0) - bytes);
	ck_assert_uint_eq(rg.nev, (commit_word(s, 0) >> 32) - 5);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	ck_assert_uint_eq(r.flushed, 0);
	ck_assert_uint_eq(r.nev_flushed, 0);
	ck_assert_uint_eq(r.rseq, 1);
	ck_assert_uint_eq(s->hdr->consumed, 1);

	/* many small partial reads across several packets */
	for (int i = 0; i < 2000; i++) {
		ck_assert_int_eq(memit(&m, &tw, (uint32_t)(i % 400), ts += (uint64_t)(i % 7),
				       (uint16_t)(i % 50)), 1);
		if (i % 3 == 0)
			drain(s, &r, &m, i % 2);
	}
	drain(s, &r, &m, 1);
	ck_assert_uint_eq(m.nread, m.nrec);
	ck_assert_uint_eq(m.nrec, m.nemit);
	ck_assert_uint_eq(r.events, m.nread);
	ck_assert_uint_eq(rb_discarded(s), 0);
	model_free(&m);
	slot_free(s);
}
END_TEST

/* Header encodings and timestamp reconstruction across packets and ranges. */
START_TEST(test_timestamps)
{
	const uint32_t subbuf = 4096, num = 4;
	struct rb_slot *s = slot_new(subbuf, num);
	struct twriter tw;
	struct rb_reader r = { 0 };
	struct model m;
	static const uint64_t gaps[] = {
		0, 1, 255, 256, (1u << 24) - 1, 1u << 24, (1u << 24) + 1, 0, 3,
		(1u << 23) + 5, (1u << 23) + 5, 1000000000ull * 3600, 17, 0,
	};
	static const uint32_t ids[] = { 0, 1, 254, 255, 256, 1000, 0xfffffffeu, 7 };
	uint64_t ts = (1ull << 24) - 10;	/* low bits about to wrap */
	uint32_t pos;

	model_init(&m, 20000);
	writer_init(&tw, s, 1, ts);
	/* header sizes as expected: compact iff id < 255 and gap < 2^24 */
	for (size_t i = 0; i < 200; i++) {
		uint64_t gap = gaps[i % (sizeof(gaps) / sizeof(gaps[0]))];
		uint32_t id = ids[(i / 3) % (sizeof(ids) / sizeof(ids[0]))];
		uint32_t want = (id < 255 && gap < (1u << 24)) ? 4 : 13;
		uint64_t prev = tw.w.commit->last_ts;
		uint64_t closed = s->hdr->closed;

		pos = wpos(&tw.w);
		ts += gap;
		ck_assert_uint_eq(shmtrace__hdr_size(id, ts, prev), want);
		ck_assert_int_eq(memit(&m, &tw, id, ts, (uint16_t)(i % 13)), 1);
		if (s->hdr->closed == closed)
			ck_assert_uint_eq(wpos(&tw.w) - pos, want + PAYLOAD_FIXED + i % 13);
		if (i % 5 == 0)
			drain(s, &r, &m, i % 10 == 0);
	}
	drain(s, &r, &m, 1);
	ck_assert_uint_eq(m.nread, 200);

	/* compact headers whose low 24 bits wrap at each event */
	for (int i = 0; i < 300; i++) {
		ts += (1u << 24) - 1 - (uint64_t)(i % 3);
		ck_assert_int_eq(memit(&m, &tw, 9, ts, 0), 1);
		if (i % 11 == 0)
			drain(s, &r, &m, 1);
	}
	drain(s, &r, &m, 1);
	ck_assert_uint_eq(m.nread, 500);
	ck_assert_uint_eq(m.nread, m.nrec);
	model_free(&m);
	slot_free(s);
}
END_TEST

START_TEST(test_discard_when_full)
{
	const uint32_t subbuf = 4096, num = 4;
	struct rb_slot *s = slot_new(subbuf, num);
	struct twriter tw;
	struct rb_reader r = { 0 };
	struct rb_range rg;
	struct model m;
	const uint16_t n = 50;
	const uint32_t esize = 4 + PAYLOAD_FIXED + n;
	const uint32_t k = subbuf / esize;
	uint64_t ts = 1;
	uint64_t emitted, recorded;

	model_init(&m, 10000);
	writer_init(&tw, s, 3, ts);
	/* the consumer does not consume: num sub-buffers fill, then drops */
	for (uint32_t i = 0; i < 10 * k + 3; i++)
		memit(&m, &tw, 5, ts += 2, n);
	ck_assert_uint_eq(m.nrec, (uint64_t)num * k);
	for (uint64_t i = 0; i < m.nemit; i++)
		ck_assert_int_eq(m.rec[i], i < (uint64_t)num * k);
	ck_assert_uint_eq(s->hdr->discarded, m.nemit - m.nrec);
	ck_assert_uint_eq(rb_discarded(s), m.nemit - m.nrec);
	ck_assert_uint_eq(s->hdr->closed, num);
	ck_assert_uint_eq(tw.published, num);
	ck_assert_ptr_eq(tw.w.commit, &rb_no_commit);
	for (uint32_t i = 0; i < num; i++)
		ck_assert_uint_eq(s->hdr->sb[i].pseq, i);
	/* the lost nested events count too */
	__atomic_fetch_add(&s->hdr->lost_nested, 2, __ATOMIC_RELAXED);
	ck_assert_uint_eq(rb_discarded(s), m.nemit - m.nrec + 2);
	__atomic_fetch_sub(&s->hdr->lost_nested, 2, __ATOMIC_RELAXED);

	/* one packet consumed: the writer resumes in its sub-buffer */
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 1);
	ck_assert_int_eq(rg.complete, 1);
	ck_assert_uint_eq(rg.nev, k);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	ck_assert_uint_eq(s->hdr->consumed, 1);
	emitted = m.nemit;
	recorded = m.nrec;
	ck_assert_int_eq(memit(&m, &tw, 6, ts += 2, n), 1);
	ck_assert_uint_eq(s->hdr->sb[0].pseq, num);
	ck_assert_uint_eq(s->hdr->closed, num);
	ck_assert_ptr_eq(tw.w.data, s->data);
	/* ... until the ring is full again */
	for (uint32_t i = 0; i < 3 * k; i++)
		memit(&m, &tw, 6, ts += 2, n);
	ck_assert_uint_eq(m.nrec, recorded + k);
	ck_assert_uint_eq(s->hdr->closed, num + 1);
	ck_assert_uint_eq(s->hdr->discarded, m.nemit - m.nrec);
	ck_assert_uint_gt(m.nemit, emitted + k);

	/* read everything: the dropped events are absent, no duplicates */
	ck_assert_int_eq(drain(s, &r, &m, 1), num);
	ck_assert_uint_eq(m.nread, m.nrec);
	ck_assert_uint_eq(r.events, m.nrec);
	ck_assert_uint_eq(s->hdr->consumed, num + 1);
	/* all free: the writer records again */
	for (uint32_t i = 0; i < 2 * k; i++)
		ck_assert_int_eq(memit(&m, &tw, 6, ts += 2, n), 1);
	drain(s, &r, &m, 1);
	ck_assert_uint_eq(m.nread, m.nrec);
	ck_assert_uint_eq(s->hdr->discarded, m.nemit - m.nrec);
	model_free(&m);
	slot_free(s);
}
END_TEST

START_TEST(test_event_too_big)
{
	const uint32_t subbuf = 4096, num = 2;
	struct rb_slot *s = slot_new(subbuf, num);
	struct twriter tw;
	struct rb_reader r = { 0 };
	struct rb_range rg;
	struct model m;
	const uint16_t fill = (uint16_t)(subbuf - 4 - PAYLOAD_FIXED);
	uint64_t ts = 10;
	int published = -1;

	model_init(&m, 100);
	writer_init(&tw, s, 3, ts);
	ck_assert_int_eq(memit(&m, &tw, 1, ts += 1, 10), 1);
	/* one byte too many: dropped, counted, nothing else changes */
	ck_assert_int_eq(memit(&m, &tw, 1, ts += 1, (uint16_t)(fill + 1)), 0);
	ck_assert_uint_eq(s->hdr->discarded, 1);
	ck_assert_uint_eq(s->hdr->closed, 0);
	ck_assert_uint_eq(wpos(&tw.w), 4 + PAYLOAD_FIXED + 10);
	ck_assert_int_eq(memit(&m, &tw, 1, ts += 1, 60000), 0);
	ck_assert_uint_eq(s->hdr->discarded, 2);
	ck_assert_int_eq(rb_reserve_slow(s, &tw.w, UINT64_MAX, ts, 3, &published), 0);
	ck_assert_int_eq(published, 0);
	ck_assert_int_eq(rb_reserve_slow(s, &tw.w, (1ull << 32) + 16, ts, 3, &published), 0);
	ck_assert_uint_eq(s->hdr->discarded, 4);
	ck_assert_uint_eq(s->hdr->closed, 0);
	/* exactly one sub-buffer: fits in a fresh one */
	ck_assert_int_eq(memit(&m, &tw, 1, ts += 1, fill), 1);
	ck_assert_uint_eq(s->hdr->closed, 1);
	ck_assert_uint_eq(wpos(&tw.w), subbuf);
	ck_assert_uint_eq(commit_word(s, 1), (1ull << 32) | subbuf);
	ck_assert_int_eq(memit(&m, &tw, 1, ts += 1, 0), 0);	/* ring full */
	ck_assert_uint_eq(s->hdr->closed, 2);
	ck_assert_uint_eq(s->hdr->discarded, 5);
	drain(s, &r, &m, 1);
	ck_assert_uint_eq(m.nread, 2);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 0);
	ck_assert_uint_eq(rb_discarded(s), 5);
	model_free(&m);
	slot_free(s);
}
END_TEST

/* A slot with two closed packets and an open one with events. */
static struct rb_slot *corrupt_setup(struct twriter *tw, struct model *m)
{
	struct rb_slot *s = slot_new(4096, 4);
	uint64_t ts = 100;

	model_init(m, 1000);
	writer_init(tw, s, 9, ts);
	while (s->hdr->closed < 2)
		ck_assert_int_eq(memit(m, tw, 2, ts += 5, 30), 1);
	ck_assert_int_eq(memit(m, tw, 2, ts += 5, 30), 1);
	return s;
}

START_TEST(test_corrupt_counters)
{
	struct twriter tw;
	struct model m;
	struct rb_slot *s = corrupt_setup(&tw, &m);
	struct rb_reader r = { 0 };
	struct rb_range rg;
	struct shm_slot *h = s->hdr;
	uint64_t saved;

	/* closed beyond the ring */
	saved = h->closed;
	h->closed = r.rseq + s->num_subbuf + 1;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), -EIO);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	h->closed = UINT64_MAX;
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	/* closed behind the reader */
	h->closed = saved;
	r.rseq = saved + 1;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), -EIO);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	r.rseq = 0;
	/* pseq of a closed packet does not match */
	h->sb[0].pseq = 4;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), -EIO);
	h->sb[0].pseq = UINT64_MAX;
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	h->sb[0].pseq = 0;
	/* commit word larger than the sub-buffer */
	saved = h->sb[0].commit.word;
	h->sb[0].commit.word = (saved & ~0xffffffffull) | (s->subbuf_size + 1);
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), -EIO);
	h->sb[0].commit.word = UINT64_MAX;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), -EIO);
	h->sb[0].commit.word = saved;
	/* ... sane again: the packet reads back */
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 1);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 1);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	/* the open packet's commit word past the sub-buffer */
	saved = h->sb[2].commit.word;
	h->sb[2].commit.word = (1ull << 32) | 0x80000000u;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 0);	/* not looked at */
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	h->sb[2].commit.word = saved;
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), 1);
	model_check(&m, &rg);
	rb_done(s, &r, &rg);
	/* commit word moving backwards after a partial read */
	h->sb[2].commit.word = saved - 1;
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	h->sb[2].commit.word = saved - (1ull << 32);
	ck_assert_int_eq(rb_next(s, &r, 1, &rg), -EIO);
	h->closed = 3;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), -EIO);
	h->sb[2].commit.word = saved;
	ck_assert_int_eq(rb_next(s, &r, 0, &rg), 1);
	ck_assert_uint_eq(rg.len, 0);
	ck_assert_int_eq(rg.complete, 1);
	rb_done(s, &r, &rg);
	ck_assert_uint_eq(m.nread, m.nrec);
	model_free(&m);
	slot_free(s);
}
END_TEST

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random counters never crash rb_next nor yield a range out of bounds. */
START_TEST(test_corrupt_random)
{
	const uint32_t subbuf = 4096, num = 4;
	struct rb_slot *s = slot_new(subbuf, num);
	struct shm_slot *h = s->hdr;
	const char *lo = s->data, *hi = s->data + (size_t)num * subbuf;
	int seen[3] = { 0, 0, 0 };

	for (int iter = 0; iter < 200000; iter++) {
		struct rb_reader r;
		struct rb_range rg;
		uint64_t base = rnd64() % 4 ? rnd64() % 1000 : rnd64();
		int ret;

		memset(&r, 0, sizeof(r));
		r.rseq = base;
		r.flushed = (uint32_t)(rnd64() % 3 ? rnd64() % (subbuf + 64) : rnd64());
		r.nev_flushed = (uint32_t)(rnd64() % 200);
		r.last_end = rnd64();
		h->closed = base + rnd64() % (num + 3) - 1;
		h->consumed = rnd64();
		for (uint32_t i = 0; i < num; i++) {
			struct shm_sbmeta *sb = &h->sb[i];

			sb->pseq = rnd64() % 4 ? base + rnd64() % (num + 1) : rnd64();
			sb->commit.word = ((rnd64() % 300) << 32) |
					  (rnd64() % 4 ? rnd64() % (subbuf + 64) : rnd64() >> 32);
			sb->commit.last_ts = rnd64();
			sb->begin_ts = rnd64();
			sb->tid = (int32_t)rnd64();
		}
		ret = rb_next(s, &r, (int)(rnd64() & 1), &rg);
		ck_assert(ret == -EIO || ret == 0 || ret == 1);
		seen[ret < 0 ? 0 : ret + 1]++;
		if (ret == 1) {
			size_t off = (size_t)(rg.data - lo);

			ck_assert(rg.data >= lo && rg.data + rg.len <= hi);
			/* inside one sub-buffer */
			ck_assert_uint_le(off % subbuf + rg.len, subbuf);
			ck_assert_uint_le(rg.begin_ts, rg.end_ts);
			ck_assert_uint_ge(rg.begin_ts, r.last_end);
			rb_done(s, &r, &rg);
			ret = rb_next(s, &r, 1, &rg);
			ck_assert(ret == -EIO || ret == 0 || ret == 1);
			if (ret == 1)
				ck_assert(rg.data >= lo && rg.data + rg.len <= hi);
		}
	}
	/* every outcome was exercised */
	ck_assert_int_gt(seen[0], 1000);
	ck_assert_int_gt(seen[1], 1000);
	ck_assert_int_gt(seen[2], 1000);
	slot_free(s);
}
END_TEST

/* ---- writer and consumer threads --------------------------------------------- */

struct stress {
	struct rb_slot *s;
	uint64_t n;		/* events to emit */
	uint8_t *recorded;	/* by seq, written by the writer */
	uint64_t nrec;
	uint64_t *readseq;	/* seqs in read order, written by the consumer */
	uint64_t nread;
	uint64_t ranges, partial_ranges;
	int done;		/* writer finished (release) */
	long err;		/* first inconsistency (line), consumer side */
	char errmsg[200];
};

static void *stress_writer(void *arg)
{
	struct stress *st = arg;
	struct twriter tw;
	uint64_t ts = shmtrace__clock();

	writer_init(&tw, st->s, 77, ts);
	for (uint64_t seq = 0; seq < st->n; seq++) {
		uint32_t id = (uint32_t)(seq % 301);
		uint16_t len = (uint16_t)((seq * 7) % 61);

		ts = shmtrace__clock();
		if (emit(&tw, id, ts, seq, len)) {
			st->recorded[seq] = 1;
			st->nrec++;
		}
		if (seq % 20000 == 0)
			sched_yield();
	}
	rb_close(st->s, &tw.w);
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *stress_consumer(void *arg)
{
	struct stress *st = arg;
	struct rb_reader r = { 0 };
	struct tev *tmp = calloc(st->s->subbuf_size, sizeof(*tmp));
	uint64_t last_end = 0, last_seq = 0, iter = 0;
	int finishing = 0;

	if (!tmp) {
		st->err = __LINE__;
		return NULL;
	}
	for (;;) {
		struct rb_range rg;
		int done = __atomic_load_n(&st->done, __ATOMIC_ACQUIRE);
		int partial = done || iter++ % 3 == 0;
		int ret = rb_next(st->s, &r, partial, &rg);
		long k;

		if (ret < 0) {
			st->err = __LINE__;
			snprintf(st->errmsg, sizeof(st->errmsg), "rb_next: %d", ret);
			break;
		}
		if (ret == 0) {
			if (finishing)
				break;
			if (done) {
				finishing = 1;	/* one more pass after seeing done */
				continue;
			}
			if (iter % 64 == 0)
				usleep(50);	/* let the ring fill now and then */
			else
				sched_yield();
			continue;
		}
		k = decode_range(&rg, tmp, st->s->subbuf_size);
		if (k < 0) {
			st->err = -k;
			snprintf(st->errmsg, sizeof(st->errmsg), "range %llu: decode error",
				 (unsigned long long)st->ranges);
			break;
		}
		if (rg.begin_ts < last_end) {
			st->err = __LINE__;
			snprintf(st->errmsg, sizeof(st->errmsg), "range begins at %llu < %llu",
				 (unsigned long long)rg.begin_ts, (unsigned long long)last_end);
			break;
		}
		for (long i = 0; i < k; i++) {
			if (st->nread == st->n || (st->nread && tmp[i].seq <= last_seq) ||
			    tmp[i].id != tmp[i].seq % 301 || tmp[i].n != (tmp[i].seq * 7) % 61) {
				st->err = __LINE__;
				snprintf(st->errmsg, sizeof(st->errmsg),
					 "event seq %llu after %llu (read %llu)",
					 (unsigned long long)tmp[i].seq,
					 (unsigned long long)last_seq,
					 (unsigned long long)st->nread);
				goto out;
			}
			last_seq = tmp[i].seq;
			st->readseq[st->nread++] = tmp[i].seq;
		}
		if (rg.len)
			last_end = rg.end_ts;
		st->ranges++;
		st->partial_ranges += !rg.complete;
		rb_done(st->s, &r, &rg);
	}
out:
	free(tmp);
	return NULL;
}

START_TEST(test_threads)
{
	static const struct { uint32_t subbuf, num; } geo[] = {
		{ 4096, 2 }, { 4096, 4 }, { 16384, 8 },
	};
	struct stress st;
	pthread_t tw, tc;

	memset(&st, 0, sizeof(st));
	st.s = slot_new(geo[_i].subbuf, geo[_i].num);
	st.n = 300000;
	st.recorded = calloc(st.n, 1);
	st.readseq = calloc(st.n, sizeof(*st.readseq));
	ck_assert(st.recorded && st.readseq);
	ck_assert_int_eq(pthread_create(&tc, NULL, stress_consumer, &st), 0);
	ck_assert_int_eq(pthread_create(&tw, NULL, stress_writer, &st), 0);
	ck_assert_int_eq(pthread_join(tw, NULL), 0);
	ck_assert_int_eq(pthread_join(tc, NULL), 0);
	ck_assert_msg(st.err == 0, "consumer: test-ringbuf.c:%ld: %s", st.err, st.errmsg);
	/* every recorded event read exactly once, in order; the others counted */
	ck_assert_uint_eq(st.nrec + st.s->hdr->discarded, st.n);
	ck_assert_uint_eq(rb_discarded(st.s), st.n - st.nrec);
	ck_assert_uint_eq(st.nread, st.nrec);
	for (uint64_t i = 0; i < st.nread; i++) {
		ck_assert(st.recorded[st.readseq[i]]);
		if (i)
			ck_assert_uint_gt(st.readseq[i], st.readseq[i - 1]);
	}
	ck_assert_uint_eq(st.s->hdr->consumed, st.s->hdr->closed);
	ck_assert_uint_gt(st.ranges, 0);
	free(st.recorded);
	free(st.readseq);
	slot_free(st.s);
}
END_TEST

static Suite *ringbuf_suite(void)
{
	Suite *s = suite_create("ringbuf");
	TCase *tc = tcase_create("core");
	TCase *tt = tcase_create("threads");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_geometry);
	tcase_add_test(tc, test_fill_and_switch);
	tcase_add_test(tc, test_partial_reads);
	tcase_add_test(tc, test_timestamps);
	tcase_add_test(tc, test_discard_when_full);
	tcase_add_test(tc, test_event_too_big);
	tcase_add_test(tc, test_corrupt_counters);
	tcase_add_test(tc, test_corrupt_random);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tt, 60);
	tcase_add_loop_test(tt, test_threads, 0, 3);
	suite_add_tcase(s, tt);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ringbuf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
