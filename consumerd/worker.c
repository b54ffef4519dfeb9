/* SPDX-License-Identifier: MIT */
/*
 * worker.c - the consumer's draining threads.
 *
 * Streams are sharded: each belongs to exactly one thread, so one thread
 * at a time drains it, and its reader state (struct c_stream) needs no
 * lock. A worker holds streams written to files; the main thread holds
 * the streams sent to a relay (relaydata.c is the main thread's) and every
 * stream when there is no worker. A new stream goes to the thread with
 * the fewest; a worker is started when every running one has a stream
 * already, up to the configured count, so there are never more workers
 * than streams. Each thread keeps two lists: the streams of processes
 * polled (awake) and of processes asleep (parked, see wake.c), so
 * that a round over the polled streams costs what the busy processes
 * have, not what all processes have.
 *
 * Rounds: a polling round with few complete packets, or all of them in
 * one worker's streams, is drained by the main thread alone
 * (round_inline()). Otherwise the
 * main thread sets wk_pending to the number of workers it asks, hands each a job through the worker's wait-free queue (wfcqueue:
 * the enqueue is a full barrier, so everything the main thread changed
 * before is visible to the worker that dequeues), bumps the worker's bell
 * and wakes it with a futex, drains its own list, then sleeps on
 * wk_pending until the last worker brings it to 0 (acq_rel: the workers'
 * writes to their streams, traces and channels are visible to the main
 * thread after the wait). A worker sleeps on its bell: it reads the bell,
 * then looks at its queue, and sleeps only if the bell has not moved, so
 * a job enqueued in between is never missed.
 *
 * Between rounds only the main thread runs: it alone adds and removes
 * apps, channels, segments and streams, rotates, snapshots and takes
 * statistics, all single-threaded as before workers existed. During a
 * round the workers share only what struct c_trace's lock (trace.c) and
 * the error lock of werr.c protect; compression and overwrite copies use
 * per-thread buffers.
 *
 * A crash of any thread is a crash of the consumer: the next one resumes
 * from every slot's `consumed` counter, as ever.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <urcu/wfcqueue.h>
#include "app.h"
#include "chan.h"
#include "support/log.h"
#include "seg.h"
#include "trace.h"
#include "worker.h"

struct wk_list {
	struct c_stream **v;
	uint32_t len, cap;
};

/* A thread's streams: [WK_POLLED] and [WK_PARKED] (wk_stream_park()). */
struct wk_lists {
	struct wk_list l[2];
};

static uint32_t wk_lists_len(const struct wk_lists *ls)
{
	return ls->l[0].len + ls->l[1].len;
}

struct wk_job {
	struct cds_wfcq_node node;
	enum drain how;
	const struct c_chan *only;
	int all;			/* parked streams too */
	uint64_t now;			/* monotonic ns, for last_data */
	int quit;
};

struct wk {
	pthread_t thread;
	struct cds_wfcq_head head;
	struct cds_wfcq_tail tail;
	uint32_t bell;			/* bumped after each enqueue (futex) */
	struct wk_job job;		/* at most one queued: rounds are synchronous */
	int written;			/* the last round's result */
	struct wk_lists lists;
};

static struct wk *wk;			/* wk_max of them, wk_n running */
static unsigned int wk_max, wk_n;
static struct wk_lists wk_main;		/* the main thread's */
static uint32_t wk_pending;		/* workers still in the round (futex) */

static void futex_wait(uint32_t *addr, uint32_t val)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/*
 * Drain the streams of @ls that job @j asks for. A process with a stream
 * that gave something has its last_data set (the workers may store the
 * same value at once: relaxed atomics).
 */
static int lists_drain(const struct wk_lists *ls, const struct wk_job *j)
{
	int written = 0;

	for (int k = 0; k <= j->all; k++) {
		const struct wk_list *l = &ls->l[k];

		for (uint32_t i = 0; i < l->len; i++) {
			struct c_stream *st = l->v[i];
			struct c_seg *s = st->seg;
			enum drain h = j->how;
			int n;

			if (j->only && s->chan != j->only)
				continue;
			if (s->chan->flush_due && h < DRAIN_PARTIAL)
				h = DRAIN_PARTIAL;
			n = drain_stream(s, st, h);
			if (n > 0)
				__atomic_store_n(&s->trace->app->last_data, j->now, __ATOMIC_RELAXED);
			written += n;
		}
	}
	return written;
}

static void *wk_thread(void *arg)
{
	struct wk *w = arg;

	for (;;) {
		uint32_t bell = __atomic_load_n(&w->bell, __ATOMIC_ACQUIRE);
		struct cds_wfcq_node *n = __cds_wfcq_dequeue_blocking(&w->head, &w->tail);
		struct wk_job *j;

		if (!n) {
			futex_wait(&w->bell, bell);
			continue;
		}
		j = caa_container_of(n, struct wk_job, node);
		if (j->quit)
			break;
		w->written = lists_drain(&w->lists, j);
		if (__atomic_sub_fetch(&wk_pending, 1, __ATOMIC_ACQ_REL) == 0)
			futex_wake(&wk_pending);
	}
	drain_thread_fini();
	return NULL;
}

static void wk_send(struct wk *w, const struct wk_job *j)
{
	w->job = *j;
	cds_wfcq_node_init(&w->job.node);
	cds_wfcq_enqueue(&w->head, &w->tail, &w->job.node);
	__atomic_add_fetch(&w->bell, 1, __ATOMIC_RELEASE);
	futex_wake(&w->bell);
}

void wk_init(unsigned int n)
{
	wk_max = n > 1 ? n : 0;
	if (wk_max && !(wk = calloc(wk_max, sizeof(*wk))))
		wk_max = 0;
}

/* Start one more worker; 0 on success. Its signals are the main thread's. */
static int wk_start(void)
{
	struct wk *w = &wk[wk_n];
	sigset_t all, old;
	int ret;

	cds_wfcq_init(&w->head, &w->tail);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&w->thread, NULL, wk_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		log_warn("cannot start a worker: %s; %u drain", strerror(ret), wk_n);
		wk_max = wk_n;	/* do not try again */
		return -ret;
	}
	wk_n++;
	log_dbg("worker %u started", wk_n);
	return 0;
}

/* Room for one more in @l. */
static int list_reserve(struct wk_list *l)
{
	uint32_t cap = l->cap ? l->cap * 2 : 64;
	struct c_stream **v;

	if (l->len < l->cap)
		return 0;
	v = realloc(l->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = cap;
	return 0;
}

static int list_push(struct wk_list *l, struct c_stream *st)
{
	if (list_reserve(l) < 0)
		return -ENOMEM;
	st->widx = l->len;
	l->v[l->len++] = st;
	return 0;
}

static struct wk_list *stream_list(const struct c_stream *st)
{
	return &(st->worker >= 0 ? &wk[st->worker].lists : &wk_main)->l[st->parked];
}

int wk_stream_add(struct c_stream *st, int parked)
{
	struct wk *best = NULL;

	st->parked = parked;
	if (!st->seg->chan->relay) {
		for (unsigned int i = 0; i < wk_n; i++)
			if (!best || wk_lists_len(&wk[i].lists) < wk_lists_len(&best->lists))
				best = &wk[i];
		if ((!best || wk_lists_len(&best->lists) > 0) && wk_n < wk_max && wk_start() == 0)
			best = &wk[wk_n - 1];
	}
	if (best && list_push(&best->lists.l[parked], st) == 0) {
		st->worker = (int)(best - wk);
		return 0;
	}
	st->worker = -1;
	return list_push(&wk_main.l[parked], st);
}

void wk_stream_del(struct c_stream *st)
{
	struct wk_list *l = stream_list(st);
	struct c_stream *last = l->v[--l->len];

	l->v[st->widx] = last;
	last->widx = st->widx;
}

int wk_stream_park(struct c_stream *st, int parked)
{
	struct wk_list *to;

	if (st->parked == parked)
		return 0;
	to = &(st->worker >= 0 ? &wk[st->worker].lists : &wk_main)->l[parked];
	if (list_reserve(to) < 0)
		return -ENOMEM;
	wk_stream_del(st);
	st->parked = parked;
	return list_push(to, st);	/* cannot fail now */
}

/* Has worker @w streams that job @j asks for? */
static int wk_asked(const struct wk *w, const struct wk_job *j)
{
	return j->all ? wk_lists_len(&w->lists) > 0 : w->lists.l[WK_POLLED].len > 0;
}

/* Complete packets waiting in the polled streams of @w (at most @max). */
static uint64_t wk_packets(const struct wk *w, uint64_t max)
{
	const struct wk_list *l = &w->lists.l[WK_POLLED];
	uint64_t n = 0;

	for (uint32_t i = 0; i < l->len && n < max; i++) {
		const struct c_stream *st = l->v[i];

		if (!st->broken)
			n += __atomic_load_n(&st->rb.hdr->closed, __ATOMIC_ACQUIRE) - st->rd.rseq;
	}
	return n;
}

/*
 * A polling round is done by the main thread alone unless two workers
 * have complete packets and there are at least WK_BATCH of them: waking
 * workers costs more than writing a few packets (and the workers are
 * idle, so their streams are ours for the round).
 */
#define WK_BATCH	8

static int round_inline(const struct wk_job *j)
{
	uint64_t total = 0;
	int busy = 0;

	if (j->all || j->how != DRAIN_LAZY)
		return 0;
	for (unsigned int i = 0; i < wk_n; i++) {
		uint64_t n = wk_packets(&wk[i], WK_BATCH);

		busy += n > 0;
		total += n;
	}
	return busy < 2 || total < WK_BATCH;
}

int wk_round(enum drain how, const struct c_chan *only, int all, uint64_t now)
{
	struct wk_job j = { .how = how, .only = only, .all = !!all, .now = now };
	unsigned int asked = 0;
	int written;
	uint32_t p;

	if (round_inline(&j)) {
		written = lists_drain(&wk_main, &j);
		for (unsigned int i = 0; i < wk_n; i++)
			written += lists_drain(&wk[i].lists, &j);
		return written;
	}
	for (unsigned int i = 0; i < wk_n; i++)
		asked += wk_asked(&wk[i], &j);
	__atomic_store_n(&wk_pending, asked, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < wk_n; i++)
		if (wk_asked(&wk[i], &j))
			wk_send(&wk[i], &j);
	written = lists_drain(&wk_main, &j);
	while ((p = __atomic_load_n(&wk_pending, __ATOMIC_ACQUIRE)) != 0)
		futex_wait(&wk_pending, p);
	for (unsigned int i = 0; i < wk_n; i++)
		if (wk_asked(&wk[i], &j))
			written += wk[i].written;
	return written;
}

unsigned int wk_running(void)
{
	return wk_n;
}

void wk_fini(void)
{
	struct wk_job quit = { .quit = 1 };

	for (unsigned int i = 0; i < wk_n; i++)
		wk_send(&wk[i], &quit);
	for (unsigned int i = 0; i < wk_n; i++) {
		pthread_join(wk[i].thread, NULL);
		free(wk[i].lists.l[0].v);
		free(wk[i].lists.l[1].v);
	}
	free(wk);
	free(wk_main.l[0].v);
	free(wk_main.l[1].v);
	wk = NULL;
	wk_n = wk_max = 0;
	memset(&wk_main, 0, sizeof(wk_main));
}
