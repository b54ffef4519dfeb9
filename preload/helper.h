/* SPDX-License-Identifier: MIT */
/*
 * helper.h - what the LD_PRELOAD helper libraries share: finding the real
 * function behind a wrapper, the guard that keeps the tracer from tracing
 * itself, emitting an event without disturbing errno, and the clock that
 * durations are measured with.
 *
 * Every wrapper follows the same pattern:
 *
 *	HELPER_NEXT(read, NULL)			once, at file scope
 *
 *	ssize_t read(int fd, void *buf, size_t n)
 *	{
 *		ssize_t (*next)(int, void *, size_t) = helper_next_read();
 *		...
 *		if (!helper_tracing(shmtrace_io, read))
 *			return next(fd, buf, n);
 *		... call next, then helper_emit(shmtrace_io, read, ...)
 *	}
 *
 * Invariants:
 *  - helper_tracing() is false whenever shmtrace__tls.nesting != 0: code of
 *    libshmtrace (and every event being written) runs with a nonzero
 *    nesting count, and so does the helpers' own internal work (symbol
 *    lookups here, the pthread helper's bookkeeping allocations), bracketed
 *    by helper_enter()/helper_leave(). Such calls go straight to the real
 *    function: they are never recorded and never counted as dropped.
 *  - While an event is disabled, a wrapper costs one byte load and a
 *    predicted branch besides the call of the real function: no clock read,
 *    no TLS access.
 *  - The real function is looked up with dlsym(RTLD_NEXT) (dlvsym first
 *    when a symbol version is given) the first time it is needed, and each
 *    library's constructor looks up all of its functions, so that signal
 *    handlers running later never enter the dynamic linker. The pointer is
 *    published with an atomic store; two threads racing to look it up
 *    store the same value. A lookup is never attempted while another one
 *    is under way on the same thread (the dynamic linker may allocate
 *    memory, which reaches the malloc wrappers): the wrapper then gets
 *    NULL, and falls back (the libc helper serves such allocations from a
 *    static arena; the others fail with ENOSYS, which cannot happen with
 *    glibc, whose dlsym calls none of them).
 *  - No wrapper takes a lock of its own, so wrappers may run in signal
 *    handlers, in forked children and before any constructor ran.
 *  - helper_emit() leaves errno as it found it: the program sees the errno
 *    of the real call, whatever writing the event did.
 */
#ifndef SHMTRACE_PRELOAD_HELPER_H
#define SHMTRACE_PRELOAD_HELPER_H

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <shmtrace/shmtrace.h>

/* The wrapped libc and pthread functions are all this library exports. */
#define HELPER_API __attribute__((visibility("default")))

/* Raise the nesting count: nothing this thread does is recorded until
 * helper_leave(). Async-signal-safe. */
static inline void helper_enter(void)
{
	shmtrace__tls.nesting++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void helper_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	shmtrace__tls.nesting--;
}

/* Nonzero inside libshmtrace, inside an event or inside a helper's own work. */
static inline int helper_nested(void)
{
	return shmtrace__tls.nesting != 0;
}

/*
 * helper_tracing(provider, name) - record this call? The enabled byte is
 * read first, so that a disabled event costs no TLS access.
 */
#define helper_tracing(prov, ev) \
	(__builtin_expect(shmtrace_enabled(prov, ev), 0) && !helper_nested())

/* helper_emit(provider, name, args...) - shmtrace(), errno preserved. */
#define helper_emit(prov, ev, ...) do { \
	const int helper__errno = errno; \
	shmtrace(prov, ev, __VA_ARGS__); \
	errno = helper__errno; \
} while (0)

/* Durations: CLOCK_MONOTONIC in nanoseconds (the vDSO: no system call). */
static inline uint64_t helper_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The nesting count of symbol lookups under way on this thread. */
static inline unsigned int *helper__resolving(void)
{
	static __thread unsigned int resolving __attribute__((tls_model("initial-exec")));

	return &resolving;
}

/* Nonzero while this thread is inside the dynamic linker for a lookup. */
static inline int helper_resolving(void)
{
	return *helper__resolving() != 0;
}

/*
 * helper_sym - the next definition of @name after this library, of symbol
 * version @version when it exists (NULL: the default version). NULL when
 * there is none. Neither the lookup nor what the dynamic linker calls
 * meanwhile is recorded.
 */
static inline void *helper_sym(const char *name, const char *version)
{
	unsigned int *r = helper__resolving();
	void *p = NULL;

	helper_enter();
	++*r;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (version) {
		p = dlvsym(RTLD_NEXT, name, version);
		if (!p)
			(void)dlerror();	/* no stale message for the program */
	}
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	--*r;
	helper_leave();
	return p;
}

/*
 * HELPER_NEXT(fn, version) - define helper_next_fn(), which returns the
 * real fn (typed like fn), looked up at its first call; NULL when it does
 * not exist or when called during another lookup of this thread.
 */
#define HELPER_NEXT(fn, version) \
static inline __typeof__(&fn) helper_next_##fn(void) \
{ \
	static __typeof__(&fn) helper__next; \
	__typeof__(&fn) f = __atomic_load_n(&helper__next, __ATOMIC_ACQUIRE); \
	\
	if (__builtin_expect(f == NULL, 0) && !helper_resolving()) { \
		f = (__typeof__(&fn))helper_sym(#fn, version); \
		if (f) \
			__atomic_store_n(&helper__next, f, __ATOMIC_RELEASE); \
	} \
	return f; \
}

#endif /* SHMTRACE_PRELOAD_HELPER_H */
