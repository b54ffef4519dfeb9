/* SPDX-License-Identifier: MIT */
/*
 * doorbell.c - the SIGRTMIN+3 doorbell, and what happens when the program
 * takes that signal for itself, blocks it or waits for it.
 *
 * The doorbell is only a hint. The session daemon rings it when a control
 * page change turns on an event that is off everywhere in the process,
 * because such an event costs one load and a branch and looks at nothing
 * else. Every other change is seen without it: an enabled event compares
 * the control page generation with the one its thread applied.
 *
 * Installing: at start-up, only when the signal's action is the default
 * one (a program that already handles it keeps it). The handler is
 * async-signal-safe: it applies the control page (registry.c) and
 * registers again when our connection is gone.
 *
 * The doorbell is armed (lib.bell) exactly while all of these hold, and
 * withdrawn as soon as one fails:
 *
 * 1. The action is ours. sigaction(), signal(), sigset(), bsd_signal(),
 *    sysv_signal() and sigignore() are interposed: before the action
 *    changes, the doorbell is withdrawn; a program that installs our
 *    handler again (restoring an action it saved) gets it back.
 *
 * 2. Nothing of the program takes the signal from its queue: no thread
 *    ever called sigwait(), sigwaitinfo() or sigtimedwait() with it in the
 *    set, nor signalfd() with it in the mask (all interposed). Withdrawn
 *    before the call, for good (until exec): a signal thread waits again
 *    and again, and a signalfd may be read at any time.
 *
 * 3. A thread known to leave the signal unblocked, the taker, exists. The
 *    signal is process-directed: the kernel hands it to any thread that
 *    does not block it, so the masks of the other threads do not matter
 *    (a pool whose workers block every signal keeps the doorbell as long
 *    as the main thread does not). The taker is the thread that installed
 *    the doorbell when its mask (inherited across exec) leaves the signal
 *    unblocked, and later the first thread that unblocks it while there
 *    is none. sigprocmask(), pthread_sigmask(), sighold(), sigrelse() and
 *    sigset(SIG_HOLD) are interposed: before the taker blocks the signal,
 *    the doorbell is withdrawn; after a thread unblocked it while there is
 *    no taker, it becomes the taker and the doorbell is armed again. When
 *    the taker exits (pthread key destructor), the doorbell is withdrawn.
 *    Other threads are not tracked: threads inherit their creator's mask
 *    unseen, so a thread we did not see unblock the signal is not counted
 *    on, which errs towards withdrawing (polling costs a few
 *    nanoseconds per disabled event; a doorbell nobody takes loses
 *    control changes). A program that blocks and unblocks it in its taker
 *    more than BELL_MAX_FLIPS times within a second polls for good from
 *    then on, so that its blocks cost a load each again instead of a
 *    withdrawal and a walk of every event each.
 *
 * Withdrawing (bell_withdraw()) tells the daemons never to send the signal
 * again (the Dekker pair proc.doorbell_off / ctl.ringing of shm.h: either
 * the daemon sees doorbell_off and does not send, or we see ringing and
 * wait until the send is over), takes any instance still pending for the
 * process, removes our marker (no later daemon rings it), then marks every
 * event enabled nowhere `polled` (registry.c), so that shmtrace() calls
 * its emit function, which compares generations like any enabled event
 * and is refused by shmtrace__filter(). Arming does the reverse: polling
 * stops, the marker is back, doorbell_off is 0. Transitions are serialised
 * by bell_lock, held with every signal blocked in the holder (so that a
 * handler on the same thread never waits for it) and never while waiting
 * for another lock; lib_new_proc() takes it to set a new process page's
 * doorbell_off. The registration always names the signal while our
 * handler is installed; whether the daemon may send it is doorbell_off.
 *
 * A thread that waits with a temporary mask that blocks the signal
 * (sigsuspend(), ppoll(), pselect(), epoll_pwait(), epoll_pwait2(), all
 * interposed) while no other thread could take it is not rung (the
 * daemon sees every thread blocking it, below): on its way out of the
 * wait it compares the control generation with the one last applied and
 * does the doorbell's work if it moved.
 *
 * A child that shares our memory (vfork(), clone(CLONE_VM)), told apart by
 * getpid() != lib.pid, changes nothing here: its masks and actions are its
 * own. A forked child starts with its forking thread's mask: it is the
 * taker when that mask leaves the signal unblocked (bell_after_fork()).
 *
 * Every wrapper calls the real function with the program's arguments and
 * returns what it returned, with its errno; all are async-signal-safe
 * where the wrapped function is; while nothing changes, a call pays a few
 * loads and a compare (about 8 ns, on top of a system call of about 250).
 *
 * What goes around the library: a mask or action changed with the raw
 * system call, a mask restored by setcontext(), swapcontext() or
 * siglongjmp() (or by the kernel, when a handler that changed it
 * returns), a thread ended by the raw exit system call, a signalfd made or
 * a wait made with the raw system call. The session daemon (sessiond/app.c,
 * app_ring()) therefore sends the signal only to a process that catches
 * it (/proc/PID/status SigCgt), that has no instance of it pending yet
 * (ShdPnd: never more than one), and that has a thread not blocking it
 * (SigBlk of every task, bounded); such a program sees control changes at
 * its next enabled event. What remains possible: a program that takes the
 * signal from its queue with the raw system calls while one of its threads
 * leaves it unblocked (or waits for it in the raw rt_sigtimedwait, which
 * unblocks it meanwhile) can receive one instance; so can one that blocks
 * it and waits for it in the microseconds between a daemon's look at
 * /proc and its kill when that daemon, started later, rings its marker
 * (no handshake there), or after a daemon stopped in the middle of a ring
 * for longer than the 100 ms bell_withdraw() waits.
 */
/* we define ppoll(), which the fortified <poll.h> defines inline */
#undef _FORTIFY_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "lib.h"
#include "common/util.h"

#define BELL_RING_WAIT_NS	100000000u
#define BELL_MAX_FLIPS		16	/* withdrawals by the taker's mask in a second */
#define BELL_FLIP_WINDOW_NS	1000000000u

typedef void (*bell_sighandler)(int);

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static bell_sighandler (*real_signal)(int, bell_sighandler);
static bell_sighandler (*real_bsd_signal)(int, bell_sighandler);
static bell_sighandler (*real_sysv_signal)(int, bell_sighandler);
static bell_sighandler (*real___sysv_signal)(int, bell_sighandler);
static bell_sighandler (*real_sigset)(int, bell_sighandler);
static int (*real_sigignore)(int);
static int (*real_sighold)(int);
static int (*real_sigrelse)(int);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int (*real_sigwait)(const sigset_t *, int *);
static int (*real_sigwaitinfo)(const sigset_t *, siginfo_t *);
static int (*real_sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
static int (*real_signalfd)(int, const sigset_t *, int);
static int (*real_sigsuspend)(const sigset_t *);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
static int (*real___ppoll_chk)(struct pollfd *, nfds_t, const struct timespec *,
			       const sigset_t *, size_t);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			   const sigset_t *);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
static int (*real_epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *,
				const sigset_t *);

extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* declared by the C library's headers only for some feature sets or versions */
SHMTRACE_API bell_sighandler bsd_signal(int sig, bell_sighandler handler);
SHMTRACE_API int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts,
			     const sigset_t *mask, size_t fdslen);
SHMTRACE_API int epoll_pwait2(int epfd, struct epoll_event *ev, int max,
			      const struct timespec *timeout, const sigset_t *mask);

/* Why the doorbell is off (besides lib.signo == 0); see the top comment. */
static int bell_action_off;		/* 1: the program gave the signal another action */
static int bell_consumed;		/* 1: the program takes it from its queue (for good) */
static int32_t bell_taker;		/* tid of the thread known to leave it unblocked */
static int bell_sticky;			/* 1: the taker's mask flipped too often: no taker */
static uint32_t bell_flips;		/* withdrawals by the taker's mask in this window */
static uint64_t bell_flip_start;	/* the window's start (CLOCK_MONOTONIC) */
static int bell_lock_word;
static pthread_key_t bell_key;
static int bell_key_ok;

#define BELL_RESOLVE(name) \
	__atomic_store_n(&real_##name, (__typeof__(real_##name))dlsym(RTLD_NEXT, #name), \
			 __ATOMIC_RELAXED)

/* The next definitions in the search order; called before our constructor too. */
static void bell_resolve(void)
{
	if (__atomic_load_n(&real_sigaction, __ATOMIC_ACQUIRE))
		return;
	BELL_RESOLVE(signal);
	BELL_RESOLVE(bsd_signal);
	BELL_RESOLVE(sysv_signal);
	BELL_RESOLVE(__sysv_signal);
	BELL_RESOLVE(sigset);
	BELL_RESOLVE(sigignore);
	BELL_RESOLVE(sighold);
	BELL_RESOLVE(sigrelse);
	BELL_RESOLVE(sigprocmask);
	BELL_RESOLVE(pthread_sigmask);
	BELL_RESOLVE(sigwait);
	BELL_RESOLVE(sigwaitinfo);
	BELL_RESOLVE(sigtimedwait);
	BELL_RESOLVE(signalfd);
	BELL_RESOLVE(sigsuspend);
	BELL_RESOLVE(ppoll);
	BELL_RESOLVE(__ppoll_chk);
	BELL_RESOLVE(pselect);
	BELL_RESOLVE(epoll_pwait);
	BELL_RESOLVE(epoll_pwait2);
	__atomic_store_n(&real_sigaction,
			 (int (*)(int, const struct sigaction *, struct sigaction *))
			 dlsym(RTLD_NEXT, "sigaction"), __ATOMIC_RELEASE);
	if (!real_sigaction)
		real_sigaction = __sigaction;
}

/* The kernel's view of signal sets: 64 bits (rt_sigprocmask, rt_sigtimedwait). */
static uint64_t bell_bit(int sig)
{
	return sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;
}

static int bell_raw_mask(int how, const uint64_t *set, uint64_t *old)
{
	return (int)syscall(SYS_rt_sigprocmask, how, set, old, sizeof(uint64_t));
}

/* Is the caller a child sharing our memory, or a forked one our handler has
 * not seen yet? Then nothing here is its business. */
static int bell_not_ours(void)
{
	return getpid() != lib.pid;
}

/*
 * The doorbell's work: apply the control page; register again if our
 * connection is gone; see whether a late session daemon answered.
 */
static void bell_work(void)
{
	reg_apply();
	lib_register_soon();
	lib_late_check();
}

static void bell_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	bell_work();
	errno = saved;
}

/* Is @act our handler? */
static int bell_is_ours(const struct sigaction *act)
{
	return (act->sa_flags & SA_SIGINFO) && act->sa_sigaction == bell_handler;
}

/* Take bell_lock, every signal blocked in the calling thread meanwhile. */
static void bell_lock(uint64_t *old)
{
	uint64_t all = ~0ull;

	bell_raw_mask(SIG_BLOCK, &all, old);
	while (__atomic_exchange_n(&bell_lock_word, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void bell_unlock(const uint64_t *old)
{
	__atomic_store_n(&bell_lock_word, 0, __ATOMIC_RELEASE);
	bell_raw_mask(SIG_SETMASK, old, NULL);
}

/* Tell the daemons (and the consumer's process page) whether to ring. Lock held. */
static void bell_publish(uint32_t off)
{
	struct shm_proc_page *proc = __atomic_load_n(&lib.proc, __ATOMIC_SEQ_CST);

	if (proc)
		__atomic_store_n(&proc->doorbell_off, off, __ATOMIC_SEQ_CST);
}

void bell_new_proc(struct shm_proc_page *p)
{
	uint64_t old;

	bell_lock(&old);
	__atomic_store_n(&lib.proc, p, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->doorbell_off, !__atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST),
			 __ATOMIC_SEQ_CST);
	bell_unlock(&old);
}

/*
 * Make sure no daemon sends the signal from now on, take any instance
 * still pending, then poll. Lock held. Returns the instances taken.
 */
static int bell_withdraw(void)
{
	struct timespec zero = { 0, 0 }, nap = { 0, 50000 };
	const struct shm_ctl_page *ctl;
	uint64_t deadline, set = bell_bit(lib.signo);
	int taken = 0;

	__atomic_store_n(&lib.bell, 0, __ATOMIC_SEQ_CST);
	shmtrace__tls.nesting++;	/* our own calls are not the program's */
	bell_publish(1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	deadline = now_ns(CLOCK_MONOTONIC) + BELL_RING_WAIT_NS;
	while (ctl && __atomic_load_n(&ctl->ringing, __ATOMIC_ACQUIRE) &&
	       now_ns(CLOCK_MONOTONIC) < deadline)
		nanosleep(&nap, NULL);
	/* an instance sent before still pending would meet the program */
	while (taken < 64 && syscall(SYS_rt_sigtimedwait, &set, NULL, &zero,
				     sizeof(set)) == lib.signo)
		taken++;
	lib_remove_marker();	/* no later daemon can ring it either */
	lib_dbg("no doorbell (the program took, blocked or waits for its signal): "
		"control changes are polled", lib.signo);
	reg_apply();		/* mark the events enabled nowhere as polled */
	shmtrace__tls.nesting--;
	return taken;
}

/* The doorbell can be rung again. Lock held. */
static void bell_arm(void)
{
	__atomic_store_n(&lib.bell, 1, __ATOMIC_SEQ_CST);
	shmtrace__tls.nesting++;
	bell_publish(0);
	/* the daemon writes the page, then reads doorbell_off; we store
	 * doorbell_off, then read the page: one of us sees the other */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	lib_write_marker();
	reg_apply();		/* polling stops */
	lib_dbg("doorbell armed", lib.signo);
	shmtrace__tls.nesting--;
}

/* Arm or withdraw the doorbell as the reasons now say. Async-signal-safe. */
static void bell_settle(void)
{
	int saved = errno, taken = 0, want;
	uint64_t old;

	bell_lock(&old);
	want = lib.signo && !__atomic_load_n(&bell_action_off, __ATOMIC_SEQ_CST) &&
	       !__atomic_load_n(&bell_consumed, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&bell_taker, __ATOMIC_SEQ_CST);
	if (want && !__atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST))
		bell_arm();
	else if (!want && __atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST))
		taken = bell_withdraw();
	bell_unlock(&old);
	if (taken)
		lib_register_soon();	/* what the handler would have done */
	errno = saved;
}

/* The taker blocks the signal: one more flip of the window. */
static void bell_count_flip(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	if (now - __atomic_load_n(&bell_flip_start, __ATOMIC_RELAXED) > BELL_FLIP_WINDOW_NS) {
		__atomic_store_n(&bell_flip_start, now, __ATOMIC_RELAXED);
		__atomic_store_n(&bell_flips, 0, __ATOMIC_RELAXED);
	}
	if (__atomic_add_fetch(&bell_flips, 1, __ATOMIC_RELAXED) > BELL_MAX_FLIPS &&
	    !__atomic_exchange_n(&bell_sticky, 1, __ATOMIC_SEQ_CST))
		lib_dbg("the doorbell signal is blocked again and again: control changes "
			"are polled from now on", BELL_MAX_FLIPS);
}

/* Before the calling thread blocks the signal. */
static void bell_block(void)
{
	int32_t t = __atomic_load_n(&bell_taker, __ATOMIC_SEQ_CST), me;
	int saved;

	if (!t || (shmtrace__tls.tid && shmtrace__tls.tid != t))
		return;		/* no taker, or another thread */
	saved = errno;
	if (!bell_not_ours() && (me = writer_tid()) == t &&
	    __atomic_compare_exchange_n(&bell_taker, &me, 0, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST)) {
		bell_count_flip();
		bell_settle();
	}
	errno = saved;
}

/* After the calling thread left the signal unblocked. */
static void bell_unblock(void)
{
	int32_t none = 0;
	int saved;

	if (!lib.signo || __atomic_load_n(&bell_taker, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&bell_sticky, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&bell_consumed, __ATOMIC_RELAXED))
		return;
	saved = errno;
	if (!bell_not_ours() && __atomic_compare_exchange_n(&bell_taker, &none, writer_tid(), 0,
							     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (bell_key_ok)
			pthread_setspecific(bell_key, (void *)1);
		bell_settle();
	}
	errno = saved;
}

/* Before the program takes the signal from its queue. */
static void bell_consume(void)
{
	int saved;

	if (!lib.signo || __atomic_load_n(&bell_consumed, __ATOMIC_SEQ_CST))
		return;
	saved = errno;
	if (!bell_not_ours()) {
		__atomic_store_n(&bell_consumed, 1, __ATOMIC_SEQ_CST);
		bell_settle();
	}
	errno = saved;
}

/* Before (@ours 0) or after (@ours 1) an action change of the signal. */
static void bell_action(int ours)
{
	int saved;

	if (!lib.signo || __atomic_load_n(&bell_action_off, __ATOMIC_SEQ_CST) == !ours)
		return;
	saved = errno;
	if (!bell_not_ours()) {
		__atomic_store_n(&bell_action_off, !ours, __ATOMIC_SEQ_CST);
		bell_settle();
	}
	errno = saved;
}

/* The taker exits: nobody is known to take the signal any more. */
static void bell_thread_exit(void *arg)
{
	int32_t me = writer_tid();

	if (__atomic_compare_exchange_n(&bell_taker, &me, 0, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		bell_settle();
}

/* Is @sig (1..64) in @set? Its first 64 bits are the kernel's mask. */
static int bell_in(const sigset_t *set, int sig)
{
	uint64_t w;

	if (!set || !sig)
		return 0;
	memcpy(&w, set, sizeof(w));
	return (w & bell_bit(sig)) != 0;
}

/*
 * After a wait whose temporary mask @mask (NULL: none) blocked the signal:
 * a ring suppressed meanwhile (no thread could take it) is caught up here.
 * Keeps errno.
 */
static void bell_after_wait(const sigset_t *mask)
{
	const struct shm_ctl_page *ctl;
	int saved;

	if (!mask || !__atomic_load_n(&lib.bell, __ATOMIC_RELAXED) || !bell_in(mask, lib.signo))
		return;
	ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	if (!ctl || __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&lib.applied_gen, __ATOMIC_RELAXED))
		return;
	saved = errno;
	if (!bell_not_ours())
		bell_work();
	errno = saved;
}

void bell_install(void)
{
	const char *e = getenv("SHMTRACE_SIGNAL");
	struct sigaction sa, old;
	uint64_t mask = 0;
	int off = 3;

	bell_resolve();
	if (e && *e)
		off = atoi(e);
	lib.signo = 0;
	if (off <= 0 || SIGRTMIN + off > SIGRTMAX)
		return;
	if (real_sigaction(SIGRTMIN + off, NULL, &old) < 0 || (old.sa_flags & SA_SIGINFO) ||
	    old.sa_handler != SIG_DFL) {
		lib_dbg("doorbell signal already in use: control changes are polled", SIGRTMIN + off);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = bell_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction(SIGRTMIN + off, &sa, NULL) < 0)
		return;
	bell_key_ok = pthread_key_create(&bell_key, bell_thread_exit) == 0;
	lib.signo = SIGRTMIN + off;
	/* a mask inherited across exec may block it already */
	if (bell_raw_mask(SIG_BLOCK, NULL, &mask) == 0 && !(mask & bell_bit(lib.signo))) {
		bell_taker = writer_tid();
		if (bell_key_ok)
			pthread_setspecific(bell_key, (void *)1);
		__atomic_store_n(&lib.bell, 1, __ATOMIC_SEQ_CST);
	} else {
		lib_dbg("doorbell signal blocked at start-up: control changes are polled",
			lib.signo);
	}
}

/*
 * In a forked child, from our child handler (one thread, lib.pid and the
 * thread's tid already the child's): the forking thread's mask decides.
 */
void bell_after_fork(void)
{
	uint64_t mask = 0;

	bell_lock_word = 0;
	bell_taker = 0;
	if (lib.signo && !bell_sticky && bell_raw_mask(SIG_BLOCK, NULL, &mask) == 0 &&
	    !(mask & bell_bit(lib.signo))) {
		bell_taker = writer_tid();
		if (bell_key_ok)
			pthread_setspecific(bell_key, (void *)1);
	}
	bell_settle();
}

/* ---- the wrappers ------------------------------------------------------- */

SHMTRACE_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int ours, ret;

	bell_resolve();
	if (!act || sig != lib.signo || !sig)
		return real_sigaction(sig, act, old);
	ours = bell_is_ours(act);
	if (!ours)
		bell_action(0);
	ret = real_sigaction(sig, act, old);
	if (ours && ret == 0) {
		int saved = errno;

		bell_action(1);
		errno = saved;
	}
	return ret;
}

/* signal() and its kin: @handler is never ours (we install with SA_SIGINFO). */
#define BELL_WRAP(name) \
SHMTRACE_API bell_sighandler name(int sig, bell_sighandler handler) \
{ \
	bell_resolve(); \
	if (!real_##name) { \
		errno = ENOSYS; \
		return SIG_ERR; \
	} \
	if (sig == lib.signo && sig && handler != SIG_ERR) \
		bell_action(0); \
	return real_##name(sig, handler); \
}

BELL_WRAP(signal)
BELL_WRAP(bsd_signal)
BELL_WRAP(sysv_signal)
BELL_WRAP(__sysv_signal)

/* sigset(): SIG_HOLD blocks the signal, anything else is an action that
 * also unblocks it */
SHMTRACE_API bell_sighandler sigset(int sig, bell_sighandler handler)
{
	bell_sighandler ret;

	bell_resolve();
	if (!real_sigset) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (sig != lib.signo || !sig || handler == SIG_ERR)
		return real_sigset(sig, handler);
	if (handler == SIG_HOLD) {
		bell_block();
		return real_sigset(sig, handler);
	}
	bell_action(0);
	ret = real_sigset(sig, handler);
	if (ret != SIG_ERR)
		bell_unblock();
	return ret;
}

SHMTRACE_API int sigignore(int sig)
{
	bell_resolve();
	if (!real_sigignore) {
		errno = ENOSYS;
		return -1;
	}
	if (sig == lib.signo && sig)
		bell_action(0);
	return real_sigignore(sig);
}

SHMTRACE_API int sighold(int sig)
{
	bell_resolve();
	if (!real_sighold) {
		errno = ENOSYS;
		return -1;
	}
	if (sig == lib.signo && sig)
		bell_block();
	return real_sighold(sig);
}

SHMTRACE_API int sigrelse(int sig)
{
	int ret;

	bell_resolve();
	if (!real_sigrelse) {
		errno = ENOSYS;
		return -1;
	}
	ret = real_sigrelse(sig);
	if (sig == lib.signo && sig && ret == 0)
		bell_unblock();
	return ret;
}

/* Does a mask change (@how, @set) block the signal, or leave it unblocked? */
static void bell_mask_before(int how, const sigset_t *set)
{
	if (set && lib.signo && (how == SIG_BLOCK || how == SIG_SETMASK) &&
	    bell_in(set, lib.signo))
		bell_block();
}

static void bell_mask_after(int how, const sigset_t *set)
{
	if (set && lib.signo &&
	    ((how == SIG_UNBLOCK && bell_in(set, lib.signo)) ||
	     (how == SIG_SETMASK && !bell_in(set, lib.signo))))
		bell_unblock();
}

SHMTRACE_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int ret;

	bell_resolve();
	bell_mask_before(how, set);
	ret = real_sigprocmask(how, set, old);
	if (ret == 0)
		bell_mask_after(how, set);
	return ret;
}

SHMTRACE_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int ret;

	bell_resolve();
	bell_mask_before(how, set);
	ret = real_pthread_sigmask(how, set, old);
	if (ret == 0)
		bell_mask_after(how, set);
	return ret;
}

SHMTRACE_API int sigwait(const sigset_t *set, int *sig)
{
	bell_resolve();
	if (bell_in(set, lib.signo))
		bell_consume();
	return real_sigwait(set, sig);
}

SHMTRACE_API int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	bell_resolve();
	if (bell_in(set, lib.signo))
		bell_consume();
	return real_sigwaitinfo(set, info);
}

SHMTRACE_API int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	bell_resolve();
	if (bell_in(set, lib.signo))
		bell_consume();
	return real_sigtimedwait(set, info, ts);
}

SHMTRACE_API int signalfd(int fd, const sigset_t *mask, int flags)
{
	bell_resolve();
	if (bell_in(mask, lib.signo))
		bell_consume();
	return real_signalfd(fd, mask, flags);
}

/* The waits with a temporary mask: the real call, then a look at the generation. */
#define BELL_WAIT(name, mask, ...) \
	int ret; \
	bell_resolve(); \
	if (!real_##name) { \
		errno = ENOSYS; \
		return -1; \
	} \
	ret = real_##name(__VA_ARGS__); \
	bell_after_wait(mask); \
	return ret

SHMTRACE_API int sigsuspend(const sigset_t *mask)
{
	BELL_WAIT(sigsuspend, mask, mask);
}

SHMTRACE_API int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		       const sigset_t *mask)
{
	BELL_WAIT(ppoll, mask, fds, n, ts, mask);
}

SHMTRACE_API int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts,
			     const sigset_t *mask, size_t fdslen)
{
	BELL_WAIT(__ppoll_chk, mask, fds, n, ts, mask, fdslen);
}

SHMTRACE_API int pselect(int n, fd_set *r, fd_set *w, fd_set *x, const struct timespec *ts,
			 const sigset_t *mask)
{
	BELL_WAIT(pselect, mask, n, r, w, x, ts, mask);
}

SHMTRACE_API int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
			     const sigset_t *mask)
{
	BELL_WAIT(epoll_pwait, mask, epfd, ev, max, timeout, mask);
}

SHMTRACE_API int epoll_pwait2(int epfd, struct epoll_event *ev, int max,
			      const struct timespec *timeout, const sigset_t *mask)
{
	BELL_WAIT(epoll_pwait2, mask, epfd, ev, max, timeout, mask);
}
