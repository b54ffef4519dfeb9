// SPDX-License-Identifier: MIT
/*
 * wake.c - processes polled and asleep, and the wake-up protocol with
 * their writers.
 *
 * A process is polled (its streams in the threads' polled lists,
 * worker.c) while its streams give something, and for ACTIVE_NS after;
 * then, once everything complete of it is written, it is put to sleep: its
 * streams move to the parked lists, and its writers wake us with a
 * datagram on its wake socket when they publish a packet; it is then
 * polled again. So a round costs what the busy processes have, however
 * many are idle, and only their writers make a system call, once per
 * packet while we sleep.
 *
 * The wake-up is a Dekker handshake on two locations of shared memory,
 * each written by one side and read by the other, with a full barrier on
 * each side between its store and its load (see shm.h, and the writer's
 * side in libtrace/control.c, lib_wake_consumer()):
 *   consumer: consumer_sleeping = 1 (relaxed); full barrier; every slot's
 *             `closed` (acquire) compared with what was consumed;
 *   writer:   `closed` + 1 (release, common/ringbuf.c); full barrier;
 *             consumer_sleeping (relaxed); a datagram when it is 1.
 * Either the consumer sees the packet, and stays polled, or the writer
 * sees the flag and sends the datagram.
 *
 * Who writes: consumer_sleeping in the process page is the consumer's (the
 * main thread's, here); the process only reads it. asleep, the list of
 * polled processes and the wake socket are the main thread's. last_data
 * is written by whichever thread drained the process's streams, during a
 * round (relaxed: workers may store the same value at once), and read by
 * the main thread between rounds, which the end of the round orders.
 *
 * The wake socket is one end of a socket pair the process made; the
 * process may do anything to it, so it is read with MSG_DONTWAIT (no flag
 * set on the shared open file makes that read block) and at most 64
 * datagrams per wake-up, so a process that floods it costs a few calls.
 *
 * A consumer that crashes while a process sleeps leaves consumer_sleeping
 * set: the process's writers send a datagram per packet, which fail once
 * the socket's buffer is full (they never block). The next consumer
 * clears the flag when it takes the page (wake_start()).
 */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <urcu/list.h>
#include "app.h"
#include "drain.h"
#include "seg.h"
#include "common/util.h"
#include "wake.h"
#include "worker.h"

#define ACTIVE_NS	50000000u

static CDS_LIST_HEAD(awake_apps);
static int wake_epfd = -1;

void wake_init(int epfd)
{
	wake_epfd = epfd;
}

static void wake_watch(struct c_app *a, int wake_fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = a->id };

	a->wake_fd = wake_fd;
	epoll_ctl(wake_epfd, EPOLL_CTL_ADD, wake_fd, &ev);
}

static void wake_unwatch(struct c_app *a)
{
	if (a->wake_fd < 0)
		return;
	epoll_ctl(wake_epfd, EPOLL_CTL_DEL, a->wake_fd, NULL);
	close(a->wake_fd);
	a->wake_fd = -1;
}

/*
 * Move every stream of @a to the polled or parked lists; -ENOMEM, none
 * moved. (Memory-only channels' streams are in no list: never drained.)
 */
static int park_streams(struct c_app *a, int parked)
{
	for (struct c_seg *s = a->segs; s; s = s->next)
		for (uint32_t i = 0; !s->chan->memory && i < s->nslots; i++) {
			if (wk_stream_park(&s->streams[i], parked) == 0)
				continue;
			/* undo: each list has room for what it had */
			for (struct c_seg *u = a->segs; u; u = u->next)
				for (uint32_t k = 0; !u->chan->memory && k < u->nslots; k++)
					wk_stream_park(&u->streams[k], !parked);
			return -ENOMEM;
		}
	return 0;
}

static void wake_app(struct c_app *a, uint64_t now)
{
	a->last_data = now;
	if (!a->asleep || park_streams(a, WK_POLLED) < 0)
		return;		/* (still asleep: its next packet wakes us again) */
	__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
	a->asleep = 0;
	cds_list_add(&a->awake, &awake_apps);
}

void wake_start(struct c_app *a, int wake_fd, uint64_t now)
{
	wake_watch(a, wake_fd);
	__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
	a->last_data = now;
	cds_list_add(&a->awake, &awake_apps);
}

void wake_renew(struct c_app *a, int wake_fd, uint64_t now)
{
	wake_unwatch(a);
	wake_watch(a, wake_fd);
	if (!a->asleep)
		__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
	wake_app(a, now);
}

void wake_stop(struct c_app *a)
{
	if (!a->asleep)
		cds_list_del(&a->awake);
	a->asleep = 1;		/* (out of the list: once) */
	wake_unwatch(a);
}

void wake_socket(uint64_t app_id)
{
	struct c_app *a = capp_find(app_id);
	char buf[16];

	for (int i = 0; a && i < 64 && recv(a->wake_fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0; i++)
		;
	if (a)
		wake_app(a, now_ns(CLOCK_MONOTONIC));
}

static int app_pending(const struct c_app *a)
{
	for (const struct c_seg *s = a->segs; s; s = s->next)
		if (drain_pending(s))
			return 1;
	return 0;
}

static int app_drain(struct c_app *a)
{
	int written = 0;

	for (struct c_seg *s = a->segs; s; s = s->next)
		written += drain_seg(s, DRAIN_COMPLETE);
	return written;
}

/*
 * Put @a to sleep if nothing is left to write. Returns 1 when it wrote
 * more (it stays polled), 0 when it stays polled with something it cannot
 * write now (a relay that takes nothing), -1 when asleep.
 */
static int app_sleep(struct c_app *a)
{
	app_drain(a);
	__atomic_store_n(&a->proc->consumer_sleeping, 1, __ATOMIC_RELAXED);
	/*
	 * Dekker, the consumer's side; the writer's is lib_wake_consumer()
	 * (libtrace/control.c). This barrier orders our store of
	 * consumer_sleeping = 1 before our loads of the slots' `closed` in
	 * app_pending(). Only a full barrier orders a store before a later
	 * load: a release or acquire fence does not, and even x86 lets the
	 * load go first while the store waits in the store buffer. The writer
	 * mirrors it: release store of `closed` + 1, full barrier, load of
	 * consumer_sleeping. Both barriers are in one total order, so one side
	 * sees the other's store: we see the new packet and stay polled, or
	 * the writer sees the flag and sends a datagram. Without this one, we
	 * could read the old `closed` while the writer reads the old flag, 0:
	 * we park the streams, it sends nothing, and its packet waits in the
	 * ring until the process publishes another or the channel's next
	 * flush interval drains the parked streams (a writer that then stays
	 * idle is late on disk by a whole interval).
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (app_pending(a) || park_streams(a, WK_PARKED) < 0) {
		/* (no barrier to clear it: at worst a writer sends a needless datagram) */
		__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
		return app_drain(a) > 0;
	}
	a->asleep = 1;
	cds_list_del(&a->awake);
	return -1;
}

int wake_sleep_idle(uint64_t now, int *stuck)
{
	struct c_app *a, *tmp;
	int busy = 0;

	*stuck = 0;
	cds_list_for_each_entry_safe(a, tmp, &awake_apps, awake) {
		int r;

		if (now - __atomic_load_n(&a->last_data, __ATOMIC_RELAXED) < ACTIVE_NS) {
			busy = 1;
			continue;
		}
		r = app_sleep(a);
		if (r > 0)
			a->last_data = now;
		busy |= r > 0;
		*stuck |= r == 0;
	}
	return busy;
}
