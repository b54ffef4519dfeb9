/* SPDX-License-Identifier: MIT */
/*
 * app.c - the registry of traced processes and their control pages.
 *
 * A process registers with one message carrying its control page, process
 * page and eventfd. The daemon checks the sender's credentials against the
 * message, the memfds' seals and sizes, maps the control page read-write
 * and becomes its only writer. Event descriptions and buffer segments
 * follow as further messages; they are validated here and forwarded to the
 * consumer, which acknowledges each, before anything enables the events.
 *
 * Control page update (app_update): make the generation odd, write the
 * channel table and the enable masks, make it even (release), then ring the
 * doorbell if a mask changed and the process still catches the signal
 * (SigCgt), so a pid reused by another program is never signalled.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sessiond.h"
#include "home.h"
#include "log.h"
#include "tsc.h"
#include "util.h"

struct app *app_by_sock(int fd)
{
	for (struct app *a = sd.apps; a; a = a->next)
		if (a->sock == fd)
			return a;
	return NULL;
}

static int app_consumer_add(struct app *a)
{
	struct msg_c_app m = { .app_id = a->id, .pid = (uint32_t)a->pid, .clock = a->clock };
	int fds[2] = { a->proc_fd, a->efd };

	memcpy(m.procname, a->procname, sizeof(m.procname));
	return consumer_call(MSG_C_APP_ADD, &m, sizeof(m), fds, 2, NULL, 0);
}

int app_accept(int fd, const void *body, size_t len, const int *fds)
{
	const struct msg_app_register *m = body;
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	struct app *a = NULL;
	void *ctl;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0 || (uint32_t)cr.pid != m->pid ||
	    m->abi != SHMTRACE_ABI_VERSION || m->max_events != SHM_MAX_EVENTS ||
	    m->max_chan != SHM_MAX_CHAN || m->clock > CLOCK_KIND_TSC || (m->signo && (m->signo < (uint32_t)SIGRTMIN ||
						       m->signo > (uint32_t)SIGRTMAX))) {
		log_warn("registration refused: inconsistent message from pid %d", (int)cr.pid);
		goto fail;
	}
	if (memfd_check(fds[0], SHM_CTL_SIZE) < 0 || memfd_check(fds[1], SHM_PROC_SIZE) < 0) {
		log_warn("registration refused: pid %u: bad shared memory", m->pid);
		goto fail;
	}
	ctl = mmap(NULL, SHM_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (ctl == MAP_FAILED)
		goto fail;
	a = calloc(1, sizeof(*a));
	if (!a) {
		munmap(ctl, SHM_CTL_SIZE);
		goto fail;
	}
	a->id = ++sd.next_app_id;
	a->pid = (pid_t)m->pid;
	a->uid = cr.uid;
	a->sock = fd;
	a->signo = (int)m->signo;
	a->clock = m->clock;
	a->starttime = m->starttime;
	memcpy(a->procname, m->procname, sizeof(a->procname) - 1);
	for (size_t i = 0; a->procname[i]; i++)
		if (a->procname[i] == '/' || (unsigned char)a->procname[i] < 32)
			a->procname[i] = '_';
	if (!a->procname[0])
		strcpy(a->procname, "unknown");
	a->ctl = ctl;
	a->ctl_fd = fds[0];
	a->proc_fd = fds[1];
	a->efd = fds[2];
	a->ctl->magic = SHM_CTL_MAGIC;
	a->ctl->version = SHM_VERSION;
	a->ctl->hdr_size = SHM_CTL_HDR;
	a->ctl->size = SHM_CTL_SIZE;
	a->ctl->max_events = SHM_MAX_EVENTS;
	a->next = sd.apps;
	sd.apps = a;
	app_consumer_add(a);
	log_info("registered %s[%d]", a->procname, (int)a->pid);
	app_update(a, 1);
	return 0;
fail:
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	return -EPROTO;
}

/*
 * Enable masks of app @a into @out (a->nev entries), and for each channel
 * slot and event the number of its filter into @filt, the filters' code
 * into @fl (numbered from 1 in the order met; the same enabler, one
 * number). An event whose filter does not fit is recorded unfiltered.
 */
static void app_masks(const struct app *a, uint8_t *out, uint8_t filt[][SHM_MAX_EVENTS],
		      struct shm_ctl_filters *fl)
{
	const struct enabler *seen[SHM_MAX_FILTERS];

	memset(fl, 0, sizeof(*fl));
	for (uint32_t id = 0; id < a->nev; id++) {
		const struct enabler *f[SHM_MAX_CHAN];

		out[id] = a->ev[id].known ? (uint8_t)(session_mask(a->ev[id].desc.name,
								   a->ev[id].desc.loglevel, f) &
						      allow_chan_mask(a->uid)) : 0;
		for (unsigned int c = 0; c < SHM_MAX_CHAN; c++) {
			uint32_t n;

			filt[c][id] = 0;
			if (!(out[id] & (1u << c)) || !f[c])
				continue;
			for (n = 0; n < fl->nfilters && seen[n] != f[c]; n++)
				;
			if (n == fl->nfilters) {
				if (n == SHM_MAX_FILTERS ||
				    f[c]->code_len > sizeof(fl->code) - fl->used)
					continue;
				seen[n] = f[c];
				fl->f[n].off = fl->used;
				fl->f[n].len = f[c]->code_len;
				memcpy(fl->code + fl->used, f[c]->code, f[c]->code_len);
				fl->used += f[c]->code_len;
				fl->nfilters++;
			}
			filt[c][id] = (uint8_t)(n + 1);
		}
	}
}

void app_update(struct app *a, int ring)
{
	static uint8_t masks[SHM_MAX_EVENTS], filt[SHM_MAX_CHAN][SHM_MAX_EVENTS];
	static struct shm_ctl_filters fl;
	struct shm_ctl_page *c = a->ctl;
	uint64_t g = __atomic_load_n(&c->generation, __ATOMIC_RELAXED);
	unsigned int allowed = allow_chan_mask(a->uid);
	int changed = 0;

	app_masks(a, masks, filt, &fl);
	g = (g + 1) | 1;			/* odd: being written */
	__atomic_store_n(&c->generation, g, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		const struct channel *ch = sd.chan[i];
		struct shm_ctl_chan *cc = &c->chan[i];

		if (!ch || !(allowed & (1u << i))) {
			memset(cc, 0, sizeof(*cc));
			continue;
		}
		cc->subbuf_size = ch->subbuf_size;
		cc->num_subbuf = ch->num_subbuf;
		cc->pool_size = ch->pool_size;
		cc->mode = ch->mode;
		cc->context = ch->context;
		__atomic_store_n(&cc->chan_id, ch->id, __ATOMIC_RELAXED);
	}
	for (uint32_t id = 0; id < a->nev; id++) {
		if (c->enabled[id] != masks[id]) {
			changed |= masks[id] & ~c->enabled[id];
			__atomic_store_n(&c->enabled[id], masks[id], __ATOMIC_RELAXED);
		}
		for (unsigned int k = 0; k < SHM_MAX_CHAN; k++)
			c->filt[k][id] = filt[k][id];
	}
	memcpy(&c->filters, &fl, sizeof(fl));
	__atomic_store_n(&c->generation, g + 1, __ATOMIC_RELEASE);
	if (ring && changed && a->signo && proc_catches(a->pid, a->signo) == 1)
		kill(a->pid, a->signo);
}

void apps_update_all(void)
{
	for (struct app *a = sd.apps; a; a = a->next)
		app_update(a, 1);
}

static int app_events(struct app *a, const char *body, size_t len)
{
	const struct msg_events *m = (const void *)body;
	struct msg_events fwd;
	struct proto_event ev;
	size_t pos = sizeof(*m);
	uint32_t n = 0;
	int ret;

	while ((ret = proto_event_decode(body, len, &pos, &ev)) == 1) {
		if (ev.id >= SHM_MAX_EVENTS)
			return -EPROTO;
		if (ev.id >= a->nev) {
			struct app_event *nv = realloc(a->ev, (ev.id + 1) * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			memset(nv + a->nev, 0, (ev.id + 1 - a->nev) * sizeof(*nv));
			a->ev = nv;
			a->nev = ev.id + 1;
		}
		if (a->ev[ev.id].known)
			return -EPROTO;		/* ids are never reused */
		a->ev[ev.id].desc = ev;
		a->ev[ev.id].known = 1;
		n++;
	}
	if (ret < 0 || n != m->count)
		return -EPROTO;
	/* the consumer must know the events before they can be enabled */
	memcpy(&fwd, m, sizeof(fwd));
	fwd.app_id = a->id;
	consumer_callv(MSG_C_EVENTS, &fwd, sizeof(fwd), body + sizeof(*m), len - sizeof(*m),
		       NULL, 0, NULL, 0);
	app_update(a, 1);
	return 0;
}

static int app_segment(struct app *a, const struct msg_segment *m, int fd)
{
	const struct channel *ch = m->chan_slot < SHM_MAX_CHAN ? sd.chan[m->chan_slot] : NULL;
	struct msg_segment fwd = *m;
	struct app_seg *ns;
	uint64_t slot_size;

	if (!shm_geometry_ok(m->subbuf_size, m->num_subbuf) || m->nslots == 0 ||
	    m->nslots > SHM_MAX_SLOTS || m->first_slot > SHM_MAX_SLOTS - m->nslots ||
	    m->seg_index >= SHM_MAX_SEGMENTS || (m->context & ~SHMTRACE__CTX_ALL))
		goto bad;
	slot_size = shm_slot_hdr_size(m->num_subbuf) + (uint64_t)m->subbuf_size * m->num_subbuf;
	if (m->size != SHM_PAGE + slot_size * m->nslots || memfd_check(fd, m->size) < 0)
		goto bad;
	if (!ch || ch->id != m->chan_id || !(allow_chan_mask(a->uid) & (1u << m->chan_slot))) {
		close(fd);	/* a channel that is gone (or not for its uid): nothing to drain */
		return 0;
	}
	ns = realloc(a->segs, (a->nsegs + 1) * sizeof(*ns));
	if (!ns) {
		close(fd);
		return -ENOMEM;
	}
	a->segs = ns;
	fwd.app_id = a->id;
	a->segs[a->nsegs].msg = fwd;
	a->segs[a->nsegs].fd = fd;
	a->nsegs++;
	consumer_call(MSG_C_SEGMENT, &fwd, sizeof(fwd), &fd, 1, NULL, 0);
	return 0;
bad:
	log_warn("%s[%d]: malformed buffer segment refused", a->procname, (int)a->pid);
	close(fd);
	return -EPROTO;
}

/* A message from a traced process: 1 one handled, 0 none, < 0 drop the process. */
int app_message(struct app *a)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	long n = proto_recv(a->sock, buf, &h, fds, MSG_DONTWAIT);

	if (n == -EAGAIN)
		return 0;
	if (n < 0) {
		if (n != -ECONNRESET)
			log_warn("%s[%d]: malformed message, closing", a->procname, (int)a->pid);
		return (int)n;
	}
	switch (h.type) {
	case MSG_APP_EVENTS:
		if (app_events(a, (const char *)buf, (size_t)n) == 0)
			return 1;
		break;
	case MSG_APP_SYNC:
		/* everything sent before it is done: the process may go on */
		proto_send(a->sock, MSG_REPLY, 0, buf, sizeof(struct msg_sync), NULL, 0);
		return 1;
	case MSG_APP_NOTICE:
		return app_notice(a, (const char *)buf, (size_t)n) < 0 ? -EPROTO : 1;
	case MSG_APP_SEGMENT:
		return app_segment(a, (const struct msg_segment *)(void *)buf, fds[0]) == -EPROTO ?
		       -EPROTO : 1;
	default:
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		break;
	}
	log_warn("%s[%d]: bad message type %u, closing", a->procname, (int)a->pid, h.type);
	return -EPROTO;
}

/*
 * Take in everything processes sent so far, so that a command acts on
 * every buffer segment created before it arrived.
 */
void apps_poll_all(void)
{
	struct app *a = sd.apps, *next;

	for (; a; a = next) {
		int ret;

		next = a->next;
		while ((ret = app_message(a)) > 0)
			;
		if (ret < 0)
			app_remove(a);
	}
}

void app_remove(struct app *a)
{
	struct msg_c_id m = { .id = a->id };

	for (struct app **pp = &sd.apps; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	consumer_call(MSG_C_APP_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	log_info("%s[%d] is gone", a->procname, (int)a->pid);
	epoll_ctl(sd.epfd, EPOLL_CTL_DEL, a->sock, NULL);
	close(a->sock);
	munmap(a->ctl, SHM_CTL_SIZE);
	close(a->ctl_fd);
	close(a->proc_fd);
	close(a->efd);
	for (uint32_t i = 0; i < a->nsegs; i++)
		close(a->segs[i].fd);
	free(a->segs);
	free(a->ev);
	free(a);
}

/* Forget segments of a destroyed channel. */
void apps_forget_channel(uint64_t chan_id)
{
	for (struct app *a = sd.apps; a; a = a->next) {
		uint32_t j = 0;

		for (uint32_t i = 0; i < a->nsegs; i++) {
			if (a->segs[i].msg.chan_id == chan_id)
				close(a->segs[i].fd);
			else
				a->segs[j++] = a->segs[i];
		}
		a->nsegs = j;
	}
}

/* A new consumer daemon: tell it everything it must drain. */
void apps_replay(void)
{
	static char buf[PROTO_MAX_MSG];

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if (sd.chan[i])
			channel_to_consumer(sd.chan[i]);
	for (struct app *a = sd.apps; a; a = a->next) {
		struct msg_events h = { .app_id = a->id };
		size_t pos = 0;

		app_consumer_add(a);
		for (uint32_t id = 0; id <= a->nev; id++) {
			const struct proto_event *e = id < a->nev ? &a->ev[id].desc : NULL;
			uint32_t types[PROTO_MAX_FIELDS];
			const char *names[PROTO_MAX_FIELDS];
			char prov[PROTO_EVNAME_MAX], *colon;
			long n = -ENOSPC;

			if (e && a->ev[id].known) {
				for (uint32_t k = 0; k < e->nfields; k++) {
					types[k] = e->fields[k].type;
					names[k] = e->fields[k].name;
				}
				snprintf(prov, sizeof(prov), "%s", e->name);
				colon = strchr(prov, ':');
				*colon = 0;
				n = proto_event_encode(buf + pos, sizeof(buf) - 1024 - pos, id,
						       e->loglevel, prov, colon + 1, e->nfields,
						       types, names);
				if (n >= 0) {
					pos += (size_t)n;
					h.count++;
					continue;
				}
			} else if (e) {
				continue;
			}
			if (h.count)
				consumer_callv(MSG_C_EVENTS, &h, sizeof(h), buf, pos, NULL, 0, NULL, 0);
			h.count = 0;
			pos = 0;
			if (e)
				id--;	/* retry in an empty buffer */
		}
		for (uint32_t i = 0; i < a->nsegs; i++)
			consumer_call(MSG_C_SEGMENT, &a->segs[i].msg, sizeof(a->segs[i].msg),
				      &a->segs[i].fd, 1, NULL, 0);
	}
}

/*
 * At start-up: ring the processes that left a marker while no daemon ran,
 * if they are still the same process (start time) and catch the signal.
 */
void apps_ring_markers(void)
{
	char dir[1100], path[1400], text[128];
	struct dirent *de;
	DIR *d;

	if (home_path(dir, sizeof(dir), sd.home, HOME_APPS) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)) != NULL) {
		unsigned long long start = 0, now = 0;
		int signo = 0;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_small(path, text, sizeof(text)) < 0 ||
		    sscanf(text, "%d %llu", &signo, &start) != 2 ||
		    proc_starttime((pid_t)pid, (uint64_t *)&now) < 0 || now != start) {
			unlink(path);
			continue;
		}
		if (signo >= SIGRTMIN && signo <= SIGRTMAX && proc_catches((pid_t)pid, signo) == 1)
			kill((pid_t)pid, signo);
	}
	closedir(d);
}
