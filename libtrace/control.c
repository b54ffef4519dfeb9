/* SPDX-License-Identifier: MIT */
/*
 * control.c - start-up, registration with the session daemon, the
 * SIGRTMIN+3 doorbell and fork.
 *
 * Registration never waits for a daemon: the socket is non-blocking, the
 * process creates its control page, process page and eventfd itself and
 * sends them with SCM_RIGHTS in one message; nothing is read back. With no
 * daemon running, the process writes a marker `$SHMTRACE_HOME/apps/<pid>`
 * (doorbell signal and start time) so that a daemon started later can ring
 * it; the doorbell handler then registers.
 *
 * Control page: the session daemon is its only writer (our mapping is
 * read-only). shmtrace__ctl_gen points at its generation; threads compare
 * it with the generation they applied at each enabled event, so nothing
 * depends on the signal arriving except turning on events that are
 * disabled everywhere in the process.
 *
 * The doorbell handler is async-signal-safe: it applies the control page
 * (lock-free, see registry.c) and registers when needed, if it can take the
 * lock without waiting; otherwise the lock holder does it on unlock.
 *
 * fork: the child drops every buffer of the parent without touching it
 * (the segments are MADV_DONTFORK, hence not even mapped in the child),
 * forgets the parent's registration and registers as a new process, with
 * a control page that starts as a copy of its parent's: it records what
 * its parent recorded from its first event, into buffers of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib.h"
#include "home.h"
#include "proto.h"
#include "tsc.h"
#include "util.h"

struct lib_state lib = { .sock = -1, .ctl_fd = -1, .proc_fd = -1, .efd = -1 };

static const volatile uint64_t lib_no_gen;
SHMTRACE_API const volatile uint64_t *shmtrace__ctl_gen = &lib_no_gen;
SHMTRACE_API int shmtrace__clock_tsc;

static int lib_debug;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* Diagnostics: only with SHMTRACE_DEBUG, only write(2). */
void lib_dbg(const char *msg, long val)
{
	char buf[160];
	int n;

	if (!lib_debug)
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
		if (__atomic_exchange_n(&lib.pending, 0, __ATOMIC_ACQ_REL) & LIB_PENDING_REGISTER)
			lib_register_locked(0);
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
	static const uint64_t one = 1;

	if (!lib.proc)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&lib.proc->consumer_sleeping, __ATOMIC_RELAXED))
		(void)!write(lib.efd, &one, sizeof(one));
}

static int memfd_sized(const char *name, size_t size)
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

/*
 * A forked child starts with a copy of its parent's control page, so that
 * what the parent traced the child traces from its first event, before the
 * session daemon rewrites the page for it.
 */
static struct shm_ctl_page lib_inherited;
static int lib_has_inherited;

/* The shared objects of this process, created once per process. */
static int lib_create_objects(void)
{
	void *p;

	if (lib.ctl)
		return 0;
	lib.ctl_fd = memfd_sized("shmtrace-ctl", SHM_CTL_SIZE);
	if (lib.ctl_fd < 0)
		goto fail;
	if (lib_has_inherited &&
	    pwrite(lib.ctl_fd, &lib_inherited, SHM_CTL_SIZE, 0) != (ssize_t)SHM_CTL_SIZE)
		lib_dbg("cannot copy the parent's control page", errno);
	lib_has_inherited = 0;
	lib.proc_fd = memfd_sized("shmtrace-proc", SHM_PROC_SIZE);
	if (lib.proc_fd < 0)
		goto fail;
	lib.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (lib.efd < 0)
		goto fail;
	p = mmap(NULL, SHM_PROC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, lib.proc_fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	madvise(p, SHM_PROC_SIZE, MADV_DONTFORK);
	lib.proc = p;
	lib.proc->magic = SHM_PROC_MAGIC;
	lib.proc->version = SHM_VERSION;
	lib.proc->hdr_size = SHM_PROC_SIZE;
	lib.proc->size = SHM_PROC_SIZE;
	lib.proc->pid = (uint32_t)lib.pid;
	p = mmap(NULL, SHM_CTL_SIZE, PROT_READ, MAP_SHARED, lib.ctl_fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	__atomic_store_n(&lib.ctl, (struct shm_ctl_page *)p, __ATOMIC_RELEASE);
	shmtrace__ctl_gen = &lib.ctl->generation;
	return 0;
fail:
	lib_dbg("cannot create shared objects", errno);
	if (lib.proc)
		munmap(lib.proc, SHM_PROC_SIZE);
	lib.proc = NULL;
	if (lib.efd >= 0)
		close(lib.efd);
	if (lib.proc_fd >= 0)
		close(lib.proc_fd);
	if (lib.ctl_fd >= 0)
		close(lib.ctl_fd);
	lib.efd = lib.proc_fd = lib.ctl_fd = -1;
	return -ENOMEM;
}

/* Is our socket to the daemon still connected? */
static int lib_sock_alive(void)
{
	struct pollfd pfd = { .fd = lib.sock, .events = 0 };

	if (lib.sock < 0)
		return 0;
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
		return 0;
	return 1;
}

/*
 * Wait, at most lib.sync_ms, until the session daemon has handled every
 * message sent so far (its control page then enables our events), so that
 * the first events of a program, or of a library just loaded, are not
 * missed. A daemon that does not answer in time costs that delay once;
 * with no daemon there is no socket and no wait. Lock held.
 */
void lib_sync_locked(void)
{
	static uint64_t seq;
	struct msg_sync m = { .seq = ++seq };
	uint64_t deadline;
	union {
		uint64_t align;
		char buf[64];
	} r;

	if (lib.sock < 0 || lib.sync_ms <= 0 ||
	    proto_send(lib.sock, MSG_APP_SYNC, 0, &m, sizeof(m), NULL, 0) < 0)
		return;
	deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)lib.sync_ms * 1000000u;
	for (;;) {
		struct pollfd pfd = { .fd = lib.sock, .events = POLLIN };
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		struct proto_hdr h;
		ssize_t n;

		if (now >= deadline || poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) <= 0)
			break;
		n = recv(lib.sock, r.buf, sizeof(r.buf), MSG_DONTWAIT);
		if (n <= 0)
			break;
		memcpy(&h, r.buf, sizeof(h));
		if ((size_t)n == sizeof(h) + sizeof(m) && h.magic == PROTO_MAGIC &&
		    h.type == MSG_REPLY && !memcmp(r.buf + sizeof(h), &m, sizeof(m)))
			break;
	}
	reg_apply();
}

/* Register with the session daemon if one runs. Lock held. Async-signal-safe
 * when !@may_wait. */
int lib_register_locked(int may_wait)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct msg_app_register m;
	int fds[3], fd, ret;

	if (lib_sock_alive())
		return 0;
	if (lib.sock >= 0) {
		close(lib.sock);
		lib.sock = -1;
	}
	if (!lib.home[0] || home_path(sa.sun_path, sizeof(sa.sun_path), lib.home, HOME_SOCK) < 0)
		return -ENOENT;
	ret = lib_create_objects();
	if (ret < 0)
		return ret;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		close(fd);
		/* the home is closed to our uid: a root daemon's application
		 * socket, open while a session allows other uids (home.h) */
		if (ret != -EACCES)
			return ret;
		fd = home_app_connect(lib.home, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return ret;
	}
	memset(&m, 0, sizeof(m));
	m.pid = (uint32_t)lib.pid;
	m.ppid = (uint32_t)getppid();
	m.uid = (uint32_t)getuid();
	m.signo = (uint32_t)lib.signo;
	m.abi = SHMTRACE_ABI_VERSION;
	m.max_events = SHM_MAX_EVENTS;
	m.max_chan = SHM_MAX_CHAN;
	m.starttime = lib.starttime;
	m.clock = shmtrace__clock_tsc ? CLOCK_KIND_TSC : CLOCK_KIND_MONOTONIC;
	prctl(PR_GET_NAME, m.procname, 0, 0, 0);
	fds[0] = lib.ctl_fd;
	fds[1] = lib.proc_fd;
	fds[2] = lib.efd;
	ret = proto_send(fd, MSG_APP_REGISTER, 0, &m, sizeof(m), fds, 3);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	lib.sock = fd;
	ret = reg_send_events(0, __atomic_load_n(&lib.next_id, __ATOMIC_ACQUIRE));
	if (ret < 0) {
		close(fd);
		lib.sock = -1;
		return ret;
	}
	lib_dbg("registered", lib.pid);
	pool_describe_all();
	if (may_wait)
		lib_sync_locked();
	return 0;
}

static void lib_doorbell(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	reg_apply();
	if (!lib_sock_alive()) {
		if (shmtrace__tls.nesting == 0 && lib_trylock()) {
			lib_register_locked(0);
			lib_unlock();
		} else {
			__atomic_or_fetch(&lib.pending, LIB_PENDING_REGISTER, __ATOMIC_RELEASE);
		}
	}
	errno = saved;
}

/* Leave a marker so that a daemon started later can ring the doorbell. */
static void lib_write_marker(void)
{
	char path[1200], num[64];
	int fd, n;

	if (home_path(path, sizeof(path), lib.home, HOME_APPS) < 0 || mkdir_p(path, 0700) < 0)
		return;
	n = snprintf(path, sizeof(path), "%s/%s/%d", lib.home, HOME_APPS, (int)lib.pid);
	if (n < 0 || (size_t)n >= sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	n = snprintf(num, sizeof(num), "%d %llu\n", lib.signo, (unsigned long long)lib.starttime);
	if (n > 0)
		(void)!write(fd, num, (size_t)n);
	close(fd);
}

static void lib_remove_marker(void)
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

static void lib_install_doorbell(void)
{
	const char *e = getenv("SHMTRACE_SIGNAL");
	struct sigaction sa, old;
	int off = 3;

	if (e && *e)
		off = atoi(e);
	lib.signo = 0;
	if (off <= 0 || SIGRTMIN + off > SIGRTMAX)
		return;
	if (sigaction(SIGRTMIN + off, NULL, &old) < 0 ||
	    (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL)) {
		lib_dbg("doorbell signal already in use", SIGRTMIN + off);
		return;
	}
	if (old.sa_flags & SA_SIGINFO) {
		lib_dbg("doorbell signal already in use", SIGRTMIN + off);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = lib_doorbell;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMIN + off, &sa, NULL) == 0)
		lib.signo = SIGRTMIN + off;
}

/* Copy the parent's control page (still mapped: it is not MADV_DONTFORK). */
static void lib_inherit_control(const struct shm_ctl_page *ctl)
{
	lib_has_inherited = 0;
	if (!ctl)
		return;
	for (int tries = 0; tries < 16; tries++) {
		uint64_t g = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);

		if (g & 1)
			continue;
		memcpy(&lib_inherited, ctl, sizeof(lib_inherited));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) == g) {
			lib_has_inherited = 1;
			break;
		}
	}
	munmap((void *)ctl, SHM_CTL_SIZE);
}

static void lib_after_fork_child(void)
{
	/* no event until the parent's buffers are forgotten: our own I/O and
	 * anything a signal handler emits is dropped (not mapped here) */
	shmtrace__tls.nesting = 1;
	writer_drop_all();
	lib.pid = getpid();
	proc_starttime(lib.pid, &lib.starttime);
	if (lib.sock >= 0)
		close(lib.sock);
	lib.sock = -1;
	/* the buffers and process page are not mapped here (MADV_DONTFORK) */
	{
		struct shm_ctl_page *parent = lib.ctl;

		shmtrace__ctl_gen = &lib_no_gen;
		__atomic_store_n(&lib.ctl, NULL, __ATOMIC_RELEASE);
		lib.proc = NULL;
		lib_inherit_control(parent);
	}
	if (lib.ctl_fd >= 0)
		close(lib.ctl_fd);
	if (lib.proc_fd >= 0)
		close(lib.proc_fd);
	if (lib.efd >= 0)
		close(lib.efd);
	lib.ctl_fd = lib.proc_fd = lib.efd = -1;
	lib.lock = 0;
	lib.pending = 0;
	pool_reset_after_fork();
	reg_after_fork(!lib_has_inherited);
	procev_after_fork();
	shmtrace__tls.gen = 0;
	shmtrace__tls.tid = 0;
	if (lib.signo)
		lib_write_marker();
	/* no wait: the inherited control page already says what to record */
	lib_lock();
	lib_register_locked(0);
	lib_unlock();
	shmtrace__tls.nesting = 0;
}

static void lib_do_init(void)
{
	const char *e = getenv("SHMTRACE_REGISTER_TIMEOUT");

	shmtrace__tls.nesting++;	/* our own I/O is not the program's */
	lib.sync_ms = e && *e ? atoi(e) : 200;
	shmtrace__clock_tsc = tsc_choose_clock() == CLOCK_KIND_TSC;
	lib_debug = getenv("SHMTRACE_DEBUG") != NULL;
	lib.pid = getpid();
	proc_starttime(lib.pid, &lib.starttime);
	if (home_resolve(lib.home, sizeof(lib.home)) < 0)
		lib.home[0] = 0;
	writer_thread_init();
	pthread_atfork(NULL, NULL, lib_after_fork_child);
	lib_install_doorbell();
	if (lib.home[0] && lib.signo)
		lib_write_marker();
	atexit(lib_remove_marker);
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

SHMTRACE_API const char *shmtrace_version(void)
{
	return PACKAGE_VERSION;
}
