/* SPDX-License-Identifier: MIT */
/*
 * libc.c - libshmtrace-libc.so: LD_PRELOAD wrappers of the malloc family,
 * provider shmtrace_libc.
 *
 * Each wrapper calls the next definition of its function (glibc's, or
 * another preloaded allocator's) and records what it returned:
 *
 *	malloc         { size, ptr, caller }
 *	calloc         { nmemb, size, ptr, caller }
 *	realloc        { in_ptr, size, ptr, caller }   (also reallocarray)
 *	free           { ptr, caller }                 (free(NULL): no event)
 *	memalign       { alignment, size, ptr, caller }
 *	posix_memalign { alignment, size, ptr, result, caller }
 *	aligned_alloc  { alignment, size, ptr, caller }
 *	valloc         { size, ptr, caller }
 *	pvalloc        { size, ptr, caller }
 *
 * caller is the wrapper's return address. A pointer is therefore recorded
 * as allocated after the allocator returned it, and as freed before it is
 * handed back: in a trace with synchronised clocks an address is never
 * shown allocated twice without a free in between, except across realloc,
 * which records both halves at once after the call.
 *
 * realloc follows glibc: realloc(p, 0) frees p and returns NULL (the event
 * has size 0 and ptr NULL), realloc(NULL, n) allocates. A reader counts a
 * realloc event as the free of in_ptr (when not NULL, and unless ptr is
 * NULL while size is not 0: the call failed and p is still allocated) plus
 * the allocation of ptr (when not NULL).
 *
 * Bootstrap arena: looking a symbol up may make the dynamic linker
 * allocate (dlerror state, error strings), which comes back here before
 * the real function is known. Allocations made while this thread is inside
 * a lookup, or when no real function could be found, are carved from a
 * static arena with a lock-free bump pointer; they are never recorded,
 * never reused and never passed to the real free (free ignores them,
 * realloc copies them out, malloc_usable_size answers for them).
 *
 * Nothing here takes a lock: the wrappers work in signal handlers (as far
 * as the real allocator allows), across fork and in any thread.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "helper.h"

SHMTRACE_EVENT(shmtrace_libc, malloc, SHMTRACE_DEBUG,
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, calloc, SHMTRACE_DEBUG,
	SHMTRACE_U64(nmemb),
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, realloc, SHMTRACE_DEBUG,
	SHMTRACE_PTR(in_ptr),
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, free, SHMTRACE_DEBUG,
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, memalign, SHMTRACE_DEBUG,
	SHMTRACE_U64(alignment),
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, posix_memalign, SHMTRACE_DEBUG,
	SHMTRACE_U64(alignment),
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, aligned_alloc, SHMTRACE_DEBUG,
	SHMTRACE_U64(alignment),
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, valloc, SHMTRACE_DEBUG,
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_libc, pvalloc, SHMTRACE_DEBUG,
	SHMTRACE_U64(size),
	SHMTRACE_PTR(ptr),
	SHMTRACE_PTR(caller))

HELPER_NEXT(malloc, NULL)
HELPER_NEXT(calloc, NULL)
HELPER_NEXT(realloc, NULL)
HELPER_NEXT(free, NULL)
HELPER_NEXT(memalign, NULL)
HELPER_NEXT(posix_memalign, NULL)
HELPER_NEXT(aligned_alloc, NULL)
HELPER_NEXT(valloc, NULL)
HELPER_NEXT(pvalloc, NULL)
HELPER_NEXT(malloc_usable_size, NULL)

/* ---- bootstrap arena ---------------------------------------------------- */

#define ARENA_SIZE	(64u * 1024u)
#define ARENA_ALIGN	16u		/* malloc's alignment on 64-bit glibc */
#define ARENA_PAGE	4096u

static char arena[ARENA_SIZE] __attribute__((aligned(ARENA_PAGE)));
static size_t arena_used;

static int arena_owns(const void *p)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)arena;

	return a >= base && a < base + ARENA_SIZE;
}

/*
 * A block of @size bytes aligned on @align (a power of two), zeroed (the
 * arena is never reused), its size stored in the ARENA_ALIGN bytes before
 * it. NULL and ENOMEM when the arena is exhausted.
 */
static void *arena_alloc(size_t size, size_t align)
{
	size_t old = __atomic_load_n(&arena_used, __ATOMIC_RELAXED), start, end;

	if (align < ARENA_ALIGN)
		align = ARENA_ALIGN;
	do {
		start = (old + ARENA_ALIGN + align - 1) & ~(align - 1);
		if (start > ARENA_SIZE || size > ARENA_SIZE - start) {
			errno = ENOMEM;
			return NULL;
		}
		end = (start + size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	} while (!__atomic_compare_exchange_n(&arena_used, &old, end, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	memcpy(arena + start - ARENA_ALIGN, &size, sizeof(size));
	return arena + start;
}

/* The aligned allocators before the real ones are known: EINVAL or a block. */
static void *arena_aligned(size_t alignment, size_t size)
{
	if (alignment & (alignment - 1) || alignment > ARENA_PAGE) {
		errno = EINVAL;
		return NULL;
	}
	return arena_alloc(size, alignment);
}

static size_t arena_size(const void *p)
{
	size_t size;

	memcpy(&size, (const char *)p - ARENA_ALIGN, sizeof(size));
	return size;
}

/* ---- the wrappers -------------------------------------------------------- */

HELPER_API void *malloc(size_t size)
{
	void *(*next)(size_t) = helper_next_malloc();
	void *p;

	if (__builtin_expect(!next, 0))
		return arena_alloc(size, ARENA_ALIGN);
	p = next(size);
	if (helper_tracing(shmtrace_libc, malloc))
		helper_emit(shmtrace_libc, malloc, size, p, __builtin_return_address(0));
	return p;
}

HELPER_API void *calloc(size_t nmemb, size_t size)
{
	void *(*next)(size_t, size_t) = helper_next_calloc();
	size_t total;
	void *p;

	if (__builtin_expect(!next, 0)) {
		if (__builtin_mul_overflow(nmemb, size, &total)) {
			errno = ENOMEM;
			return NULL;
		}
		return arena_alloc(total, ARENA_ALIGN);
	}
	p = next(nmemb, size);
	if (helper_tracing(shmtrace_libc, calloc))
		helper_emit(shmtrace_libc, calloc, nmemb, size, p, __builtin_return_address(0));
	return p;
}

HELPER_API void free(void *p)
{
	void (*next)(void *);

	if (!p || arena_owns(p))
		return;
	if (helper_tracing(shmtrace_libc, free))
		helper_emit(shmtrace_libc, free, p, __builtin_return_address(0));
	next = helper_next_free();
	if (__builtin_expect(next != NULL, 1))
		next(p);
}

/*
 * realloc of a block of the arena: a fresh block, not recorded (the arena's
 * blocks never are), the arena's left alone.
 */
static void *arena_realloc(void *p, size_t size)
{
	void *(*next)(size_t) = helper_next_malloc();
	size_t old = arena_size(p);
	void *q;

	if (size == 0)
		return NULL;	/* glibc: realloc(p, 0) frees p */
	q = next ? next(size) : arena_alloc(size, ARENA_ALIGN);
	if (q)
		memcpy(q, p, old < size ? old : size);
	return q;
}

static void *do_realloc(void *in, size_t size, const void *caller)
{
	void *(*next)(void *, size_t);
	void *p;

	if (__builtin_expect(in != NULL && arena_owns(in), 0))
		return arena_realloc(in, size);
	next = helper_next_realloc();
	if (__builtin_expect(!next, 0))
		return in ? NULL : arena_alloc(size, ARENA_ALIGN);
	p = next(in, size);
	if (helper_tracing(shmtrace_libc, realloc))
		helper_emit(shmtrace_libc, realloc, in, size, p, caller);
	return p;
}

HELPER_API void *realloc(void *in, size_t size)
{
	return do_realloc(in, size, __builtin_return_address(0));
}

/*
 * glibc's reallocarray is an overflow check and a realloc, which it calls
 * directly (not through this wrapper): done here, so that it is recorded
 * as the realloc it is, with the program's caller.
 */
HELPER_API void *reallocarray(void *in, size_t nmemb, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return do_realloc(in, total, __builtin_return_address(0));
}

HELPER_API void *memalign(size_t alignment, size_t size)
{
	void *(*next)(size_t, size_t) = helper_next_memalign();
	void *p;

	if (__builtin_expect(!next, 0))
		return arena_aligned(alignment, size);
	p = next(alignment, size);
	if (helper_tracing(shmtrace_libc, memalign))
		helper_emit(shmtrace_libc, memalign, alignment, size, p,
			    __builtin_return_address(0));
	return p;
}

HELPER_API int posix_memalign(void **memptr, size_t alignment, size_t size)
{
	int (*next)(void **, size_t, size_t) = helper_next_posix_memalign();
	int ret;

	if (__builtin_expect(!next, 0)) {
		void *p;

		if (alignment % sizeof(void *))
			return EINVAL;
		p = arena_aligned(alignment, size);
		if (!p)
			return errno;
		*memptr = p;
		return 0;
	}
	ret = next(memptr, alignment, size);
	if (helper_tracing(shmtrace_libc, posix_memalign))
		helper_emit(shmtrace_libc, posix_memalign, alignment, size,
			    ret == 0 ? *memptr : NULL, ret, __builtin_return_address(0));
	return ret;
}

HELPER_API void *aligned_alloc(size_t alignment, size_t size)
{
	void *(*next)(size_t, size_t) = helper_next_aligned_alloc();
	void *p;

	if (__builtin_expect(!next, 0))
		return arena_aligned(alignment, size);
	p = next(alignment, size);
	if (helper_tracing(shmtrace_libc, aligned_alloc))
		helper_emit(shmtrace_libc, aligned_alloc, alignment, size, p,
			    __builtin_return_address(0));
	return p;
}

HELPER_API void *valloc(size_t size)
{
	void *(*next)(size_t) = helper_next_valloc();
	void *p;

	if (__builtin_expect(!next, 0))
		return arena_alloc(size, ARENA_PAGE);
	p = next(size);
	if (helper_tracing(shmtrace_libc, valloc))
		helper_emit(shmtrace_libc, valloc, size, p, __builtin_return_address(0));
	return p;
}

HELPER_API void *pvalloc(size_t size)
{
	void *(*next)(size_t) = helper_next_pvalloc();
	void *p;

	if (__builtin_expect(!next, 0)) {
		if (size > SIZE_MAX - ARENA_PAGE) {
			errno = ENOMEM;
			return NULL;
		}
		return arena_alloc(size ? (size + ARENA_PAGE - 1) & ~(size_t)(ARENA_PAGE - 1)
				   : ARENA_PAGE, ARENA_PAGE);
	}
	p = next(size);
	if (helper_tracing(shmtrace_libc, pvalloc))
		helper_emit(shmtrace_libc, pvalloc, size, p, __builtin_return_address(0));
	return p;
}

/* Not an event: answers for the arena, whose blocks glibc does not know. */
HELPER_API size_t malloc_usable_size(void *p)
{
	size_t (*next)(void *);

	if (p && arena_owns(p))
		return arena_size(p);
	next = helper_next_malloc_usable_size();
	return next ? next(p) : 0;
}

/* Look everything up now, before any signal handler may need it. */
static void __attribute__((constructor)) libc_helper_init(void)
{
	helper_next_malloc();
	helper_next_calloc();
	helper_next_realloc();
	helper_next_free();
	helper_next_memalign();
	helper_next_posix_memalign();
	helper_next_aligned_alloc();
	helper_next_valloc();
	helper_next_pvalloc();
	helper_next_malloc_usable_size();
}
