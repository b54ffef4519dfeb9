// SPDX-License-Identifier: MIT
/*
 * loop.c - the session daemon's event loop: one epoll instance, and for
 * each descriptor watched the handler that reads it and its data (a
 * process, a pending connection; redis' aeFileEvent).
 *
 * Invariants:
 * - Whoever opens a descriptor registers it (ev_add()) and unregisters it
 *   (ev_del()) before closing it; the loop owns only the table.
 * - A registration has a generation, drawn from one counter that never
 *   repeats within 2^32 registrations, and every event carries the
 *   generation of the registration it was queued for (epoll's data: the
 *   descriptor and its generation). An event is dispatched only while
 *   the same registration stands: a descriptor closed by a handler, its
 *   number then reused by a new connection or process within the same
 *   batch, never receives the events that the batch still holds for the
 *   old one. A handler may thus remove, close and free anything,
 *   including what later events of its batch would have named.
 * - The table is indexed by descriptor number (a lookup is one index),
 *   grown to the highest number registered, and is all the loop keeps:
 *   a crash leaves nothing of it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "loop.h"

struct ev_slot {
	ev_fn fn;			/* NULL: not watched */
	void *data;
	uint32_t gen;			/* of the registration standing, 0: none */
	int paused;
};

static int ev_epfd = -1;
static struct ev_slot *ev_tab;
static size_t ev_cap;
static uint32_t ev_gen;
static int ev_left;
static int ev_paused[8];
static unsigned int ev_npaused;

int ev_init(void)
{
	ev_epfd = epoll_create1(EPOLL_CLOEXEC);
	return ev_epfd < 0 ? -errno : 0;
}

void ev_fini(void)
{
	if (ev_epfd >= 0)
		close(ev_epfd);
	ev_epfd = -1;
	free(ev_tab);
	ev_tab = NULL;
	ev_cap = 0;
}

static int ev_grow(int fd)
{
	size_t cap = ev_cap ? ev_cap : 64;
	struct ev_slot *t;

	while (cap <= (size_t)fd)
		cap *= 2;
	t = realloc(ev_tab, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	memset(t + ev_cap, 0, (cap - ev_cap) * sizeof(*t));
	ev_tab = t;
	ev_cap = cap;
	return 0;
}

int ev_add(int fd, ev_fn fn, void *data)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct ev_slot *s;
	int op = EPOLL_CTL_ADD;

	if (fd < 0 || !fn)
		return -EINVAL;
	if ((size_t)fd >= ev_cap && ev_grow(fd) < 0)
		return -ENOMEM;
	s = &ev_tab[fd];
	if (s->fn)
		op = EPOLL_CTL_MOD;	/* registered again without ev_del() */
	if (++ev_gen == 0)
		ev_gen = 1;
	ev.data.u64 = (uint64_t)ev_gen << 32 | (uint32_t)fd;
	if (epoll_ctl(ev_epfd, op, fd, &ev) < 0 &&
	    (errno != ENOENT || epoll_ctl(ev_epfd, EPOLL_CTL_ADD, fd, &ev) < 0) &&
	    (errno != EEXIST || epoll_ctl(ev_epfd, EPOLL_CTL_MOD, fd, &ev) < 0))
		return -errno;
	s->fn = fn;
	s->data = data;
	s->gen = ev_gen;
	s->paused = 0;
	return 0;
}

void ev_del(int fd)
{
	if (fd < 0 || (size_t)fd >= ev_cap || !ev_tab[fd].fn)
		return;
	epoll_ctl(ev_epfd, EPOLL_CTL_DEL, fd, NULL);
	memset(&ev_tab[fd], 0, sizeof(ev_tab[fd]));
}

int ev_watched(int fd)
{
	return fd >= 0 && (size_t)fd < ev_cap && ev_tab[fd].fn;
}

void ev_pause(int fd)
{
	struct epoll_event ev = { .events = 0 };

	if (!ev_watched(fd) || ev_tab[fd].paused || ev_npaused == sizeof(ev_paused) / sizeof(int))
		return;
	ev.data.u64 = (uint64_t)ev_tab[fd].gen << 32 | (uint32_t)fd;
	epoll_ctl(ev_epfd, EPOLL_CTL_MOD, fd, &ev);
	ev_tab[fd].paused = 1;
	ev_paused[ev_npaused++] = fd;
}

void ev_resume(void)
{
	for (unsigned int i = 0; i < ev_npaused; i++) {
		int fd = ev_paused[i];
		struct epoll_event ev = { .events = EPOLLIN };

		/* closed meanwhile, perhaps its number taken again: not paused */
		if (!ev_watched(fd) || !ev_tab[fd].paused)
			continue;
		ev.data.u64 = (uint64_t)ev_tab[fd].gen << 32 | (uint32_t)fd;
		epoll_ctl(ev_epfd, EPOLL_CTL_MOD, fd, &ev);
		ev_tab[fd].paused = 0;
	}
	ev_npaused = 0;
}

int ev_run_once(int timeout_ms)
{
	struct epoll_event evs[64];
	int n = epoll_wait(ev_epfd, evs, 64, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n && !ev_left; i++) {
		int fd = (int)(uint32_t)evs[i].data.u64;
		uint32_t gen = (uint32_t)(evs[i].data.u64 >> 32);

		if ((size_t)fd >= ev_cap || !ev_tab[fd].fn || ev_tab[fd].gen != gen)
			continue;	/* unregistered since it was queued */
		ev_tab[fd].fn(fd, ev_tab[fd].data);
	}
	return n;
}

void ev_quit(void)
{
	ev_left = 1;
}

int ev_quitting(void)
{
	return ev_left;
}
