/* SPDX-License-Identifier: MIT */
/*
 * doorbell.c - the SIGRTMIN+3 doorbell, and what happens when the program
 * takes that signal for itself.
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
 * The program may later change the signal's action (reset every signal to
 * its default, ignore it, handle it). sigaction(), signal(), sigset(),
 * bsd_signal() and sysv_signal() are interposed: before the action changes,
 * bell_withdraw() tells the daemons never to send it again (the Dekker
 * pair proc.doorbell_off / ctl.ringing of shm.h: either the daemon sees
 * doorbell_off and does not send, or we see ringing and wait until the
 * send is over), takes any instance still pending, then lets the change
 * through unchanged. From then on the process polls: every event enabled
 * nowhere is marked `polled` (registry.c), so that shmtrace() calls its
 * emit function, which compares generations like any enabled event and
 * is refused by shmtrace__filter(). That costs a call and a few loads per
 * such event, only in a process without a doorbell (also one started with
 * SHMTRACE_SIGNAL=0 or whose signal was taken before we started).
 * A program that installs our handler again (restoring an action it saved)
 * gets the doorbell back.
 *
 * A change made with a raw system call bypasses the wrappers; the session
 * daemon still sends the signal only to a process that catches it
 * (/proc/PID/status), so a program that reset it to its default action is
 * never killed by it, but one that installed its own handler that way
 * could receive it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib.h"
#include "util.h"

#define BELL_RING_WAIT_NS	100000000u

typedef void (*bell_sighandler)(int);

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static bell_sighandler (*real_signal)(int, bell_sighandler);
static bell_sighandler (*real_bsd_signal)(int, bell_sighandler);
static bell_sighandler (*real_sysv_signal)(int, bell_sighandler);
static bell_sighandler (*real___sysv_signal)(int, bell_sighandler);
static bell_sighandler (*real_sigset)(int, bell_sighandler);

extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* declared by <signal.h> only for some feature sets */
SHMTRACE_API bell_sighandler bsd_signal(int sig, bell_sighandler handler);

/* The next definitions in the search order; called before our constructor too. */
static void bell_resolve(void)
{
	if (real_sigaction)
		return;
	real_signal = (bell_sighandler (*)(int, bell_sighandler))dlsym(RTLD_NEXT, "signal");
	real_bsd_signal = (bell_sighandler (*)(int, bell_sighandler))dlsym(RTLD_NEXT, "bsd_signal");
	real_sysv_signal = (bell_sighandler (*)(int, bell_sighandler))dlsym(RTLD_NEXT, "sysv_signal");
	real___sysv_signal = (bell_sighandler (*)(int, bell_sighandler))dlsym(RTLD_NEXT,
									      "__sysv_signal");
	real_sigset = (bell_sighandler (*)(int, bell_sighandler))dlsym(RTLD_NEXT, "sigset");
	__atomic_store_n(&real_sigaction,
			 (int (*)(int, const struct sigaction *, struct sigaction *))
			 dlsym(RTLD_NEXT, "sigaction"), __ATOMIC_RELEASE);
	if (!real_sigaction)
		real_sigaction = __sigaction;
}

static void bell_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	reg_apply();
	lib_register_soon();
	errno = saved;
}

/* Is @act our handler? */
static int bell_is_ours(const struct sigaction *act)
{
	return (act->sa_flags & SA_SIGINFO) && act->sa_sigaction == bell_handler;
}

/* Tell the daemons (and the consumer's process page) whether to ring. */
static void bell_publish(struct shm_proc_page *proc, uint32_t off)
{
	if (proc)
		__atomic_store_n(&proc->doorbell_off, off, __ATOMIC_SEQ_CST);
}

void bell_install(void)
{
	const char *e = getenv("SHMTRACE_SIGNAL");
	struct sigaction sa, old;
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
	if (real_sigaction(SIGRTMIN + off, &sa, NULL) == 0) {
		lib.signo = SIGRTMIN + off;
		__atomic_store_n(&lib.bell, 1, __ATOMIC_SEQ_CST);
	}
}

/*
 * The program is about to change the doorbell signal's action: make sure
 * no daemon sends it from now on, then poll. Async-signal-safe (the
 * program may call sigaction() from a handler).
 */
static void bell_withdraw(void)
{
	struct timespec zero = { 0, 0 }, nap = { 0, 50000 };
	struct shm_proc_page *proc, *seen = NULL;
	const struct shm_ctl_page *ctl;
	uint64_t deadline;
	sigset_t set;

	if (!__atomic_exchange_n(&lib.bell, 0, __ATOMIC_SEQ_CST))
		return;
	shmtrace__tls.nesting++;	/* our own calls are not the program's */
	/* a registration may publish a new process page meanwhile: it reads
	 * lib.bell after publishing it, we read lib.proc after clearing bell */
	while ((proc = __atomic_load_n(&lib.proc, __ATOMIC_SEQ_CST)) != seen) {
		bell_publish(proc, 1);
		seen = proc;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	deadline = now_ns(CLOCK_MONOTONIC) + BELL_RING_WAIT_NS;
	while (ctl && __atomic_load_n(&ctl->ringing, __ATOMIC_ACQUIRE) &&
	       now_ns(CLOCK_MONOTONIC) < deadline)
		nanosleep(&nap, NULL);
	/* an instance sent before still pending would meet the new action */
	sigemptyset(&set);
	sigaddset(&set, lib.signo);
	for (int i = 0; i < 64 && sigtimedwait(&set, NULL, &zero) == lib.signo; i++)
		;
	lib_remove_marker();	/* no later daemon can ring it either */
	lib_dbg("the program took the doorbell signal: control changes are polled", lib.signo);
	reg_apply();		/* mark the events enabled nowhere as polled */
	shmtrace__tls.nesting--;
}

/* The program installs our handler again (an action it had saved). */
static void bell_rearm(void)
{
	if (__atomic_exchange_n(&lib.bell, 1, __ATOMIC_SEQ_CST))
		return;
	bell_publish(__atomic_load_n(&lib.proc, __ATOMIC_SEQ_CST), 0);
	reg_apply();
}

/* Before an action change of @sig to @handler (SIG_HOLD: none). */
static void bell_before(int sig, bell_sighandler handler)
{
	if (sig == lib.signo && sig && handler != SIG_HOLD && handler != SIG_ERR &&
	    __atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST))
		bell_withdraw();
}

SHMTRACE_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int ours, ret;

	bell_resolve();
	if (!act || sig != lib.signo || !sig)
		return real_sigaction(sig, act, old);
	ours = bell_is_ours(act);
	if (!ours && __atomic_load_n(&lib.bell, __ATOMIC_SEQ_CST))
		bell_withdraw();
	ret = real_sigaction(sig, act, old);
	if (ours && ret == 0)
		bell_rearm();
	return ret;
}

#define BELL_WRAP(name) \
SHMTRACE_API bell_sighandler name(int sig, bell_sighandler handler) \
{ \
	bell_resolve(); \
	if (!real_##name) { \
		errno = ENOSYS; \
		return SIG_ERR; \
	} \
	bell_before(sig, handler); \
	return real_##name(sig, handler); \
}

BELL_WRAP(signal)
BELL_WRAP(bsd_signal)
BELL_WRAP(sysv_signal)
BELL_WRAP(__sysv_signal)
BELL_WRAP(sigset)
