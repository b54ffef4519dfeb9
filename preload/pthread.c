/* SPDX-License-Identifier: MIT */
/*
 * pthread.c - libshmtrace-pthread.so: LD_PRELOAD wrappers of the pthread
 * mutex, condition variable and thread functions, provider
 * shmtrace_pthread.
 *
 *	mutex_lock     { mutex, wait_ns, result, caller }
 *	mutex_trylock  { mutex, result, caller }
 *	mutex_unlock   { mutex, result, caller }
 *	cond_wait      { cond, mutex, wait_ns, result, caller }
 *	cond_timedwait { cond, mutex, wait_ns, result, caller }
 *	cond_signal    { cond, caller }
 *	cond_broadcast { cond, caller }
 *	thread_create  { thread, start_routine, result, caller }
 *	thread_start   { start_routine }            in the new thread
 *	thread_exit    { start_routine, retval }    routine returned, or
 *	                                            pthread_exit, or cancelled
 *
 * Events are recorded after the call they describe returned: mutex_lock
 * once the mutex is held, mutex_unlock once it is released.
 *
 * mutex_lock tries the mutex first: when it is free the wrapper reads no
 * clock and wait_ns is 0; only when it is busy is the clock read around
 * the real pthread_mutex_lock, so wait_ns is the time spent waiting for
 * the holder. (For every mutex type, pthread_mutex_trylock succeeds, or
 * fails with the error pthread_mutex_lock would return, except EBUSY,
 * which is when pthread_mutex_lock would wait.) cond_wait's wait_ns is the
 * whole call, the mutex reacquired included.
 *
 * Threads start in a trampoline that emits thread_start, runs the routine
 * and emits thread_exit with its value (PTHREAD_CANCELED when cancelled,
 * pthread_exit's argument when it exits that way). The trampoline's
 * argument block is allocated and freed inside helper_enter()/
 * helper_leave(), so that the libc helper does not record it. Threads
 * created while the tracer is busy (nesting != 0) start directly.
 *
 * The pthread_cond_* functions exist in two versions in glibc; programs
 * link the current one, GLIBC_2.3.2 (on architectures younger than it, the
 * only one, which dlsym finds).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "helper.h"

SHMTRACE_EVENT(shmtrace_pthread, mutex_lock, SHMTRACE_DEBUG,
	SHMTRACE_PTR(mutex),
	SHMTRACE_U64(wait_ns),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, mutex_trylock, SHMTRACE_DEBUG,
	SHMTRACE_PTR(mutex),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, mutex_unlock, SHMTRACE_DEBUG,
	SHMTRACE_PTR(mutex),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, cond_wait, SHMTRACE_DEBUG,
	SHMTRACE_PTR(cond),
	SHMTRACE_PTR(mutex),
	SHMTRACE_U64(wait_ns),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, cond_timedwait, SHMTRACE_DEBUG,
	SHMTRACE_PTR(cond),
	SHMTRACE_PTR(mutex),
	SHMTRACE_U64(wait_ns),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, cond_signal, SHMTRACE_DEBUG,
	SHMTRACE_PTR(cond),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, cond_broadcast, SHMTRACE_DEBUG,
	SHMTRACE_PTR(cond),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, thread_create, SHMTRACE_DEBUG,
	SHMTRACE_U64(thread),
	SHMTRACE_PTR(start_routine),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_pthread, thread_start, SHMTRACE_DEBUG,
	SHMTRACE_PTR(start_routine))
SHMTRACE_EVENT(shmtrace_pthread, thread_exit, SHMTRACE_DEBUG,
	SHMTRACE_PTR(start_routine),
	SHMTRACE_PTR(retval))

#define COND_VERSION "GLIBC_2.3.2"

HELPER_NEXT(pthread_mutex_lock, NULL)
HELPER_NEXT(pthread_mutex_trylock, NULL)
HELPER_NEXT(pthread_mutex_unlock, NULL)
HELPER_NEXT(pthread_cond_wait, COND_VERSION)
HELPER_NEXT(pthread_cond_timedwait, COND_VERSION)
HELPER_NEXT(pthread_cond_signal, COND_VERSION)
HELPER_NEXT(pthread_cond_broadcast, COND_VERSION)
HELPER_NEXT(pthread_create, NULL)
HELPER_NEXT(pthread_exit, NULL)

typedef void *(*start_fn)(void *);

/* A function's address as an event field. */
#define FN_PTR(f) ((const void *)(uintptr_t)(f))

/* ---- mutexes ------------------------------------------------------------- */

HELPER_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	int (*lock)(pthread_mutex_t *) = helper_next_pthread_mutex_lock();
	int (*trylock)(pthread_mutex_t *);
	uint64_t wait = 0, t0;
	int ret;

	if (__builtin_expect(!lock, 0))
		return ENOSYS;
	if (!helper_tracing(shmtrace_pthread, mutex_lock))
		return lock(m);
	trylock = helper_next_pthread_mutex_trylock();
	ret = trylock ? trylock(m) : EBUSY;
	if (ret == EBUSY) {
		t0 = helper_now_ns();
		ret = lock(m);
		wait = helper_now_ns() - t0;
	}
	helper_emit(shmtrace_pthread, mutex_lock, m, wait, ret, __builtin_return_address(0));
	return ret;
}

HELPER_API int pthread_mutex_trylock(pthread_mutex_t *m)
{
	int (*next)(pthread_mutex_t *) = helper_next_pthread_mutex_trylock();
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	ret = next(m);
	if (helper_tracing(shmtrace_pthread, mutex_trylock))
		helper_emit(shmtrace_pthread, mutex_trylock, m, ret, __builtin_return_address(0));
	return ret;
}

HELPER_API int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int (*next)(pthread_mutex_t *) = helper_next_pthread_mutex_unlock();
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	ret = next(m);
	if (helper_tracing(shmtrace_pthread, mutex_unlock))
		helper_emit(shmtrace_pthread, mutex_unlock, m, ret, __builtin_return_address(0));
	return ret;
}

/* ---- condition variables ------------------------------------------------- */

HELPER_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	int (*next)(pthread_cond_t *, pthread_mutex_t *) = helper_next_pthread_cond_wait();
	uint64_t t0;
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	if (!helper_tracing(shmtrace_pthread, cond_wait))
		return next(c, m);
	t0 = helper_now_ns();
	ret = next(c, m);
	helper_emit(shmtrace_pthread, cond_wait, c, m, helper_now_ns() - t0, ret,
		    __builtin_return_address(0));
	return ret;
}

HELPER_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				      const struct timespec *abstime)
{
	int (*next)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *) =
		helper_next_pthread_cond_timedwait();
	uint64_t t0;
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	if (!helper_tracing(shmtrace_pthread, cond_timedwait))
		return next(c, m, abstime);
	t0 = helper_now_ns();
	ret = next(c, m, abstime);
	helper_emit(shmtrace_pthread, cond_timedwait, c, m, helper_now_ns() - t0, ret,
		    __builtin_return_address(0));
	return ret;
}

HELPER_API int pthread_cond_signal(pthread_cond_t *c)
{
	int (*next)(pthread_cond_t *) = helper_next_pthread_cond_signal();
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	ret = next(c);
	if (helper_tracing(shmtrace_pthread, cond_signal))
		helper_emit(shmtrace_pthread, cond_signal, c, __builtin_return_address(0));
	return ret;
}

HELPER_API int pthread_cond_broadcast(pthread_cond_t *c)
{
	int (*next)(pthread_cond_t *) = helper_next_pthread_cond_broadcast();
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	ret = next(c);
	if (helper_tracing(shmtrace_pthread, cond_broadcast))
		helper_emit(shmtrace_pthread, cond_broadcast, c, __builtin_return_address(0));
	return ret;
}

/* ---- threads ------------------------------------------------------------- */

/* What the trampoline receives: the program's routine and argument. */
struct start {
	start_fn routine;
	void *arg;
};

/* This thread's routine (NULL for threads we did not start), and whether
 * its thread_exit was emitted. */
static __thread start_fn self_routine __attribute__((tls_model("initial-exec")));
static __thread int self_exited __attribute__((tls_model("initial-exec")));

static void thread_exit_event(void *retval)
{
	if (self_exited)
		return;
	self_exited = 1;
	if (helper_tracing(shmtrace_pthread, thread_exit))
		helper_emit(shmtrace_pthread, thread_exit, FN_PTR(self_routine), retval);
}

/* Cancellation cleanup handler (pthread_exit sets self_exited first). */
static void thread_cancelled(void *unused)
{
	thread_exit_event(PTHREAD_CANCELED);
}

static void *run_routine(start_fn routine, void *arg)
{
	void *ret;

	pthread_cleanup_push(thread_cancelled, NULL);
	ret = routine(arg);
	pthread_cleanup_pop(0);
	return ret;
}

static void *trampoline(void *block)
{
	struct start s = *(struct start *)block;
	void *ret;

	helper_enter();
	free(block);
	helper_leave();
	self_routine = s.routine;
	self_exited = 0;
	if (helper_tracing(shmtrace_pthread, thread_start))
		helper_emit(shmtrace_pthread, thread_start, FN_PTR(s.routine));
	ret = run_routine(s.routine, s.arg);
	if (!helper_nested())
		thread_exit_event(ret);
	return ret;
}

HELPER_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			      start_fn routine, void *arg)
{
	int (*next)(pthread_t *, const pthread_attr_t *, start_fn, void *) =
		helper_next_pthread_create();
	struct start *s;
	int ret;

	if (__builtin_expect(!next, 0))
		return ENOSYS;
	if (helper_nested())
		return next(thread, attr, routine, arg);
	helper_enter();
	s = malloc(sizeof(*s));
	helper_leave();
	if (!s) {
		ret = EAGAIN;
	} else {
		s->routine = routine;
		s->arg = arg;
		ret = next(thread, attr, trampoline, s);
		if (ret) {
			helper_enter();
			free(s);
			helper_leave();
		}
	}
	if (helper_tracing(shmtrace_pthread, thread_create))
		helper_emit(shmtrace_pthread, thread_create, ret ? 0 : (uint64_t)*thread,
			    FN_PTR(routine), ret, __builtin_return_address(0));
	return ret;
}

HELPER_API void pthread_exit(void *retval)
{
	void (*next)(void *) = helper_next_pthread_exit();

	if (!helper_nested())
		thread_exit_event(retval);
	if (__builtin_expect(next != NULL, 1))
		next(retval);
	for (;;)
		syscall(SYS_exit, 0);	/* the thread alone; cannot happen */
}

/* Look everything up now, before any signal handler may need it. */
static void __attribute__((constructor)) pthread_helper_init(void)
{
	helper_next_pthread_mutex_lock();
	helper_next_pthread_mutex_trylock();
	helper_next_pthread_mutex_unlock();
	helper_next_pthread_cond_wait();
	helper_next_pthread_cond_timedwait();
	helper_next_pthread_cond_signal();
	helper_next_pthread_cond_broadcast();
	helper_next_pthread_create();
	helper_next_pthread_exit();
}
