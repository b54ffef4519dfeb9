/* SPDX-License-Identifier: MIT */
/*
 * control.c - start-up, registration with the session daemon, the
 * SIGRTMIN+3 doorbell and fork.
 *
 * Registration never waits to be accepted: the socket is non-blocking, the
 * process creates its control page, process page and wake socket itself
 * and sends them with SCM_RIGHTS in one message. Only the start-up and a
 * module's events registering wait for the daemon's answer to a sync, at
 * most lib.sync_ms, and for a daemon that did not answer in time not again
 * until it did (lib_sync_locked()). The process writes a marker
 * `$SHMTRACE_HOME/apps/<pid>` (doorbell signal and start time) while its
 * doorbell is armed, so that a daemon started later can ring it; the
 * doorbell handler then registers. The registration names the doorbell
 * signal while our handler is on it; the process page's doorbell_off says
 * whether it may be sent (doorbell.c).
 *
 * Control page: the session daemon is its only writer (our mapping is
 * read-only). shmtrace__ctl_gen points at its generation; threads compare
 * it with the generation they applied at each enabled event, so nothing
 * depends on the signal arriving except turning on events that are
 * disabled everywhere in the process.
 *
 * The doorbell (doorbell.c) applies the control page and registers again
 * when needed, if it can take the lock without waiting; otherwise the lock
 * holder does it on unlock.
 *
 * Descriptors: every one is ours only while ownfd.c says so. A program
 * that closed them (closefrom, a loop, dup2 onto them) loses us nothing we
 * cannot rebuild: the mappings stay, so the next registration creates
 * what was lost (a control or process page is recreated as a copy of the
 * one still mapped, the old mapping left in place for threads that still
 * read it), and the session daemon, which still holds every page and
 * segment of ours, recognises the same process image (pid, start time and
 * `instance`) and continues its trace instead of starting another. The
 * daemon, which sees our connection close while we live, rings the
 * doorbell and bumps our control generation, so that the doorbell handler
 * or the next thread to resynchronise (shmtrace__resync()) registers.
 *
 * A killed daemon: what we sent it last may have died unread with it (a
 * registration, a segment). A send that finds our connection gone
 * registers again when the lock is let go (lib_send_fd()): a thread that
 * needs a buffer asks again every few dozen events, so the next daemon
 * learns of us as soon as it listens, rung or not. A process so
 * disconnected, with buffers or counted losses, whose connection the
 * daemon never answered (a sync follows every registration) waits for
 * an answer, registering again, before a module's events are forgotten
 * and at exit (lib_heard_locked()), so that what it committed is drained
 * and described; one that was answered is the consumer's already.
 *
 * fork: the child drops every buffer of the parent without touching it
 * (the segments are MADV_DONTFORK, hence not even mapped in the child),
 * closes the copies of our descriptors that are still ours (never a number
 * the program reused), forgets the parent's registration and registers as
 * a new process, with a control page that starts as a copy of its
 * parent's: it records what its parent recorded from its first event, into
 * buffers of its own. Its doorbell is armed when its forking thread's mask
 * leaves the signal unblocked (bell_after_fork()), and its events are
 * polled or not accordingly once its control page exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib.h"
#include "common/home.h"
#include "common/proto.h"
#include "common/tsc.h"
#include "common/util.h"

struct lib_state lib = {
	.sock = LIB_FD_NONE, .ctl_fd = LIB_FD_NONE, .proc_fd = LIB_FD_NONE,
	.wake = LIB_FD_NONE, .wake_peer = LIB_FD_NONE,
};

static const volatile uint64_t lib_no_gen;
SHMTRACE_API const volatile uint64_t *shmtrace__ctl_gen = &lib_no_gen;
SHMTRACE_API int shmtrace__clock_tsc;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* Diagnostics: only with SHMTRACE_DEBUG, only write(2). */
void lib_dbg(const char *msg, long val)
{
	char buf[160];
	int n;

	if (!lib.debug)
		return;
	n = snprintf(buf, sizeof(buf), "libshmtrace[%d]: %s (%ld)\n", (int)getpid(), msg, val);
	if (n > 0)
		(void)!write(2, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

int lib_trylock(void)
{
	/* nesting first: a handler landing after the exchange must see it */
	shmtrace__tls.nesting++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&lib.lock, 1, __ATOMIC_ACQUIRE)) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		shmtrace__tls.nesting--;
		return 0;
	}
	return 1;
}

void lib_lock(void)
{
	while (!lib_trylock())
		sched_yield();
}

void lib_unlock(void)
{
	for (;;) {
		unsigned int p = __atomic_exchange_n(&lib.pending, 0, __ATOMIC_ACQ_REL);

		if (p & LIB_PENDING_REGISTER)
			lib_register_locked(0);
		if (p & LIB_PENDING_TRIGGER)
			trig_wake_locked();
		__atomic_store_n(&lib.lock, 0, __ATOMIC_RELEASE);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		shmtrace__tls.nesting--;
		/* work left by a doorbell after our last look: do it, or leave it
		 * to whoever holds the lock now */
		if (!__atomic_load_n(&lib.pending, __ATOMIC_ACQUIRE) || !lib_trylock())
			return;
	}
}

void lib_wake_consumer(void)
{
	const struct shm_proc_page *proc = __atomic_load_n(&lib.proc, __ATOMIC_ACQUIRE);
	int fd;

	if (!proc)
		return;
	/*
	 * Dekker, the writer's side; the consumer's is app_sleep()
	 * (consumerd/wake.c). Our caller has just published a packet: a
	 * release store of the slot's `closed` (rb_close()). This barrier
	 * orders that store before our load of consumer_sleeping. Release
	 * orders it only before our later stores: the load could still be
	 * done first, the store waiting in the store buffer (even on x86), so
	 * it takes a full barrier. The consumer mirrors it: store of
	 * consumer_sleeping = 1, full barrier, loads of every slot's `closed`.
	 * Both barriers are in one total order, so one side sees the other's
	 * store: the consumer sees our packet before it sleeps, or we see its
	 * flag and send the datagram. Without this one, we could read the old
	 * flag, 0, while the consumer reads the old `closed`: no datagram, and
	 * the packet waits in the ring until we publish another or the
	 * channel's next flush interval.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&proc->consumer_sleeping, __ATOMIC_RELAXED))
		return;
	fd = ownfd_get(&lib.wake);
	if (fd >= 0)
		(void)!send(fd, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	else
		lib_register_soon();	/* the program closed it: a new one */
}

int lib_memfd(const char *name, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int lib_attached(void);

/*
 * Send a descriptor of ours to the session daemon. When our connection is
 * gone (the daemon was killed: what we sent last may have died with it
 * unread), we register again once the lock is let go, which describes
 * every segment again: the next daemon, as soon as one listens, learns
 * of what we write, without waiting to ring us. Lock held.
 */
int lib_send_fd(unsigned int type, const void *body, size_t len, struct lib_fd *f)
{
	int sock = ownfd_get(&lib.sock), fd = ownfd_get(f);

	if (fd < 0)
		return -EBADF;	/* the program closed it: the daemon that has it keeps it */
	if (sock >= 0 && proto_send(sock, type, 0, body, len, &fd, 1) == 0)
		return 0;
	if (!lib_attached())
		__atomic_or_fetch(&lib.pending, LIB_PENDING_REGISTER, __ATOMIC_RELEASE);
	return -EPIPE;
}

/*
 * A new control page starts as a copy of the one it replaces: the parent's
 * in a forked child, or ours when the program closed its descriptor, so
 * that nothing recorded stops until the session daemon rewrites it.
 */
static struct shm_ctl_page lib_ctl_copy;
static int lib_has_copy;

/* Copy @ctl between two equal even generations into lib_ctl_copy. */
static void lib_copy_control(const struct shm_ctl_page *ctl)
{
	lib_has_copy = 0;
	for (int tries = 0; ctl && tries < 16; tries++) {
		uint64_t g = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);

		if (g & 1)
			continue;
		memcpy(&lib_ctl_copy, ctl, sizeof(lib_ctl_copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) == g) {
			lib_ctl_copy.ringing = 0;
			lib_has_copy = 1;
			break;
		}
	}
}

/* A control page of our own, replacing the one mapped (left mapped). */
static int lib_new_control(void)
{
	struct lib_fd f;
	void *p;

	if (lib.ctl)
		lib_copy_control(lib.ctl);
	if (ownfd_take(&f, lib_memfd("shmtrace-ctl", SHM_CTL_SIZE)) < 0)
		return -ENOMEM;
	if (lib_has_copy &&
	    pwrite(f.fd, &lib_ctl_copy, SHM_CTL_SIZE, 0) != (ssize_t)SHM_CTL_SIZE)
		lib_dbg("cannot copy the control page", errno);
	if (!lib_has_copy && lib.ctl) {
		/* an empty page, at a generation after the old one's: nothing
		 * a thread cached at an old generation (the aggregation event
		 * cache, aggr.c) can hold at one of the new page */
		uint64_t g = (__atomic_load_n(&lib.ctl->generation, __ATOMIC_RELAXED) + 2) &
			     ~(uint64_t)1;

		if (pwrite(f.fd, &g, sizeof(g), offsetof(struct shm_ctl_page, generation)) !=
		    (ssize_t)sizeof(g))
			lib_dbg("cannot carry the control generation", errno);
	}
	lib_has_copy = 0;
	p = mmap(NULL, SHM_CTL_SIZE, PROT_READ, MAP_SHARED, f.fd, 0);
	if (p == MAP_FAILED) {
		ownfd_close(&f);
		return -ENOMEM;
	}
	lib.ctl_fd = f;
	__atomic_store_n(&lib.ctl, (struct shm_ctl_page *)p, __ATOMIC_RELEASE);
	__atomic_store_n(&shmtrace__ctl_gen, &lib.ctl->generation, __ATOMIC_RELEASE);
	return 0;
}

/* A process page of our own, replacing the one mapped (left mapped). */
static int lib_new_proc(void)
{
	struct shm_proc_page *p, *old = lib.proc;
	uint64_t copied[SHM_MAX_CHAN] = { 0 };
	struct lib_fd f;

	if (ownfd_take(&f, lib_memfd("shmtrace-proc", SHM_PROC_SIZE)) < 0)
		return -ENOMEM;
	p = mmap(NULL, SHM_PROC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f.fd, 0);
	if (p == MAP_FAILED) {
		ownfd_close(&f);
		return -ENOMEM;
	}
	madvise(p, SHM_PROC_SIZE, MADV_DONTFORK);
	p->magic = SHM_PROC_MAGIC;
	p->version = SHM_VERSION;
	p->hdr_size = SHM_PROC_SIZE;
	p->size = SHM_PROC_SIZE;
	p->pid = (uint32_t)lib.pid;
	/* the consumer continues our counts where the old page left them; a
	 * new process image's page counts from zero for the consumer that
	 * takes it, starting with what a forked child dropped before its
	 * handler ran */
	for (unsigned int c = 0; old && c < SHM_MAX_CHAN; c++)
		p->lost_nobuf[c] = copied[c] = __atomic_load_n(&old->lost_nobuf[c],
								__ATOMIC_RELAXED);
	if (!old) {
		p->nobuf_fresh = 1;
		for (unsigned int c = 0; c < SHM_MAX_CHAN; c++) {
			p->lost_nobuf[c] = lib.fork_lost[c];
			lib.fork_lost[c] = 0;
		}
	}
	lib.proc_fd = f;
	bell_new_proc(p);	/* lib.proc, and its doorbell_off under the doorbell's lock */
	/* and what threads still counted in the old page meanwhile */
	for (unsigned int c = 0; old && c < SHM_MAX_CHAN; c++)
		__atomic_fetch_add(&p->lost_nobuf[c],
				   __atomic_load_n(&old->lost_nobuf[c], __ATOMIC_RELAXED) -
				   copied[c], __ATOMIC_RELAXED);
	return 0;
}

/* The socket pair that wakes the consumer: we send, it receives. */
static int lib_new_wake(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return -errno;
	if (ownfd_take(&lib.wake_peer, sv[1]) < 0) {
		close(sv[0]);
		return -EBADF;
	}
	if (ownfd_take(&lib.wake, sv[0]) < 0) {
		ownfd_close(&lib.wake_peer);
		return -EBADF;
	}
	return 0;
}

/*
 * The shared objects of this process: created at the first registration,
 * and again whichever the program closed since. Lock held.
 */
static int lib_objects(void)
{
	if ((!lib.ctl || ownfd_get(&lib.ctl_fd) < 0) && lib_new_control() < 0)
		goto fail;
	if ((!lib.proc || ownfd_get(&lib.proc_fd) < 0) && lib_new_proc() < 0)
		goto fail;
	if (ownfd_get(&lib.wake) < 0 || ownfd_get(&lib.wake_peer) < 0) {
		ownfd_close(&lib.wake);
		ownfd_close(&lib.wake_peer);
		if (lib_new_wake() < 0)
			goto fail;
	}
	return 0;
fail:
	lib_dbg("cannot create shared objects", errno);
	return -ENOMEM;
}

/* Has our process page counted events lost for want of a buffer? */
static int lib_counted_lost(void)
{
	const struct shm_proc_page *p = __atomic_load_n(&lib.proc, __ATOMIC_ACQUIRE);

	for (unsigned int c = 0; p && c < SHM_MAX_CHAN; c++)
		if (__atomic_load_n(&p->lost_nobuf[c], __ATOMIC_RELAXED))
			return 1;
	return 0;
}

/* Is our socket to the daemon still ours and connected? */
static int lib_sock_alive(void)
{
	struct pollfd pfd = { .fd = ownfd_get(&lib.sock), .events = 0 };

	if (pfd.fd < 0)
		return 0;
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
		return 0;
	return 1;
}

/* Connected, and able to wake the consumer? */
static int lib_attached(void)
{
	return lib_sock_alive() && ownfd_ok(&lib.wake);
}

/*
 * Register again when our connection or our wake socket is gone (the
 * program closed it, or the daemon restarted): now when the lock is free,
 * else by its holder when it lets go. Async-signal-safe.
 */
void lib_register_soon(void)
{
	if (lib_attached())
		return;
	if (lib_trylock()) {
		lib_register_locked(0);
		lib_unlock();
	} else {
		__atomic_or_fetch(&lib.pending, LIB_PENDING_REGISTER, __ATOMIC_RELEASE);
	}
}

/*
 * Syncs (MSG_APP_SYNC): the session daemon answers each once it handled
 * every message sent before it. lib_sync_locked() waits for the answer at
 * most lib.sync_ms; when none came in time, the process is late (lib.late)
 * and waits no more, not at the next module's events nor at a dlopen,
 * until the daemon answered once: the one sync left unanswered
 * (sync_waiting) is looked for, without waiting, by every later sync, by
 * the doorbell, by a thread that resynchronises and by lib_late_check().
 * With SHMTRACE_DEBUG, events enabled nowhere are polled meanwhile
 * (registry.c) and counted (lib_late_event()), and the count is said when
 * the daemon answers, or at exit when it never did: events the sessions
 * could not record, since no daemon had enabled them yet.
 */
static uint64_t sync_seq;		/* the last sync sent (lock held) */
static uint64_t sync_waiting;		/* a sync on this socket not answered in time */
static int sync_heard;			/* the daemon answered a sync on this socket */

/* Send a sync on @fd: its sequence number, 0 when it could not be sent. */
static uint64_t lib_sync_send(int fd)
{
	struct msg_sync m = { .seq = ++sync_seq };

	return proto_send(fd, MSG_APP_SYNC, 0, &m, sizeof(m), NULL, 0) < 0 ? 0 : m.seq;
}

/*
 * Take the replies waiting on @fd, waiting for them until @deadline (0:
 * not at all): 1 once the reply to @seq came, 2 when only others did, 0
 * when none. Lock held.
 */
static int lib_sync_replies(int fd, uint64_t seq, uint64_t deadline)
{
	int got = 0;
	union {
		uint64_t align;
		char buf[64];
	} r;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		struct proto_hdr h;
		struct msg_sync m;
		ssize_t n;

		if (deadline) {
			int ready;

			if (now >= deadline)
				break;
			/* the doorbell (the daemon enabling the very events this
			 * waits for) interrupts the wait: not an answer */
			ready = poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1);
			if (ready < 0 && errno == EINTR)
				continue;
			if (ready <= 0)
				break;
		}
		n = recv(fd, r.buf, sizeof(r.buf), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		memcpy(&h, r.buf, sizeof(h));
		if ((size_t)n != sizeof(h) + sizeof(m) || h.magic != PROTO_MAGIC ||
		    h.type != MSG_REPLY)
			continue;
		memcpy(&m, r.buf + sizeof(h), sizeof(m));
		sync_heard = 1;	/* it took in all we sent before that sync */
		if (m.seq == seq)
			return 1;
		got = 2;
	}
	return got;
}

/* The session daemon answered after all. Lock held. */
static void lib_late_over(void)
{
	sync_waiting = 0;
	__atomic_store_n(&lib.late, 0, __ATOMIC_SEQ_CST);
	lib_dbg("events emitted before the session daemon answered, not recorded",
		(long)__atomic_exchange_n(&lib.late_events, 0, __ATOMIC_RELAXED));
	reg_apply();	/* the debugging poll stops */
}

/* Late: has the daemon answered since? Lock held. */
static int lib_late_answered(int fd)
{
	if (!__atomic_load_n(&lib.late, __ATOMIC_SEQ_CST))
		return 1;
	if (fd >= 0 && lib_sync_replies(fd, sync_waiting, 0)) {
		lib_late_over();
		return 1;
	}
	if (fd >= 0 && !sync_waiting)	/* a new connection: something to answer */
		sync_waiting = lib_sync_send(fd);
	return 0;
}

void lib_late_check(void)
{
	if (!__atomic_load_n(&lib.late, __ATOMIC_RELAXED) || !lib_trylock())
		return;
	lib_late_answered(ownfd_get(&lib.sock));
	lib_unlock();
}

void lib_late_event(void)
{
	/* now and then, whether the daemon answered (it may not enable
	 * anything, so no doorbell and no new generation need come) */
	if (!(__atomic_add_fetch(&lib.late_events, 1, __ATOMIC_RELAXED) & 4095))
		lib_late_check();
}

/*
 * Wait, at most lib.sync_ms, until the session daemon has handled every
 * message sent so far (its control page then enables our events), so that
 * the first events of a program, or of a library just loaded, are not
 * missed. With no daemon there is no socket and no wait; a late process
 * does not wait (above). Lock held.
 */
void lib_sync_locked(void)
{
	int fd = ownfd_get(&lib.sock);
	uint64_t seq;

	if (fd < 0 || lib.sync_ms <= 0)
		return;
	if (!lib_late_answered(fd))
		goto out;
	seq = lib_sync_send(fd);
	if (seq && lib_sync_replies(fd, seq, now_ns(CLOCK_MONOTONIC) +
				    (uint64_t)lib.sync_ms * 1000000u) != 1) {
		sync_waiting = seq;
		__atomic_store_n(&lib.late, 1, __ATOMIC_SEQ_CST);
		lib_dbg("the session daemon did not answer in time (ms): events it enables "
			"are recorded once it does, none before; no more waiting for it", lib.sync_ms);
	}
out:
	reg_apply();
}

/*
 * Register with the session daemon if one runs: our pages and wake socket
 * (recreated when the program closed them), then every event and buffer
 * segment we have. A daemon that knows this process image already (we
 * lost our connection to it) continues its trace. Lock held.
 * Async-signal-safe when !@may_wait.
 */
int lib_register_locked(int may_wait)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct msg_app_register m;
	struct lib_fd sock;
	int fds[3], ret;

	if (lib_attached())
		return 0;
	ownfd_close(&lib.sock);	/* a new connection carries the new objects */
	if (!lib.home[0] || home_path(sa.sun_path, sizeof(sa.sun_path), lib.home, HOME_SOCK) < 0)
		return -ENOENT;
	ret = lib_objects();
	if (ret < 0)
		return ret;
	if (ownfd_take(&sock, socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
				     0)) < 0)
		return -errno;
	if (connect(sock.fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		ownfd_close(&sock);
		/* the home is closed to our uid: a root daemon's application
		 * socket, open while a session allows other uids (home.h) */
		if (ret != -EACCES ||
		    ownfd_take(&sock, home_app_connect(lib.home, SOCK_CLOEXEC | SOCK_NONBLOCK)) < 0)
			return ret;
	}
	memset(&m, 0, sizeof(m));
	m.pid = (uint32_t)lib.pid;
	m.ppid = (uint32_t)getppid();
	m.uid = (uint32_t)getuid();
	m.signo = (uint32_t)lib.signo;	/* whether to ring it: doorbell_off */
	m.abi = SHMTRACE_ABI_VERSION;
	m.max_events = SHM_MAX_EVENTS;
	m.max_chan = SHM_MAX_CHAN;
	m.starttime = lib.starttime;
	m.instance = lib.instance;
	m.clock = shmtrace__clock_tsc ? CLOCK_KIND_TSC : CLOCK_KIND_MONOTONIC;
	prctl(PR_GET_NAME, m.procname, 0, 0, 0);
	fds[0] = lib.ctl_fd.fd;
	fds[1] = lib.proc_fd.fd;
	fds[2] = lib.wake_peer.fd;
	ret = proto_send(sock.fd, MSG_APP_REGISTER, 0, &m, sizeof(m), fds, 3);
	if (ret < 0) {
		ownfd_close(&sock);
		return ret;
	}
	lib.sock = sock;
	sync_waiting = 0;	/* the other connection's */
	sync_heard = 0;
	ret = reg_send_events(0, __atomic_load_n(&lib.next_id, __ATOMIC_ACQUIRE));
	if (ret < 0) {
		ownfd_close(&lib.sock);
		return ret;
	}
	lib_dbg("registered", lib.pid);
	pool_describe_all();
	aggr_describe_all();
	if (may_wait) {
		lib_sync_locked();
	} else if (lib_late_answered(lib.sock.fd)) {
		/* not waited for: its answer, read at need, says that the
		 * daemon took in all of the above (lib_unheard()) */
		lib_sync_send(lib.sock.fd);
	}
	return 0;
}

/*
 * Did the daemon of our connection never answer it, so that what we sent
 * may have died unread with it? The answers waiting on the socket are
 * read, even after the daemon closed it. Lock held.
 */
static int lib_unheard(void)
{
	int fd = ownfd_get(&lib.sock);

	if (fd >= 0 && !sync_heard)
		lib_sync_replies(fd, 0, 0);
	return !sync_heard;
}

/* Leave a marker so that a daemon started later can ring the doorbell. */
void lib_write_marker(void)
{
	char path[1200], num[64];
	int fd, n;

	if (!lib.home[0] || !__atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST) ||
	    home_path(path, sizeof(path), lib.home, HOME_APPS) < 0 || mkdir_p(path, 0700) < 0)
		return;
	n = snprintf(path, sizeof(path), "%s/%s/%d", lib.home, HOME_APPS, (int)lib.pid);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	/* a short-lived descriptor of ours, closed before we return */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	n = snprintf(num, sizeof(num), "%d %llu\n", lib.signo, (unsigned long long)lib.starttime);
	if (n > 0)
		(void)!write(fd, num, (size_t)n);
	close(fd);
}

void lib_remove_marker(void)
{
	char path[1200];
	int n;

	if (!lib.signo || !lib.home[0] || lib.pid != getpid())
		return;
	n = snprintf(path, sizeof(path), "%s/%s/%d", lib.home, HOME_APPS, (int)lib.pid);
	shmtrace__tls.nesting++;
	if (n > 0 && (size_t)n < sizeof(path))
		unlink(path);
	shmtrace__tls.nesting--;
}

/*
 * Before a module's events are forgotten and at exit (lib_heard_locked()),
 * a process that holds buffers or counted losses and whose registration
 * its daemon has not answered yet (a sync follows every registration; a
 * forked child's is never waited for) waits for the answer, until
 * @deadline (as at start-up, lib.sync_ms), registering again whenever
 * its connection is gone (its daemon was killed with what we sent
 * unread) and a daemon listens. Answered, everything it sent was taken
 * in: the consumer drains what it committed and reads what it counted
 * after it is gone, instead of both going with it unsaid. A daemon that
 * answered before costs nothing here. Lock held.
 */
static void lib_wait_heard(uint64_t deadline)
{
	uint64_t now;

	while (!sync_heard && (now = now_ns(CLOCK_MONOTONIC)) < deadline) {
		uint64_t slice = now + 10000000u < deadline ? now + 10000000u : deadline;

		if (!lib_attached() && lib_register_locked(0) < 0) {
			poll(NULL, 0, 10);	/* no daemon listens: look again */
			continue;
		}
		lib_sync_replies(ownfd_get(&lib.sock), sync_seq, slice);
	}
}

void lib_heard_locked(void)
{
	if (lib.pid == getpid() && lib.sync_ms > 0 && (pool_in_use() || lib_counted_lost()) &&
	    lib_unheard())
		lib_wait_heard(now_ns(CLOCK_MONOTONIC) + (uint64_t)lib.sync_ms * 1000000u);
}

/* At exit: our marker goes; what a daemon never answered is waited for
 * (the library's own events: the program's modules were forgotten
 * already, each after the same wait); a daemon that never answered is
 * said so. */
static void lib_at_exit(void)
{
	lib_remove_marker();
	if (lib_trylock()) {
		lib_heard_locked();
		lib_unlock();
	}
	lib_late_check();
	if (__atomic_load_n(&lib.late, __ATOMIC_RELAXED))
		lib_dbg("exiting before the session daemon answered: events emitted meanwhile, "
			"not recorded", (long)__atomic_load_n(&lib.late_events, __ATOMIC_RELAXED));
}

static void lib_new_instance(void)
{
	if (getrandom(&lib.instance, sizeof(lib.instance), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(lib.instance))
		lib.instance = now_ns(CLOCK_MONOTONIC) ^ ((uint64_t)lib.pid << 40) ^
			       (uint64_t)(uintptr_t)&lib;
}

/*
 * fork, from our prepare handler to our parent or child handler: events of
 * the forking thread are dropped and counted (nesting), the program's other
 * atfork handlers included, so that none is written in the child into the
 * parent's buffers before the child handler forgot them (writer.c).
 */
static void lib_before_fork(void)
{
	shmtrace__tls.nesting++;
	__atomic_add_fetch(&lib.forking, 1, __ATOMIC_SEQ_CST);
}

static void lib_after_fork_parent(void)
{
	__atomic_sub_fetch(&lib.forking, 1, __ATOMIC_SEQ_CST);
	shmtrace__tls.nesting--;
}

/*
 * A forked child that reaches no session daemon (none runs: it was
 * killed, and the next one is not started yet) records nothing of what
 * its parent's page enabled: no daemon could be given its buffers, so
 * its events would be lost, and counted in a page nobody maps. It is a
 * process started with no daemon, rung by the next one (its marker).
 * Lock held.
 */
static void lib_forget_control(void)
{
	static const uint8_t zero[4096];
	const struct shm_ctl_page *ctl = lib.ctl;
	int fd = ownfd_get(&lib.ctl_fd);
	uint64_t g;

	if (!ctl || fd < 0)
		return;
	g = (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) + 2) & ~(uint64_t)1;
	for (size_t off = offsetof(struct shm_ctl_page, chan); off < SHM_CTL_SIZE; off += sizeof(zero)) {
		size_t n = SHM_CTL_SIZE - off < sizeof(zero) ? SHM_CTL_SIZE - off : sizeof(zero);

		if (pwrite(fd, zero, n, (off_t)off) != (ssize_t)n)
			lib_dbg("cannot clear the control page", errno);
	}
	if (pwrite(fd, &g, sizeof(g), offsetof(struct shm_ctl_page, generation)) != sizeof(g))
		lib_dbg("cannot clear the control page", errno);
	lib_dbg("no session daemon: nothing inherited is recorded", lib.pid);
}

static void lib_after_fork_child(void)
{
	struct shm_ctl_page *parent = lib.ctl;

	/* no event until the parent's buffers are forgotten: our own I/O and
	 * anything a signal handler emits is dropped (not mapped here) */
	shmtrace__tls.nesting = 1;
	writer_drop_all();
	lib.pid = getpid();
	proc_starttime(lib.pid, &lib.starttime);
	lib_new_instance();
	/* our copies of the parent's descriptors, never a number reused since */
	ownfd_close(&lib.sock);
	ownfd_close(&lib.ctl_fd);
	ownfd_close(&lib.proc_fd);
	ownfd_close(&lib.wake);
	ownfd_close(&lib.wake_peer);
	/* the process page and buffers are not mapped here (MADV_DONTFORK);
	 * the parent's control page is: start from a copy of it */
	shmtrace__ctl_gen = &lib_no_gen;
	__atomic_store_n(&lib.ctl, NULL, __ATOMIC_RELEASE);
	lib.proc = NULL;
	lib_copy_control(parent);
	/* the daemon's position was in the parent's ring; ours starts empty */
	lib_ctl_copy.trig_read = 0;
	if (parent)
		munmap(parent, SHM_CTL_SIZE);
	lib.lock = 0;
	lib.pending = 0;
	lib.forking = 0;
	pool_reset_after_fork();
	aggr_after_fork();
	reg_after_fork(!lib_has_copy);
	procev_after_fork();
	shmtrace__tls.gen = 0;
	shmtrace__tls.tid = 0;
	lib.late_events = 0;
	bell_after_fork();	/* the forking thread's mask: our doorbell or not */
	lib_write_marker();
	/* no wait: the inherited control page already says what to record */
	lib_lock();
	if (lib_register_locked(0) < 0)
		lib_forget_control();
	lib_unlock();
	reg_apply();		/* polled or not, as our doorbell says */
	shmtrace__tls.nesting = 0;
}

static void lib_do_init(void)
{
	const char *e = getenv("SHMTRACE_REGISTER_TIMEOUT");

	shmtrace__tls.nesting++;	/* our own I/O is not the program's */
	lib.sync_ms = e && *e ? atoi(e) : 200;
	shmtrace__clock_tsc = tsc_choose_clock() == CLOCK_KIND_TSC;
	lib.debug = getenv("SHMTRACE_DEBUG") != NULL;
	lib.pid = getpid();
	proc_starttime(lib.pid, &lib.starttime);
	lib_new_instance();
	ownfd_init();
	if (home_resolve(lib.home, sizeof(lib.home)) < 0)
		lib.home[0] = 0;
	writer_thread_init();
	pthread_atfork(lib_before_fork, lib_after_fork_parent, lib_after_fork_child);
	bell_install();
	lib_write_marker();
	atexit(lib_at_exit);
	lib_lock();
	lib_register_locked(1);
	lib_unlock();
	shmtrace__tls.nesting--;
}

void lib_init(void)
{
	pthread_once(&lib_once, lib_do_init);
}

static void __attribute__((constructor(101))) lib_ctor(void)
{
	lib_init();
}

/* The fast path's clock for programs built in a strict ISO C mode (shmtrace.h). */
SHMTRACE_API uint64_t shmtrace__clock_monotonic(void)
{
	return now_ns(CLOCK_MONOTONIC);
}

SHMTRACE_API const char *shmtrace_version(void)
{
	return PACKAGE_VERSION;
}
