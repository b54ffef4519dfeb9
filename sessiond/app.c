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
 * Its control page is written by ctlpage.c (ctl_update(), the doorbell),
 * its segments kept by seg.c.
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
 * State, this file's: from its registration to app_remove() an app is on
 * the list of apps and in the table by pid (htab.c: app_same() finds its
 * image there at registration, the marker sweep its pid); its socket is
 * registered in the loop with the app as its data exactly while it is
 * open (sock >= 0), its pidfd while it is detached: a message or an exit
 * finds its app in one index of the loop's table, whatever the number of
 * processes, and an app removed is freed at once (loop.c guarantees that
 * no event still queued for its descriptors reaches a handler). Only
 * commands and a new consumer's replay visit every app. An app gone while
 * no consumer ran waits on the list `gone` for the next consumer. The
 * application socket (processes of other uids, allow.c) is this file's
 * too, open exactly while a session allows another uid. A crash leaves
 * the processes to the consumer, which a daemon after us takes over with
 * them (app_adopt()).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "app.h"
#include "allow.h"
#include "client.h"
#include "consumer.h"
#include "ctlpage.h"
#include "firing.h"
#include "fdlimit.h"
#include "common/home.h"
#include "loop.h"
#include "notice.h"
#include "seg.h"
#include "support/log.h"
#include "common/tsc.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "support/protomsg.h"

/* A process image: what app_same() looks for. */
struct app_image {
	pid_t pid;
	uid_t uid;
	uint64_t starttime;
	uint64_t instance;
};

static const char *a_home;
static struct app *apps;		/* every app, newest first */
static struct app *gone;		/* gone while no consumer ran (app_remove()) */
static struct htab by_pid;		/* apps by pid (and image) */
static uint64_t next_app_id;
static int app_listen_fd = -1;		/* the application socket, -1 when closed */

static void app_on_sock(int fd, void *data);
static void app_on_pidfd(int fd, void *data);
static void app_closed(struct app *a);
static int app_message(struct app *a);

struct app *apps_list(void)
{
	return apps;
}

/* An app of process @pid (any of its images), if we know one. */
static struct app *app_by_pid(pid_t pid)
{
	uint64_t h = hash_id((uint64_t)pid);

	for (struct hnode *n = htab_first(&by_pid, h); n; n = htab_next(n)) {
		struct app *a = htab_entry(n, struct app, by_pid);

		if (a->pid == pid)
			return a;
	}
	return NULL;
}

/* @fd is @a's socket from now on, watched; @a had none. */
static void app_set_sock(struct app *a, int fd)
{
	a->sock = fd;
	ev_add(fd, app_on_sock, a);
}

/* Stop watching @a's socket and close it. */
static void app_drop_sock(struct app *a)
{
	if (a->sock < 0)
		return;
	ev_del(a->sock);
	close(a->sock);
	a->sock = -1;
}

int apps_init(const char *home)
{
	a_home = home;
	return htab_init(&by_pid, 64);
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
	int fds[3] = { a->proc_fd, a->wake_fd, a->ctl_fd };

	memcpy(m.procname, a->procname, sizeof(m.procname));
	return consumer_call(MSG_C_APP_ADD, &m, sizeof(m), fds, 3, NULL, 0);
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
	firings_attach(a);
	return 0;
}

static void app_unwatch(struct app *a)
{
	if (a->pidfd >= 0 && a->detached)
		ev_del(a->pidfd);
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
	close(a->wake_fd);
	a->wake_fd = fds[2];
	a->reattached++;
	app_consumer_add(a);	/* the same app id: a new page and wake socket */
	log_warn("%s[%d] registered again after losing its connection (%u): its trace goes on",
		 a->procname, (int)a->pid, a->reattached);
	ctl_update(a, 1);
	return 0;
}

/* The app of the same process image, if we know it. */
static struct app *app_same(const struct msg_app_register *m, uid_t uid)
{
	uint64_t h = hash_id(m->pid);

	for (struct hnode *n = htab_first(&by_pid, h); n; n = htab_next(n)) {
		struct app *a = htab_entry(n, struct app, by_pid);

		if (a->pid == (pid_t)m->pid && a->starttime == m->starttime &&
		    a->instance == m->instance && a->uid == uid)
			return a;
	}
	return NULL;
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

/* @a's executable, as /proc says now (the image that registers): "" when unknown. */
static void app_exe(struct app *a)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)a->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	a->exe = strdup(exe);
}

/* A new @a on the list, and in the table by pid. */
static void app_link(struct app *a)
{
	a->next = apps;
	if (apps)
		apps->pprev = &a->next;
	a->pprev = &apps;
	apps = a;
	htab_add(&by_pid, &a->by_pid, hash_id((uint64_t)a->pid));
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
	a->id = ++next_app_id;
	a->pid = (pid_t)m->pid;
	a->uid = cr.uid;
	a->signo = (int)m->signo;
	a->clock = m->clock;
	a->starttime = m->starttime;
	a->instance = m->instance;
	a->pidfd = pidfd_open(a->pid, 0);
	app_name(a, m->procname);
	app_exe(a);
	a->wake_fd = fds[2];
	a->sock = -1;
	app_link(a);
	app_set_sock(a, fd);
	app_consumer_add(a);
	log_info("registered %s[%d]", a->procname, (int)a->pid);
	ctl_update(a, 1);
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
	app_exe(a);
	a->wake_fd = fds[1];
	a->sock = -1;
	a->blind = 1;
	a->detached = 1;
	a->pidfd = pidfd_open(a->pid, 0);
	app_link(a);
	if (a->pidfd >= 0)
		ev_add(a->pidfd, app_on_pidfd, a);
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

	for (a = apps; a; a = next) {
		next = a->next;
		if (a->pidfd < 0 || !proc_live(a->pid, a->starttime)) {
			app_remove(a);	/* the consumer drains what it committed */
			continue;
		}
		/* a new generation, the same contents: its threads look, find our
		 * connection gone and register again */
		ctl_touch(a);
		ctl_ring(a);
	}
}

void apps_ids_after(uint64_t max)
{
	if (max > next_app_id)
		next_app_id = max;
}

void apps_update_all(void)
{
	for (struct app *a = apps; a; a = a->next)
		ctl_update(a, 1);
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
		ctl_update(a, 1);
	}
	if (known == n)
		return 0;
	/* the consumer must know the events before they can be enabled (it
	 * skips those it has, like a daemon's replay) */
	memcpy(&fwd, m, sizeof(fwd));
	fwd.app_id = a->id;
	consumer_callv(MSG_C_EVENTS, &fwd, sizeof(fwd), body + sizeof(*m), len - sizeof(*m),
		       NULL, 0, NULL, 0);
	ctl_update(a, 1);
	return 0;
}

/* A message from a traced process: 1 one handled, 0 none, < 0 drop the process. */
static int app_message(struct app *a)
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
	case MSG_APP_TRIGGER:
		firings_take(a);	/* acted on by trigger.c, from the loop */
		return 1;
	case MSG_APP_SEGMENT:
	case MSG_APP_AGG_SEG: {
		struct seg_from from = { .app_id = a->id, .uid = a->uid, .pid = a->pid,
					 .procname = a->procname };

		return seg_take(&a->segs, &from, (enum seg_kind)seg_kind_of(h.type), buf,
				fds[0]) == -EPROTO ? -EPROTO : 1;
	}
	default:
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		break;
	}
	log_warn("%s[%d]: bad message type %u, closing", a->procname, (int)a->pid, h.type);
	return -EPROTO;
}

/*
 * The messages @a sent (its socket readable), a bounded batch of them (the loop comes back for
 * the rest: one chatty process does not starve the others); its closed
 * connection handled.
 */
static void app_on_sock(int fd, void *data)
{
	struct app *a = data;
	int ret = 1;

	(void)fd;
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
	struct app *a = apps, *next;

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

void apps_firings(void)
{
	for (struct app *a = apps; a; a = a->next)
		firings_take(a);
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

	if (home_path(dir, sizeof(dir), a_home, HOME_APPS) < 0 || !(d = opendir(dir)))
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
		    ctl_may_ring((pid_t)pid, signo) == PROC_RING_SEND)
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

	if (snprintf(path, sizeof(path), "%s/%s/%d", a_home, HOME_APPS, (int)a->pid) >=
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
static void app_closed(struct app *a)
{
	uint64_t start = 0;

	if (a->pidfd < 0 || proc_starttime(a->pid, &start) < 0 || start != a->starttime ||
	    !app_maps_ctl(a) || ev_add(a->pidfd, app_on_pidfd, a) < 0) {
		app_remove(a);
		return;
	}
	app_drop_sock(a);
	a->detached = 1;
	log_warn("%s[%d] closed its connection while running (it closed our descriptors): "
		 "its trace goes on; asking it to register again", a->procname, (int)a->pid);
	ctl_update(a, 0);	/* a new generation: its next event looks */
	ctl_ring(a);
}

/* A detached process exited (its pidfd readable). */
static void app_on_pidfd(int fd, void *data)
{
	(void)fd;
	app_remove(data);
}

/* What a gone process held: released, its memory freed. */
static void app_release(struct app *a)
{
	munmap((void *)a->proc, SHM_PROC_SIZE);
	close(a->proc_fd);
	close(a->ctl_fd);
	close(a->wake_fd);
	segs_release(&a->segs);
	free(a->ev);
	free(a->exe);
	free(a);
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
 * next is not started yet), @a waits in `gone`, its buffers still held,
 * for the next consumer, which is given it like a live process and told
 * at once that it is gone (apps_replay()): nothing it committed is lost.
 * Its descriptors leave the loop first: no event of them is dispatched
 * any more, whatever its batch.
 */
void app_remove(struct app *a)
{
	*a->pprev = a->next;
	if (a->next)
		a->next->pprev = a->pprev;
	app_drop_sock(a);
	htab_del(&by_pid, &a->by_pid);
	app_unwatch(a);
	if (a->pidfd >= 0) {
		close(a->pidfd);
		a->pidfd = -1;
	}
	log_info("%s[%d] is gone", a->procname, (int)a->pid);
	app_forget_marker(a);
	firings_last(a);	/* what it fired last is acted on now: its buffers are there */
	munmap(a->ctl, SHM_CTL_SIZE);
	a->ctl = NULL;
	if (app_consumer_del(a) < 0) {
		a->next = gone;
		gone = a;
		return;
	}
	app_release(a);
}

void apps_forget_segs(enum seg_kind kind, uint64_t owner)
{
	for (struct app *a = apps; a; a = a->next)
		segs_forget(&a->segs, kind, owner);
	for (struct app *a = gone; a; a = a->next)
		segs_forget(&a->segs, kind, owner);
}

static void app_replay(struct app *a);

int apps_replay(void)
{
	for (struct app *a = apps; a; a = a->next)
		app_replay(a);
	while (gone) {
		struct app *a = gone;

		app_replay(a);
		if (app_consumer_del(a) < 0)
			return -EPIPE;	/* that one died too: the next is told */
		gone = a->next;
		app_release(a);
	}
	return 0;
}

void apps_fini(void)
{
	while (apps)
		app_remove(apps);
	/* gone processes that no consumer was told of (apps_replay()) */
	while (gone) {
		struct app *a = gone;

		gone = a->next;
		log_warn("%s[%d]: its last buffers were never drained (no consumer)",
			 a->procname, (int)a->pid);
		app_release(a);
	}
	if (htab_fini(&by_pid) < 0)
		log_warn("the table of processes is not empty at exit");
	app_socket_update();
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
	segs_replay(&a->segs);
}


uint64_t apps_pending(uint64_t chan_id, uint64_t *bufs)
{
	const struct app *lists[2] = { apps, gone };
	uint64_t n = 0;

	*bufs = 0;
	for (int l = 0; l < 2; l++)
		for (const struct app *a = lists[l]; a; a = a->next)
			n += segs_pending(&a->segs, chan_id, bufs);
	return n;
}

/* ---- the application socket (allow.c) ------------------------------------- */

/* The first message on the application socket: a registration, nothing else. */
static void app_socket_first(int fd)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	uid_t uid;
	long n;

	client_peer_ours(fd, &uid);
	n = proto_recv(fd, buf, &h, fds, MSG_DONTWAIT);
	if (n == -EMFILE)
		fds_exhausted();
	if (n < 0) {
		log_warn("application socket: %s first message (%s)",
			 n == -EMFILE ? "lost" : "malformed", strerror((int)-n));
		close(fd);
		return;
	}
	if (h.type != MSG_APP_REGISTER) {
		log_warn("application socket: message type %u from uid %u refused: only traced "
			 "processes register here", h.type, (unsigned int)uid);
		reply_refuse(fd, -EPERM, RE_REGISTER_ONLY);
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		close(fd);
		return;
	}
	if (app_accept(fd, buf, (size_t)n, fds) < 0)
		close(fd);
}

/*
 * A connection on the application socket: a traced process of an allowed
 * uid, checked before anything is read; its first message is awaited in
 * the loop (client.c).
 */
static void app_socket_conn(int lfd, void *data)
{
	int fd = fds_accept(lfd);
	uid_t uid;

	(void)data;
	if (fd < 0)
		return;
	client_peer_ours(fd, &uid);
	if (uid == (uid_t)-1 || !allow_any(uid)) {
		log_warn("application socket: uid %u refused, no session allows it",
			 (unsigned int)uid);
		close(fd);
		return;
	}
	client_pend(fd, app_socket_first);
}

int app_socket_open(void)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, ret;

	if (app_listen_fd >= 0)
		return 0;
	home_app_addr(a_home, &sa, &len);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, SOMAXCONN) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = ev_add(fd, app_socket_conn, NULL);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	app_listen_fd = fd;
	log_info("application socket open: processes of other uids may register");
	return 0;
}

void app_socket_update(void)
{
	if (app_listen_fd < 0 || allow_others())
		return;
	ev_del(app_listen_fd);
	close(app_listen_fd);
	app_listen_fd = -1;
	log_info("application socket closed");
}
