/* SPDX-License-Identifier: MIT */
/*
 * app.c - the registry of traced processes and their control pages.
 *
 * A process registers with one message carrying its control page, process
 * page and wake socket. The daemon checks the sender's credentials against
 * the message, the memfds' seals and sizes, maps the control page
 * read-write and becomes its only writer. Event descriptions and buffer
 * segments follow as further messages; they are validated here and
 * forwarded to the consumer, which acknowledges each, before anything
 * enables the events. Descriptors kept per process: its socket, its pidfd,
 * and what a new consumer must be given again (process page, wake socket,
 * buffer and aggregation segments); the control page's is closed once
 * mapped (its inode identifies it).
 *
 * Control page update (app_update): make the generation odd, write the
 * channel table and the enable masks, make it even (release), then ring the
 * doorbell if a mask changed (app_ring: see shm.h for the handshake with a
 * program that takes the signal; only while the process catches it, has
 * no instance pending and a thread that does not block it, by its pidfd,
 * so a pid reused by another program is never signalled).
 *
 * A connection that closes while its process still runs and still maps
 * its control page was closed by the program (closefrom, a loop over every
 * descriptor), not by an exit or an exec: the process is detached, not
 * removed. Its buffers stay with the consumer, which goes on writing its
 * trace; its pidfd tells when it exits. The daemon bumps its control
 * generation and rings it, and the process registers again: the same pid,
 * start time and image (`instance`) continue the same trace, with whatever
 * pages and wake socket it had to recreate. Event descriptions and segments
 * it sends again are recognised and not forwarded twice.
 *
 * Registries (see sessiond.h for the RCU rules): from its registration to
 * app_remove() an app is on sd.apps and in sd.by_pid (hashed by pid:
 * app_same() finds its image there at registration, the marker sweep its
 * pid); in sd.by_sock exactly while its socket is open (sock >= 0); in
 * sd.by_pidfd while it has a pidfd. A lookup costs the same whatever the
 * number of processes; only commands and a new consumer's replay visit
 * every app.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sessiond.h"
#include "home.h"
#include "lfht.h"
#include "log.h"
#include "tsc.h"
#include "util.h"

/* A process image: what app_same() looks for. */
struct app_image {
	pid_t pid;
	uid_t uid;
	uint64_t starttime;
	uint64_t instance;
};

static int match_sock(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct app, by_sock)->sock == *(const int *)key;
}

static int match_pidfd(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct app, by_pidfd)->pidfd == *(const int *)key;
}

static int match_pid(struct cds_lfht_node *n, const void *key)
{
	return caa_container_of(n, struct app, by_pid)->pid == *(const pid_t *)key;
}

static int match_image(struct cds_lfht_node *n, const void *key)
{
	const struct app *a = caa_container_of(n, struct app, by_pid);
	const struct app_image *im = key;

	return a->pid == im->pid && a->starttime == im->starttime &&
	       a->instance == im->instance && a->uid == im->uid;
}

/* The first node of @ht that @match finds for @key, of hash @hash. */
static struct cds_lfht_node *table_find(struct cds_lfht *ht, unsigned long hash,
					cds_lfht_match_fct match, const void *key)
{
	struct cds_lfht_node *n;

	urcu_memb_read_lock();
	n = lfht_find(ht, hash, match, key);
	urcu_memb_read_unlock();
	return n;
}

static void table_add(struct cds_lfht *ht, unsigned long hash, struct cds_lfht_node *n)
{
	urcu_memb_read_lock();
	cds_lfht_add(ht, hash, n);
	urcu_memb_read_unlock();
}

static void table_del(struct cds_lfht *ht, struct cds_lfht_node *n)
{
	urcu_memb_read_lock();
	cds_lfht_del(ht, n);
	urcu_memb_read_unlock();
}

struct app *app_by_sock(int fd)
{
	struct cds_lfht_node *n = table_find(sd.by_sock, hash_id((uint64_t)fd), match_sock, &fd);

	return n ? caa_container_of(n, struct app, by_sock) : NULL;
}

struct app *app_by_pidfd(int fd)
{
	struct cds_lfht_node *n = table_find(sd.by_pidfd, hash_id((uint64_t)fd), match_pidfd,
					     &fd);
	struct app *a = n ? caa_container_of(n, struct app, by_pidfd) : NULL;

	return a && a->detached ? a : NULL;
}

/* An app of process @pid (any of its images), if we know one. */
static struct app *app_by_pid(pid_t pid)
{
	struct cds_lfht_node *n = table_find(sd.by_pid, hash_id((uint64_t)pid), match_pid, &pid);

	return n ? caa_container_of(n, struct app, by_pid) : NULL;
}

/* @fd is @a's socket from now on (its caller watches it); @a had none. */
static void app_set_sock(struct app *a, int fd)
{
	if (a->sock_gp) {
		/* by_sock left the table: reused only after a grace period */
		urcu_memb_synchronize_rcu();
		a->sock_gp = 0;
	}
	a->sock = fd;
	table_add(sd.by_sock, hash_id((uint64_t)fd), &a->by_sock);
}

/* Stop watching @a's socket and close it. */
static void app_drop_sock(struct app *a)
{
	if (a->sock < 0)
		return;
	table_del(sd.by_sock, &a->by_sock);
	a->sock_gp = 1;
	epoll_ctl(sd.epfd, EPOLL_CTL_DEL, a->sock, NULL);
	close(a->sock);
	a->sock = -1;
}

int apps_init(void)
{
	urcu_memb_register_thread();
	sd.by_sock = lfht_new(64);
	sd.by_pidfd = lfht_new(64);
	sd.by_pid = lfht_new(64);
	if (sd.by_sock && sd.by_pidfd && sd.by_pid)
		return 0;
	apps_fini();
	return -ENOMEM;
}

/* After the last app_remove(): its memory freed, the tables destroyed. */
void apps_fini(void)
{
	struct cds_lfht **t[] = { &sd.by_sock, &sd.by_pidfd, &sd.by_pid };

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		if (lfht_destroy(*t[i]) < 0)	/* after every call_rcu() */
			log_warn("an app table is not empty at exit");
		*t[i] = NULL;
	}
	urcu_memb_unregister_thread();
}

static int same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static int app_consumer_add(struct app *a)
{
	struct msg_c_app m = { .app_id = a->id, .pid = (uint32_t)a->pid, .clock = a->clock,
			       .starttime = a->starttime, .instance = a->instance,
			       .uid = (uint32_t)a->uid, .signo = (uint32_t)a->signo };
	int fds[3] = { a->proc_fd, a->efd, a->ctl_fd };

	memcpy(m.procname, a->procname, sizeof(m.procname));
	return consumer_call(MSG_C_APP_ADD, &m, sizeof(m), fds, 3, NULL, 0);
}

/* May @pid be sent @signo? (proc_ring_check(), once more after fds_exhausted()) */
static int app_may_ring(pid_t pid, int signo)
{
	int ret = proc_ring_check(pid, signo);

	if (ret == -EMFILE || ret == -ENFILE) {
		fds_exhausted();	/* its reserve lets us look */
		ret = proc_ring_check(pid, signo);
	}
	return ret;
}

/*
 * Ring @a's doorbell. ringing brackets the check and the signal, so that a
 * program changing the signal's action, blocking it or waiting for it
 * (doorbell_off, its side of the handshake in shm.h) either stops us here
 * or waits for us. Sent only while /proc says that the process catches
 * it, has no instance of it pending already (the one pending applies the
 * page as it is when handled: never more than one) and has a thread that
 * does not block it (else it would stay pending for sigwait() or a
 * signalfd of a program that changed its mask behind the library's back).
 */
static void app_ring(struct app *a)
{
	if (!a->signo)
		return;
	__atomic_store_n(&a->ctl->ringing, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&a->proc->doorbell_off, __ATOMIC_SEQ_CST)) {
		int may = app_may_ring(a->pid, a->signo);

		if (may == PROC_RING_SEND) {
			if (a->pidfd >= 0)
				pidfd_send_signal(a->pidfd, a->signo, NULL, 0);
			else
				kill(a->pid, a->signo);
		} else if (may == PROC_RING_UNCAUGHT && !(a->bell_lost & APP_BELL_LOST)) {
			a->bell_lost |= APP_BELL_LOST;
			log_warn("%s[%d] no longer catches signal %d (changed without the C "
				 "library): it sees control changes only at its next enabled event",
				 a->procname, (int)a->pid, a->signo);
		} else if (may == PROC_RING_BLOCKED && !(a->bell_lost & APP_BELL_BLOCKED)) {
			a->bell_lost |= APP_BELL_BLOCKED;
			log_info("%s[%d] blocks signal %d in every thread (changed without the C "
				 "library, or waiting with a temporary mask): not rung while it does",
				 a->procname, (int)a->pid, a->signo);
		}
	}
	__atomic_store_n(&a->ctl->ringing, 0, __ATOMIC_RELEASE);
}

/* A new generation of @a's control page, its contents unchanged: its threads read it again. */
static void app_touch(struct app *a)
{
	uint64_t g = __atomic_load_n(&a->ctl->generation, __ATOMIC_RELAXED);

	g = (g + 1) | 1;
	__atomic_store_n(&a->ctl->generation, g, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&a->ctl->generation, g + 1, __ATOMIC_RELEASE);
}

/*
 * Map @ctl_fd as @a's control page (read-write, we write it) and
 * @proc_fd as its process page (read-only); both descriptors are kept
 * for a new consumer, which keeps them for a session daemon that takes it
 * over, and the control page's inode to know it again.
 */
static int app_map(struct app *a, int ctl_fd, int proc_fd)
{
	struct shm_ctl_page *ctl;
	struct stat st;
	void *proc;

	if (fstat(ctl_fd, &st) < 0)
		return -errno;
	ctl = mmap(NULL, SHM_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, ctl_fd, 0);
	if (ctl == MAP_FAILED)
		return -ENOMEM;
	proc = mmap(NULL, SHM_PROC_SIZE, PROT_READ, MAP_SHARED, proc_fd, 0);
	if (proc == MAP_FAILED) {
		munmap(ctl, SHM_CTL_SIZE);
		return -ENOMEM;
	}
	if (a->ctl) {
		munmap(a->ctl, SHM_CTL_SIZE);
		close(a->ctl_fd);
	}
	a->ctl_fd = ctl_fd;
	if (a->proc) {
		munmap((void *)a->proc, SHM_PROC_SIZE);
		close(a->proc_fd);
	}
	a->ctl = ctl;
	a->ctl_dev = st.st_dev;
	a->ctl_ino = st.st_ino;
	a->proc = proc;
	a->proc_fd = proc_fd;
	ctl->magic = SHM_CTL_MAGIC;
	ctl->version = SHM_VERSION;
	ctl->hdr_size = SHM_CTL_HDR;
	ctl->size = SHM_CTL_SIZE;
	ctl->max_events = SHM_MAX_EVENTS;
	ctl->ringing = 0;
	return 0;
}

static void app_unwatch(struct app *a)
{
	if (a->pidfd >= 0 && a->detached)
		epoll_ctl(sd.epfd, EPOLL_CTL_DEL, a->pidfd, NULL);
	a->detached = 0;
}

/* The process of @a registers again on socket @fd: its trace goes on. */
static int app_continue(struct app *a, int fd, const struct msg_app_register *m, const int *fds)
{
	struct stat st;

	if (a->sock >= 0) {
		/* what it sent before it lost that connection comes first */
		while (app_message(a) > 0)
			;
		app_drop_sock(a);
	}
	app_unwatch(a);
	a->signo = (int)m->signo;
	a->bell_lost = 0;
	if (fstat(fds[0], &st) == 0 && st.st_dev == a->ctl_dev && st.st_ino == a->ctl_ino &&
	    same_file(fds[1], a->proc_fd)) {
		close(fds[0]);
		close(fds[1]);
	} else if (app_map(a, fds[0], fds[1]) < 0) {
		close(fds[0]);
		close(fds[1]);
		close(fds[2]);
		app_remove(a);	/* the caller closes @fd */
		return -ENOMEM;
	}
	app_set_sock(a, fd);
	close(a->efd);
	a->efd = fds[2];
	a->reattached++;
	app_consumer_add(a);	/* the same app id: a new page and wake socket */
	log_warn("%s[%d] registered again after losing its connection (%u): its trace goes on",
		 a->procname, (int)a->pid, a->reattached);
	app_update(a, 1);
	return 0;
}

/* The app of the same process image, if we know it. */
static struct app *app_same(const struct msg_app_register *m, uid_t uid)
{
	struct app_image im = { .pid = (pid_t)m->pid, .uid = uid, .starttime = m->starttime,
				.instance = m->instance };
	struct cds_lfht_node *n = table_find(sd.by_pid, hash_id((uint64_t)im.pid), match_image,
					     &im);

	return n ? caa_container_of(n, struct app, by_pid) : NULL;
}

/* Is @fd a datagram socket, as a process's wake socket must be? */
static int wake_socket_ok(int fd)
{
	socklen_t tlen = sizeof(int);
	struct stat st;
	int type = 0;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && type == SOCK_DGRAM;
}

/* @a's name, from what the process said: no '/' nor control character. */
static void app_name(struct app *a, const char *procname)
{
	memcpy(a->procname, procname, sizeof(a->procname) - 1);
	for (size_t i = 0; a->procname[i]; i++)
		if (a->procname[i] == '/' || (unsigned char)a->procname[i] < 32)
			a->procname[i] = '_';
	if (!a->procname[0])
		strcpy(a->procname, "unknown");
}

/* A new @a on sd.apps, and in the tables by pid and pidfd. */
static void app_link(struct app *a)
{
	a->next = sd.apps;
	if (sd.apps)
		sd.apps->pprev = &a->next;
	a->pprev = &sd.apps;
	sd.apps = a;
	if (a->pidfd >= 0)
		table_add(sd.by_pidfd, hash_id((uint64_t)a->pidfd), &a->by_pidfd);
	table_add(sd.by_pid, hash_id((uint64_t)a->pid), &a->by_pid);
}

int app_accept(int fd, const void *body, size_t len, const int *fds)
{
	const struct msg_app_register *m = body;
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	struct app *a = NULL, *old;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0 || (uint32_t)cr.pid != m->pid ||
	    m->abi != SHMTRACE_ABI_VERSION || m->max_events != SHM_MAX_EVENTS ||
	    m->max_chan != SHM_MAX_CHAN || m->clock > CLOCK_KIND_TSC || (m->signo && (m->signo < (uint32_t)SIGRTMIN ||
						       m->signo > (uint32_t)SIGRTMAX))) {
		log_warn("registration refused: inconsistent message from pid %d", (int)cr.pid);
		goto fail;
	}
	if (memfd_check(fds[0], SHM_CTL_SIZE) < 0 || memfd_check(fds[1], SHM_PROC_SIZE) < 0 ||
	    !wake_socket_ok(fds[2])) {
		log_warn("registration refused: pid %u: bad shared memory or wake socket", m->pid);
		goto fail;
	}
	old = app_same(m, cr.uid);
	if (old)
		return app_continue(old, fd, m, fds) == 0 ? 0 : -EPROTO;
	if (fds_refuse((pid_t)m->pid))
		goto fail;
	a = calloc(1, sizeof(*a));
	if (!a || app_map(a, fds[0], fds[1]) < 0) {
		free(a);
		goto fail;
	}
	a->id = ++sd.next_app_id;
	a->pid = (pid_t)m->pid;
	a->uid = cr.uid;
	a->signo = (int)m->signo;
	a->clock = m->clock;
	a->starttime = m->starttime;
	a->instance = m->instance;
	a->pidfd = pidfd_open(a->pid, 0);
	app_name(a, m->procname);
	a->efd = fds[2];
	a->sock = -1;
	app_link(a);
	app_set_sock(a, fd);
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
 * A process that the consumer we took over (consumer.c) still drains:
 * @m says who, @fds are its process page, wake socket and control page.
 * It is ours again, detached (no connection yet: it registers with us when
 * rung, at its next event or doorbell, and continues its trace, app_same());
 * until its events are known again its control page is left as the daemon
 * before us wrote it (`blind`). A process already gone is seen by its
 * pidfd in the loop, and removed as any detached one.
 */
int app_adopt(const struct msg_c_app *m, const int *fds)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct app *a = NULL;

	if (!m->pid || m->pid > PROTO_PID_MAX || m->clock > CLOCK_KIND_TSC ||
	    (m->signo && (m->signo < (uint32_t)SIGRTMIN || m->signo > (uint32_t)SIGRTMAX)) ||
	    memfd_check(fds[2], SHM_CTL_SIZE) < 0 || memfd_check(fds[0], SHM_PROC_SIZE) < 0 ||
	    !wake_socket_ok(fds[1]) || app_by_pid((pid_t)m->pid))
		goto fail;
	a = calloc(1, sizeof(*a));
	if (!a || app_map(a, fds[2], fds[0]) < 0)
		goto fail;
	a->id = m->app_id;
	a->pid = (pid_t)m->pid;
	a->uid = m->uid;
	a->signo = (int)m->signo;
	a->clock = m->clock;
	a->starttime = m->starttime;
	a->instance = m->instance;
	app_name(a, m->procname);
	a->efd = fds[1];
	a->sock = -1;
	a->blind = 1;
	a->detached = 1;
	a->pidfd = pidfd_open(a->pid, 0);
	app_link(a);
	if (a->pidfd >= 0) {
		ev.data.fd = a->pidfd;
		epoll_ctl(sd.epfd, EPOLL_CTL_ADD, a->pidfd, &ev);
	}
	log_info("%s[%d] taken over with the consumer", a->procname, (int)a->pid);
	return 0;
fail:
	free(a);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	log_warn("a process of the consumer taken over refused: pid %u", m->pid);
	return -EINVAL;
}

void apps_adopted(void)
{
	struct app *a, *next;

	for (a = sd.apps; a; a = next) {
		next = a->next;
		if (a->pidfd < 0 || !proc_live(a->pid, a->starttime)) {
			app_remove(a);	/* the consumer drains what it committed */
			continue;
		}
		/* a new generation, the same contents: its threads look, find our
		 * connection gone and register again */
		app_touch(a);
		app_ring(a);
	}
}

unsigned int ctl_filter_add(struct shm_ctl_filters *fl, const struct enabler *e)
{
	if (fl->nfilters == SHM_MAX_FILTERS || e->code_len > sizeof(fl->code) - fl->used)
		return 0;
	fl->f[fl->nfilters].off = fl->used;
	fl->f[fl->nfilters].len = e->code_len;
	memcpy(fl->code + fl->used, e->code, e->code_len);
	fl->used += e->code_len;
	return ++fl->nfilters;
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
				if (!ctl_filter_add(fl, f[c]))
					continue;
				seen[n] = f[c];
			}
			filt[c][id] = (uint8_t)(n + 1);
		}
	}
}

/* The channel slots @a's control page should hold. */
static void app_chans(const struct app *a, struct shm_ctl_chan *out)
{
	unsigned int allowed = allow_chan_mask(a->uid);

	memset(out, 0, SHM_MAX_CHAN * sizeof(*out));
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		const struct channel *ch = sd.chan[i];

		if (!ch || !(allowed & (1u << i)))
			continue;
		out[i].subbuf_size = ch->subbuf_size;
		out[i].num_subbuf = ch->num_subbuf;
		out[i].pool_size = ch->pool_size;
		out[i].mode = ch->mode;
		out[i].context = ch->context;
		out[i].chan_id = ch->id;
	}
}

/*
 * Write @a's control page. Nothing is written, and the generation stays,
 * when the page already says all of it (its threads then have nothing to
 * read again: a control change of another process or of a session that
 * does not concern it costs it nothing), unless @ring is 0: a new
 * generation regardless, the caller rings. With @ring, the doorbell rings
 * when an event becomes enabled or aggregated.
 */
void app_update(struct app *a, int ring)
{
	static uint8_t masks[SHM_MAX_EVENTS], filt[SHM_MAX_CHAN][SHM_MAX_EVENTS];
	static uint8_t aggen[SHM_MAX_EVENTS];
	static struct shm_ctl_agg slots[SHM_MAX_AGG];
	static struct shm_ctl_chan chans[SHM_MAX_CHAN];
	static struct shm_ctl_filters fl;
	struct shm_ctl_page *c = a->ctl;
	uint64_t g = __atomic_load_n(&c->generation, __ATOMIC_RELAXED);
	int changed = 0, same;

	if (a->blind) {
		/* taken over: what we would write without its events could
		 * number its filters wrongly; the page stays as it was */
		if (!ring)
			app_touch(a);
		return;
	}
	app_chans(a, chans);
	app_masks(a, masks, filt, &fl);
	aggs_masks(a, slots, aggen, &fl);
	same = !(g & 1) && !memcmp(c->chan, chans, sizeof(chans)) &&
	       !memcmp(c->agg, slots, sizeof(slots)) && !memcmp(&c->filters, &fl, sizeof(fl)) &&
	       !memcmp(c->enabled, masks, a->nev) && !memcmp(c->aggen, aggen, a->nev);
	for (unsigned int k = 0; same && k < SHM_MAX_CHAN; k++)
		same = !memcmp(c->filt[k], filt[k], a->nev);
	if (same && ring)
		return;
	g = (g + 1) | 1;			/* odd: being written */
	__atomic_store_n(&c->generation, g, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		struct shm_ctl_chan *cc = &c->chan[i];

		/* chan_id alone is read outside the generation (writer.c): a whole store */
		memcpy(&cc->subbuf_size, &chans[i].subbuf_size,
		       sizeof(*cc) - offsetof(struct shm_ctl_chan, subbuf_size));
		__atomic_store_n(&cc->chan_id, chans[i].chan_id, __ATOMIC_RELAXED);
	}
	for (uint32_t id = 0; id < a->nev; id++) {
		if (c->enabled[id] != masks[id]) {
			changed |= masks[id] & ~c->enabled[id];
			__atomic_store_n(&c->enabled[id], masks[id], __ATOMIC_RELAXED);
		}
		for (unsigned int k = 0; k < SHM_MAX_CHAN; k++)
			c->filt[k][id] = filt[k][id];
		/* an aggregation's events: a doorbell, so that they take it now */
		changed |= aggen[id] & ~c->aggen[id];
		c->aggen[id] = aggen[id];
	}
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		if (c->agg[i].agg_id != slots[i].agg_id && slots[i].agg_id)
			changed = 1;
		memcpy(&c->agg[i], &slots[i], sizeof(slots[i]));
	}
	memcpy(&c->filters, &fl, sizeof(fl));
	__atomic_store_n(&c->generation, g + 1, __ATOMIC_RELEASE);
	if (ring && changed)
		app_ring(a);
}

void apps_update_all(void)
{
	for (struct app *a = sd.apps; a; a = a->next)
		app_update(a, 1);
}

static int event_same(const struct proto_event *x, const struct proto_event *y)
{
	if (x->loglevel != y->loglevel || x->nfields != y->nfields || strcmp(x->name, y->name))
		return 0;
	for (uint32_t i = 0; i < x->nfields; i++)
		if (x->fields[i].type != y->fields[i].type ||
		    strcmp(x->fields[i].name, y->fields[i].name))
			return 0;
	return 1;
}

/*
 * Taken over: do we know every event its control page enables or
 * aggregates (as the daemon before us wrote it)? Then what we write
 * numbers its filters as it should.
 */
static int app_knows_page(const struct app *a)
{
	for (uint32_t id = 0; id < SHM_MAX_EVENTS; id++)
		if ((a->ctl->enabled[id] || a->ctl->aggen[id]) &&
		    (id >= a->nev || !a->ev[id].known))
			return 0;
	return 1;
}

static int app_events(struct app *a, const char *body, size_t len)
{
	const struct msg_events *m = (const void *)body;
	struct msg_events fwd;
	struct proto_event ev;
	size_t pos = sizeof(*m);
	uint32_t n = 0, known = 0;
	int ret;

	while ((ret = proto_event_decode(body, len, &pos, &ev)) == 1) {
		if (ev.id >= SHM_MAX_EVENTS)
			return -EPROTO;
		if (array_grow(&a->ev, &a->nev, ev.id + 1, sizeof(*a->ev)) < 0)
			return -ENOMEM;
		n++;
		if (a->ev[ev.id].known) {
			/* sent again after a new registration: the same, or a lie */
			if (!event_same(&a->ev[ev.id].desc, &ev))
				return -EPROTO;	/* ids are never reused */
			known++;
			continue;
		}
		a->ev[ev.id].desc = ev;
		a->ev[ev.id].known = 1;
	}
	if (ret < 0 || n != m->count)
		return -EPROTO;
	if (a->blind && app_knows_page(a)) {
		a->blind = 0;	/* its page is ours again */
		app_update(a, 1);
	}
	if (known == n)
		return 0;
	/* the consumer must know the events before they can be enabled (it
	 * skips those it has, like a daemon's replay) */
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
	for (uint32_t i = 0; i < a->nsegs; i++) {
		if (a->segs[i].msg.chan_id == m->chan_id &&
		    a->segs[i].msg.seg_index == m->seg_index) {
			/* described again after a new registration */
			int same = same_file(fd, a->segs[i].fd);

			close(fd);
			return same ? 0 : -EPROTO;
		}
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
	if (n == -EMFILE) {
		fds_exhausted();
		log_warn("%s[%d]: a message lost (its descriptors are beyond the descriptor limit), "
			 "closing", a->procname, (int)a->pid);
		return (int)n;
	}
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
	case MSG_APP_AGG_SEG:
		return app_agg_seg(a, (const struct msg_agg_seg *)(void *)buf, fds[0]) == -EPROTO ?
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
 * The messages @a sent, a bounded batch of them (the loop comes back for
 * the rest: one chatty process does not starve the others); its closed
 * connection handled.
 */
void app_messages(struct app *a)
{
	int ret = 1;

	for (int i = 0; i < 64 && ret > 0; i++)
		ret = app_message(a);
	if (ret < 0)
		app_closed(a);
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
		if (a->sock < 0)
			continue;
		while ((ret = app_message(a)) > 0)
			;
		if (ret < 0)
			app_closed(a);
	}
}

/*
 * The markers $SHMTRACE_HOME/apps/<pid> that processes leave for a daemon
 * started later (libtrace/control.c): one whose process is gone, or whose
 * pid is another process now (start time), is removed; with @ring (at
 * start-up), the processes still there that catch their signal are rung.
 * The process removes its own at a normal exit; this catches crashes,
 * kills, _exit and execs into programs without the library. Called at
 * start-up and every MARKER_SWEEP_MS. The marker of a registered process
 * is passed over after a lookup (app_remove() sees to it), so a sweep
 * reads only the files of processes not registered here.
 */
void apps_markers(int ring)
{
	char dir[1100], path[1400], text[128];
	struct dirent *de;
	DIR *d;

	if (home_path(dir, sizeof(dir), sd.home, HOME_APPS) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d)) != NULL) {
		unsigned long long start = 0;
		int signo = 0;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		/* a registered process is alive (its socket or pidfd says when
		 * not), and app_remove() sees to its marker */
		if (app_by_pid((pid_t)pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_small(path, text, sizeof(text)) < 0 ||
		    sscanf(text, "%d %llu", &signo, &start) != 2 || !proc_live((pid_t)pid, start)) {
			unlink(path);
			continue;
		}
		if (ring && signo >= SIGRTMIN && signo <= SIGRTMAX &&
		    app_may_ring((pid_t)pid, signo) == PROC_RING_SEND)
			kill((pid_t)pid, signo);
	}
	closedir(d);
}

/* @a is gone: its marker too, unless its pid already is another process's. */
static void app_forget_marker(const struct app *a)
{
	char path[1400], text[128];
	unsigned long long start = 0;
	int signo;

	if (snprintf(path, sizeof(path), "%s/%s/%d", sd.home, HOME_APPS, (int)a->pid) >=
	    (int)sizeof(path) || read_small(path, text, sizeof(text)) < 0 ||
	    sscanf(text, "%d %llu", &signo, &start) != 2 || start != a->starttime)
		return;
	if (!proc_live(a->pid, a->starttime))
		unlink(path);
}

/* Does process @a still map its control page? (not after an exec) */
static int app_maps_ctl(const struct app *a)
{
	char path[64], line[1024];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)a->pid);
	f = fopen(path, "re");
	if (!f && (errno == EMFILE || errno == ENFILE)) {
		fds_exhausted();
		f = fopen(path, "re");
	}
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long ino = 0;
		unsigned int maj, min;

		/* address perms offset dev inode path */
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3 &&
		    ino == (unsigned long long)a->ctl_ino && strstr(line, "shmtrace-ctl"))
			found = 1;
	}
	fclose(f);
	return found;
}

/*
 * @a's connection closed. Gone, exec'd: remove it. Still running with our
 * pages (the program closed the connection): detach it and watch its
 * pidfd; it registers again when we ring it or at its next event.
 */
void app_closed(struct app *a)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = a->pidfd };
	uint64_t start = 0;

	if (a->pidfd < 0 || proc_starttime(a->pid, &start) < 0 || start != a->starttime ||
	    !app_maps_ctl(a) || epoll_ctl(sd.epfd, EPOLL_CTL_ADD, a->pidfd, &ev) < 0) {
		app_remove(a);
		return;
	}
	app_drop_sock(a);
	a->detached = 1;
	log_warn("%s[%d] closed its connection while running (it closed our descriptors): "
		 "its trace goes on; asking it to register again", a->procname, (int)a->pid);
	app_update(a, 0);	/* a new generation: its next event looks */
	app_ring(a);
}

static void app_free(struct rcu_head *head)
{
	free(caa_container_of(head, struct app, rcu));
}

/* What a gone process held: released, its memory freed after a grace period. */
static void app_release(struct app *a)
{
	munmap((void *)a->proc, SHM_PROC_SIZE);
	close(a->proc_fd);
	close(a->ctl_fd);
	close(a->efd);
	for (uint32_t i = 0; i < a->nsegs; i++)
		close(a->segs[i].fd);
	free(a->segs);
	for (uint32_t i = 0; i < a->naggsegs; i++)
		close(a->aggsegs[i].fd);
	free(a->aggsegs);
	free(a->ev);
	urcu_memb_call_rcu(&a->rcu, app_free);	/* the tables' nodes are in it */
}

/* Tell the consumer that @a is gone: it drains and closes its traces. 0, -EPIPE. */
static int app_consumer_del(const struct app *a)
{
	struct msg_c_id m = { .id = a->id };

	return consumer_call(MSG_C_APP_DEL, &m, sizeof(m), NULL, 0, NULL, 0) == -EPIPE ?
	       -EPIPE : 0;
}

/*
 * @a's process is gone (or exec'd). The consumer drains what it committed
 * and closes its traces; with no consumer to hear it (one died and the
 * next is not started yet), @a waits in sd.gone, its buffers still held,
 * for the next consumer, which is given it like a live process and told
 * at once that it is gone (apps_replay()): nothing it committed is lost.
 */
void app_remove(struct app *a)
{
	*a->pprev = a->next;
	if (a->next)
		a->next->pprev = a->pprev;
	app_drop_sock(a);
	table_del(sd.by_pid, &a->by_pid);
	app_unwatch(a);
	if (a->pidfd >= 0) {
		table_del(sd.by_pidfd, &a->by_pidfd);
		close(a->pidfd);
		a->pidfd = -1;
	}
	log_info("%s[%d] is gone", a->procname, (int)a->pid);
	app_forget_marker(a);
	munmap(a->ctl, SHM_CTL_SIZE);
	a->ctl = NULL;
	if (app_consumer_del(a) < 0) {
		a->next = sd.gone;
		sd.gone = a;
		return;
	}
	app_release(a);
}

/* Forget @a's segments of a destroyed channel. */
static void app_forget_channel(struct app *a, uint64_t chan_id)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < a->nsegs; i++) {
		if (a->segs[i].msg.chan_id == chan_id)
			close(a->segs[i].fd);
		else
			a->segs[j++] = a->segs[i];
	}
	a->nsegs = j;
}

/* ... of every process, those gone too (they are replayed to a new consumer). */
void apps_forget_channel(uint64_t chan_id)
{
	for (struct app *a = sd.apps; a; a = a->next)
		app_forget_channel(a, chan_id);
	for (struct app *a = sd.gone; a; a = a->next)
		app_forget_channel(a, chan_id);
}

static void app_replay(struct app *a);

/* A new consumer daemon: tell it everything it must drain. */
void apps_replay(void)
{
	netout_replay();
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if (sd.chan[i] && netout_ok(sd.chan[i]->session))
			channel_to_consumer(sd.chan[i]);
	aggs_replay();
	for (struct app *a = sd.apps; a; a = a->next)
		app_replay(a);
	while (sd.gone) {
		struct app *a = sd.gone;

		app_replay(a);
		if (app_consumer_del(a) < 0)
			return;	/* that one died too: the next is told */
		sd.gone = a->next;
		app_release(a);
	}
}

/* Gone processes that no consumer was told of yet (apps_replay()). */
void apps_gone_fini(void)
{
	while (sd.gone) {
		struct app *a = sd.gone;

		sd.gone = a->next;
		log_warn("%s[%d]: its last buffers were never drained (no consumer)",
			 a->procname, (int)a->pid);
		app_release(a);
	}
}

/* Give a new consumer process @a: itself, its events, its segments. */
static void app_replay(struct app *a)
{
	static char buf[PROTO_MAX_MSG];
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
	app_aggs_replay(a);
}


/* Events committed in the slots of segment @sg not consumed yet (at most). */
static uint64_t seg_pending(const struct app_seg *sg, uint64_t *bufs)
{
	const struct msg_segment *m = &sg->msg;
	uint64_t slot_size = shm_slot_hdr_size(m->num_subbuf) +
			     (uint64_t)m->subbuf_size * m->num_subbuf, n = 0;
	char *base = mmap(NULL, m->size, PROT_READ, MAP_SHARED, sg->fd, 0);

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

uint64_t apps_pending(uint64_t chan_id, uint64_t *bufs)
{
	const struct app *lists[2] = { sd.apps, sd.gone };
	uint64_t n = 0;

	*bufs = 0;
	for (int l = 0; l < 2; l++)
		for (const struct app *a = lists[l]; a; a = a->next)
			for (uint32_t i = 0; i < a->nsegs; i++)
				if (a->segs[i].msg.chan_id == chan_id)
					n += seg_pending(&a->segs[i], bufs);
	return n;
}
