/* SPDX-License-Identifier: MIT */
/*
 * reader-merge.c - the events of every stream of every trace in time
 * order (shmtrace_rd_next() and shmtrace_rd_errmsg() of
 * <shmtrace/reader.h>). Streams positioned on their next event sit in a
 * binary min-heap keyed by (wall-clock ns of that event, global stream
 * index); shmtrace_rd_next() advances the stream whose event it returned
 * last (reader-decode.h), restores the heap and returns the new root. A
 * stream that ends, whole or damaged, leaves the heap and gives back its
 * packet buffer and its file; the others go on. Two stream files that
 * are one stream copied are found at the start: the later one is damage.
 *
 * Invariants: those of reader-objects.h on the heap and on sticky errors;
 * the first damage's error is returned only once the heap is empty.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-damage.h"
#include "reader-decode.h"
#include "reader-objects.h"

static inline bool comes_before(const struct shmtrace_rd_stream *a,
				const struct shmtrace_rd_stream *b)
{
	if (a->ev.ns != b->ev.ns)
		return a->ev.ns < b->ev.ns;
	return a->index < b->index;
}

static void sift_down(struct shmtrace_rd_reader *r, size_t i)
{
	struct shmtrace_rd_stream **h = r->heap, *x = h[i];
	size_t n = r->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && comes_before(h[c + 1], h[c]))
			c++;
		if (!comes_before(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void sift_up(struct shmtrace_rd_reader *r, size_t i)
{
	struct shmtrace_rd_stream **h = r->heap, *x = h[i];

	while (i) {
		size_t p = (i - 1) / 2;

		if (!comes_before(x, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

/* A stream that ended needs neither its packet buffer nor its file. */
static void retire(struct shmtrace_rd_stream *s)
{
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static int cmp_instance(const void *a, const void *b)
{
	const struct shmtrace_rd_stream *x = *(const struct shmtrace_rd_stream *const *)a;
	const struct shmtrace_rd_stream *y = *(const struct shmtrace_rd_stream *const *)b;

	if (x->trace != y->trace)
		return x->trace->index < y->trace->index ? -1 : 1;
	if (x->sc->id != y->sc->id)
		return x->sc->id < y->sc->id ? -1 : 1;
	if (x->instance_id != y->instance_id)
		return x->instance_id < y->instance_id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Every stream file of a trace is a stream of its own: two that give the
 * same stream class and stream_instance_id in their first packets are one
 * stream copied (doc/trace-format.md), whose events would be read twice:
 * the later file is damage, not read.
 */
static int check_instances(struct shmtrace_rd_reader *r)
{
	struct shmtrace_rd_stream **v, *a, *b;
	size_t i, n = 0;

	v = malloc((r->nstreams + 1) * sizeof(*v));
	if (!v)
		return rd_fatal(r, -ENOMEM, "out of memory");
	for (i = 0; i < r->nstreams; i++) {
		if (r->streams[i]->have_packet && !r->streams[i]->error)
			v[n++] = r->streams[i];
	}
	qsort(v, n, sizeof(*v), cmp_instance);
	for (i = 1, a = n ? v[0] : NULL; i < n; i++) {
		b = v[i];
		if (a->trace == b->trace && a->sc->id == b->sc->id &&
		    a->instance_id == b->instance_id) {
			rd_fail_at(r, b, b->pkt_off + 24, -EBADMSG,
				   "stream instance id %" PRIu64 " of stream id %" PRIu32 " also in %s",
				   b->instance_id, b->sc->id, a->path);
			if (r->fatal)
				break;
			continue;	/* @a stays the one read */
		}
		a = b;
	}
	free(v);
	return r->fatal;
}

/* Every stream on its first event, in the heap; damaged ones left out. */
static int start(struct shmtrace_rd_reader *r)
{
	size_t i, n = 0;
	int rc;

	for (i = 0; i < r->nstreams; i++) {
		rc = rd_advance(r, r->streams[i]);
		if (r->fatal)
			return r->fatal;
		if (rc > 0)
			r->heap[n++] = r->streams[i];
		else
			retire(r->streams[i]);
	}
	if (r->nstreams && check_instances(r))
		return r->fatal;
	for (i = 0; i < n; i++) {
		struct shmtrace_rd_stream *s = r->heap[i];

		if (s->error) {
			retire(s);
			continue;
		}
		r->heap[r->nheap] = s;
		sift_up(r, r->nheap++);
	}
	return 0;
}

int shmtrace_rd_next(struct shmtrace_rd_reader *r, const struct shmtrace_rd_event **ev)
{
	int rc;

	if (r->error)
		return r->error;
	if (!r->started) {
		r->started = true;
		if (start(r))
			return r->error = r->fatal;
	} else if (r->cur) {
		rc = rd_advance(r, r->cur);
		if (r->fatal)
			return r->error = r->fatal;
		if (rc <= 0) {		/* ended, or damaged: the others go on */
			retire(r->cur);
			r->heap[0] = r->heap[--r->nheap];
			r->cur = NULL;
		}
		if (r->nheap)
			sift_down(r, 0);
	}
	if (!r->nheap) {
		r->cur = NULL;
		if (!r->ndmg)
			return 0;
		/* every stream read: now the damage */
		snprintf(r->err, sizeof(r->err), "%s", r->dmg[0].msg);
		return r->error = r->dmg[0].error;
	}
	r->cur = r->heap[0];
	*ev = &r->cur->ev;
	return 1;
}

const char *shmtrace_rd_errmsg(const struct shmtrace_rd_reader *r)
{
	return r->error ? r->err : "no error";
}
