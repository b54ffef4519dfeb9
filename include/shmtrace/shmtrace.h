/* SPDX-License-Identifier: MIT */
/*
 * shmtrace.h - instrument a program with shmtrace events.
 *
 * Introduction
 * ------------
 * An event has a provider name, an event name, a log level and a list of
 * typed fields. Define it once in a header that every user includes:
 *
 *	#include <shmtrace/shmtrace.h>
 *
 *	SHMTRACE_EVENT(myapp, request_begin, SHMTRACE_INFO,
 *		SHMTRACE_U64(id),
 *		SHMTRACE_STRING(path),
 *		SHMTRACE_SEQ(u8, body))
 *
 * and emit it in one line wherever it happens:
 *
 *	shmtrace(myapp, request_begin, req->id, req->path, req->body, req->len);
 *
 * A sequence field takes two arguments: a pointer to the elements and their
 * count (uint32_t). The compiler checks every argument against the declared
 * field types, because the call goes through a typed inline function.
 *
 * No further code is needed: every module (the program and each shared
 * library, including those loaded later with dlopen) registers its events
 * with libshmtrace from a constructor that this header provides, and
 * libshmtrace makes them known to the session daemon by name.
 *
 * Cost
 * ----
 * While the event is not enabled in any active session, shmtrace() costs one
 * load of a byte in the module's own data and one predicted branch: no call,
 * no clock read. When enabled, the event is written into the calling
 * thread's own buffer in shared memory with plain stores; no lock, no
 * system call, no atomic read-modify-write and no call of the C library
 * (strings are measured and copied inline) happen in the common case.
 * The writing is done by one function per event and source file, out of
 * line; the call site only tests the byte and calls it. A channel given
 * context fields (tracectl add-context) also records the address of the
 * shmtrace() call (the emit function's return address) and the CPU number
 * (one load from the thread's rseq area, which the kernel keeps current).
 * An event aggregated by one integer field with no filter (tracectl
 * aggregate --by FIELD --count --quantize FIELD ...) is counted inline
 * too, in the thread's own table: no clock read and no call, about half
 * the cost of recording it.
 *
 * Safety
 * ------
 * shmtrace() may be called from any thread and from signal handlers. It
 * never blocks and never fails visibly: when an event cannot be recorded
 * (buffer full, an event emitted by a signal handler that interrupted
 * another event of the same thread, no memory for a buffer), it is dropped
 * and counted, and the count appears in the trace as discarded events.
 * A program runs untraced at full speed when no session daemon is running,
 * and is picked up when one starts.
 *
 * Environment
 * -----------
 * SHMTRACE_HOME    directory of the session daemon's socket (default
 *                  $XDG_RUNTIME_DIR/shmtrace, else ~/.shmtrace).
 * SHMTRACE_SIGNAL  real-time signal offset used as the doorbell (default 3,
 *                  meaning SIGRTMIN+3); 0 disables the doorbell. Without
 *                  one (also when the program takes that signal for
 *                  itself) every event calls into the library to look for
 *                  control changes, a few nanoseconds while disabled.
 * SHMTRACE_DEBUG   print diagnostics on standard error when set.
 * SHMTRACE_CLOCK   "monotonic" stamps events with CLOCK_MONOTONIC even when
 *                  the TSC is usable.
 * SHMTRACE_REGISTER_TIMEOUT  milliseconds the program waits at start-up (and
 *                  at dlopen) for a running session daemon to handle its
 *                  registration, so that its first events are recorded
 *                  (default 200; 0: never wait). With no daemon running,
 *                  there is no wait.
 *
 * Everything named shmtrace__* below is the inline fast path's internal
 * interface: it is part of the ABI but not meant to be used directly.
 */
#ifndef SHMTRACE_SHMTRACE_H
#define SHMTRACE_SHMTRACE_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SHMTRACE_BUILDING_LIB)
#define SHMTRACE_API __attribute__((visibility("default")))
#else
#define SHMTRACE_API
#endif

/*
 * Strict ISO C modes (-std=c99, c11, c17) hide the POSIX clocks, and C99
 * even struct timespec: there the library reads CLOCK_MONOTONIC for the
 * fast path, out of line (only when the trace clock is not the TSC).
 */
#if !defined(__cplusplus) && !defined(CLOCK_MONOTONIC)
#define SHMTRACE__CLOCK_OUT_OF_LINE 1
#endif
extern SHMTRACE_API uint64_t shmtrace__clock_monotonic(void);

/* The tracer's inline code is never itself traced (-finstrument-functions). */
#define SHMTRACE__NOINSTR __attribute__((no_instrument_function))
/* Helpers of the fast path that stay inline whatever the optimization level
 * (compilers that optimize for size would otherwise call them). */
#define SHMTRACE__INLINE __attribute__((always_inline))

/*
 * Version of the ABI between instrumented modules and libshmtrace: 5, the
 * emit function updates the thread's aggregation plans itself
 * (struct shmtrace__aggp) and calls shmtrace__filter_ts() for the rest
 * (4: shmtrace__filter_ts() for all; 3: shmtrace__filter(); both still
 * served for the modules built for them).
 */
#define SHMTRACE_ABI_VERSION 5

/* Log levels, most severe first (the syslog order). */
enum shmtrace_loglevel {
	SHMTRACE_EMERG = 0,
	SHMTRACE_ALERT = 1,
	SHMTRACE_CRIT = 2,
	SHMTRACE_ERR = 3,
	SHMTRACE_WARNING = 4,
	SHMTRACE_NOTICE = 5,
	SHMTRACE_INFO = 6,
	SHMTRACE_DEBUG = 7,
};

/* Field types, as registered with the session daemon. */
enum shmtrace_type {
	SHMTRACE_TYPE_U8 = 1,
	SHMTRACE_TYPE_U16 = 2,
	SHMTRACE_TYPE_U32 = 3,
	SHMTRACE_TYPE_U64 = 4,
	SHMTRACE_TYPE_S8 = 5,
	SHMTRACE_TYPE_S16 = 6,
	SHMTRACE_TYPE_S32 = 7,
	SHMTRACE_TYPE_S64 = 8,
	SHMTRACE_TYPE_HEX64 = 9,	/* an address, shown in hexadecimal */
	SHMTRACE_TYPE_DOUBLE = 10,
	SHMTRACE_TYPE_STRING = 11,
	/* sequence of integers: SHMTRACE_TYPE_SEQ | element type (U8..S64) */
	SHMTRACE_TYPE_SEQ = 0x100,
};

/* Longest string field recorded; longer strings are truncated. */
#define SHMTRACE_STRING_MAX 65535u

struct shmtrace_field_desc {
	const char *name;
	uint32_t type;			/* enum shmtrace_type */
	uint32_t reserved;
};

/*
 * An event descriptor, one per event and module. `enabled` is the mask of
 * the process's channel slots that record the event; it is the only field
 * the disabled fast path reads. `filtered` is the part of that mask where
 * a filter on the fields decides (tracectl enable-event --filter).
 * In a process that has no doorbell signal (it took SIGRTMIN+3 for
 * itself, or SHMTRACE_SIGNAL=0), libshmtrace marks events enabled nowhere
 * as `polled`: they then go through the emit function, which looks for
 * control changes, and are refused there (see doc/architecture.md).
 */
struct shmtrace_event {
	volatile uint8_t enabled;
	volatile uint8_t filtered;
	uint8_t registered;		/* set by libshmtrace */
	volatile uint8_t polled;	/* set by libshmtrace */
	uint16_t abi_version;
	uint32_t id;			/* assigned by libshmtrace */
	const char *provider;
	const char *name;
	int32_t loglevel;
	uint32_t nfields;
	const struct shmtrace_field_desc *fields;
};

/*
 * shmtrace_register_events - make a module's events known.
 * @begin, @end: the module's array of event pointers (the shmtrace_events
 *               section). Calling it again with the same @begin is a no-op.
 *
 * Called by the constructor that this header adds to every module; programs
 * need not call it. Returns the number of events newly registered, or
 * -ENOSPC when the process's event table is full (the events that did not
 * fit stay disabled). Not async-signal-safe; thread-safe.
 */
SHMTRACE_API int shmtrace_register_events(struct shmtrace_event *const *begin,
					  struct shmtrace_event *const *end);

/*
 * shmtrace_unregister_events - forget a module's events before it unloads.
 * Waits until no signal handler or thread still reads the descriptors.
 * Not async-signal-safe; thread-safe.
 */
SHMTRACE_API void shmtrace_unregister_events(struct shmtrace_event *const *begin);

/* shmtrace_version - the library's version string, e.g. "0.1.0". */
SHMTRACE_API const char *shmtrace_version(void);

/* ---- Inline fast path (internal ABI) ---------------------------------- */

#define SHMTRACE__MAX_CHAN 8

/* The head of each sub-buffer's shared descriptor, written by its writer. */
struct shmtrace__commit {
	uint64_t word;			/* events << 32 | bytes committed */
	uint64_t last_ts;		/* timestamp of the last event */
};

/*
 * A thread's write position in one channel (thread-private). The bytes and
 * events written so far and the last timestamp are those of the commit
 * descriptor, which the writer alone updates: one cache line, hot in its
 * cache. With no sub-buffer, commit points at a zeroed descriptor and end
 * is 0, so that every event takes the slow path.
 */
struct shmtrace__wbuf {
	char *data;			/* current sub-buffer's first byte */
	uint32_t end;			/* its size; 0 = none */
	uint16_t ctx;			/* SHMTRACE__CTX_* fields of its events */
	uint16_t ctx_size;		/* their bytes: shmtrace__ctx_size(ctx) */
	struct shmtrace__commit *commit; /* never NULL */
};

/*
 * Context fields (tracectl add-context), written in this order between the
 * event header and the payload when the channel's `ctx` has their bit.
 */
#define SHMTRACE__CTX_IP	1u	/* 8 bytes: address of the emitting code */
#define SHMTRACE__CTX_CPU	2u	/* 4 bytes: CPU number */
#define SHMTRACE__CTX_ALL	3u

struct shmtrace__tls {
	uint64_t gen;			/* control generation applied */
	uint32_t nesting;		/* >0 while inside shmtrace code */
	int32_t tid;
	struct shmtrace__wbuf w[SHMTRACE__MAX_CHAN];
	/* the kernel's CPU number for this thread (its rseq area), or NULL;
	 * set when the thread first takes a buffer (see shmtrace__cpu()) */
	const volatile int32_t *cpu_id;
	/* SHMTRACE__AGGP aggregation plans (ABI 5), by event id: empty ones
	 * (libshmtrace's) until the thread has its own; never NULL */
	const struct shmtrace__aggp *agg;
};

extern SHMTRACE_API __thread struct shmtrace__tls shmtrace__tls
	__attribute__((tls_model("initial-exec")));
/* Points at the control page's generation counter (never NULL). */
extern SHMTRACE_API const volatile uint64_t *shmtrace__ctl_gen;

/* Room for an event of @need bytes (header and payload; the channel's
 * context fields are added) in channel slot @chan; 0: dropped, counted. */
SHMTRACE_API int shmtrace__reserve_slow(unsigned int chan, uint64_t need, uint64_t *ts);
SHMTRACE_API void shmtrace__resync(void);
SHMTRACE_API void shmtrace__nested_drop(unsigned int mask);
SHMTRACE_API void shmtrace__nested_drop_ev(const struct shmtrace_event *ev, unsigned int mask);
/* The CPU number from the system call, when the rseq area is not there. */
SHMTRACE_API uint32_t shmtrace__cpu_slow(void);

/* A field's value for a filter: integers, doubles (bits) and addresses in
 * u (raw, as stored), strings in s. */
struct shmtrace__fval {
	uint64_t u;
	const char *s;
};
/*
 * The channels of @mask whose filter keeps the event; with SHMTRACE__FIRE
 * added (events of ABI 3 and later) when the event fires a trigger
 * (tracectl add-trigger): the emit function then calls shmtrace__fire()
 * once the event is committed, so that the daemons are told of it after
 * it is in the buffers.
 */
SHMTRACE_API unsigned int shmtrace__filter(const struct shmtrace_event *ev, unsigned int mask,
					   const struct shmtrace__fval *v);
/*
 * shmtrace__filter() that also hands back the event's time in *@ts when
 * an aggregation read it (function profiles; *@ts is 0 on entry and stays
 * 0 otherwise): the emit function then stamps the event with it, so that
 * an event recorded and aggregated reads the clock once (ABI 4).
 */
SHMTRACE_API unsigned int shmtrace__filter_ts(const struct shmtrace_event *ev, unsigned int mask,
					      const struct shmtrace__fval *v, uint64_t *ts);
#define SHMTRACE__FIRE	0x100u

/*
 * Aggregation plans (ABI 5). The most common aggregation, one integer key
 * and functions of integer fields with no filter (tracectl aggregate
 * --by FIELD --count --quantize FIELD ...), is updated in the emit
 * function, without a call: libshmtrace makes a plan for the thread from
 * the checked definition (and only for an event with no trigger and no
 * channel filter) at the control generation the thread applied, and
 * empties the thread's plans whenever it applies another one, or a table
 * or a definition they use changes. Everything else goes through
 * shmtrace__filter_ts(), as before.
 *
 * The table is libshmtrace's (common/agg.h, doc/shm-layout.md): a
 * 64-byte header (u64 seq at 8, u32 used at 24, u64 dropped at 32 and
 * updates at 40), then entries of entry_size bytes: a u32 tag at 0 (the
 * key's hash, never 0; 0 = empty), the key at 8, the functions' values at
 * their offsets. An update is a writer's critical section under seq (odd
 * while it lasts): the key is looked for in `probes` entries from its
 * hash, taken when empty, else the update is counted in dropped.
 */
#define SHMTRACE__AGGP		32	/* plans per thread, by event id */
#define SHMTRACE__AGGP_NONE	0xffffffffu	/* an empty plan's id: no event's */
#define SHMTRACE__AGG_OPS	8
/* What a function of a plan does, in bits (never a jump through a table):
 * count 0, sum V, avg V|AVG, quantize Q, min MIN, max MAX. */
#define SHMTRACE__AGG_V		1u	/* add the argument (else 1) */
#define SHMTRACE__AGG_Q		2u	/* ... at its quantize bucket */
#define SHMTRACE__AGG_AVG	4u	/* ... then 1 to the next value */
#define SHMTRACE__AGG_MIN	8u	/* value and "set" flag: the least */
#define SHMTRACE__AGG_MAX	16u	/* ... the greatest */
struct shmtrace__aggop {
	uint8_t what;			/* SHMTRACE__AGG_* bits */
	uint8_t field;			/* its argument's field (the event's nfields: 0) */
	uint8_t reserved[2];
	uint32_t off;			/* its values' offset in an entry */
};
struct shmtrace__aggp {
	uint64_t reserved0;
	uint32_t id;			/* the event's id; SHMTRACE__AGGP_NONE: none */
	uint8_t key;			/* the key's field */
	uint8_t quant_field;		/* the quantize's argument */
	uint8_t nops;			/* in op[]: the other functions */
	uint8_t reserved;
	char *table;
	uint32_t mask;			/* entries - 1 (a power of two) */
	uint32_t entry_size;
	uint32_t probes;		/* entries looked at for a key */
	uint32_t count_off;		/* a count's value in an entry (0: none) */
	uint32_t quant_off;		/* a quantize's values (0: none) */
	uint32_t reserved2;
	struct shmtrace__aggop op[SHMTRACE__AGG_OPS];
	uint8_t reserved3[16];		/* 128 bytes: found by a shift */
};

static inline SHMTRACE__NOINSTR SHMTRACE__INLINE void shmtrace__agg_add(char *p, uint64_t v)
{
	uint64_t x;

	__builtin_memcpy(&x, p, 8);
	x += v;
	__builtin_memcpy(p, &x, 8);
}

/* The thread's plan for event @id, or NULL. */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE const struct shmtrace__aggp *
shmtrace__agg_plan(const struct shmtrace__tls *t, uint32_t id)
{
	const struct shmtrace__aggp *a = t->agg + (id & (SHMTRACE__AGGP - 1));

	return a->id == id ? a : 0;
}

/*
 * A key's hash, a 64-bit word at a time (common/agg.h's agg_key_tag()
 * for keys of several words): from SHMTRACE__AGG_H0, mixed with each word.
 */
#define SHMTRACE__AGG_H0	0x9e3779b97f4a7c15ull
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE uint64_t shmtrace__agg_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

/* quantize's bucket of @v: 129 powers of two, 0 in the middle */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE unsigned int shmtrace__agg_qbucket(int64_t v)
{
	return v == 0 ? 64u : v > 0 ? 128u - (unsigned int)__builtin_clzll((uint64_t)v) :
	       (unsigned int)__builtin_clzll(-(uint64_t)v);
}

/*
 * The entry of @key (hash @tag) in plan @a's table: the one that holds it,
 * else the first empty one its probe finds, taken; NULL when there is
 * none (counted in dropped). Inside the update (seq odd). Out of line: a
 * key found where its hash points, the common case, does not pay for
 * the loop's registers.
 */
static __attribute__((noinline, unused)) SHMTRACE__NOINSTR char *
shmtrace__agg_find(const struct shmtrace__aggp *a, uint64_t key, uint32_t tag)
{
	char *const tab = a->table;
	uint32_t t, i;
	uint64_t w;

	for (i = 0; i < a->probes; i++) {
		char *c = tab + 64 + (unsigned long)((tag + i) & a->mask) * a->entry_size;

		__builtin_memcpy(&t, c, 4);
		__builtin_memcpy(&w, c + 8, 8);
		if (t == tag && w == key)
			return c;
		if (!t) {	/* a new key: the tag last */
			__builtin_memcpy(c + 8, &key, 8);
			__atomic_store_n((uint32_t *)(void *)c, tag, __ATOMIC_RELAXED);
			__builtin_memcpy(&t, tab + 24, 4);
			t++;
			__builtin_memcpy(tab + 24, &t, 4);
			return c;
		}
	}
	shmtrace__agg_add(tab + 32, 1);
	return 0;
}

/* Plan @a's update for an event whose fields' raw values are @av. */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE void shmtrace__agg_update(const struct shmtrace__aggp *a,
									    const uint64_t *av)
{
	const uint64_t key = av[a->key];
	const unsigned int nops = a->nops;
	char *const tab = a->table;
	uint64_t *const seqp = (uint64_t *)(void *)(tab + 8);
	const uint32_t tag = (uint32_t)shmtrace__agg_mix(SHMTRACE__AGG_H0, key) | 1;
	uint64_t seq, w;
	uint32_t t, i;
	char *e;

	seq = *seqp;
	__atomic_store_n(seqp, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e = tab + 64 + (unsigned long)(tag & a->mask) * a->entry_size;
	__builtin_memcpy(&t, e, 4);
	__builtin_memcpy(&w, e + 8, 8);
	if (__builtin_expect(t != tag || w != key, 0))
		e = shmtrace__agg_find(a, key, tag);
	if (__builtin_expect(e != 0, 1)) {
		/* the most common functions at their own offsets: no loop */
		if (a->count_off)
			shmtrace__agg_add(e + a->count_off, 1);
		if (a->quant_off)
			shmtrace__agg_add(e + a->quant_off + 8 * shmtrace__agg_qbucket((int64_t)av[a->quant_field]), 1);
		for (i = 0; i < nops; i++) {
			const struct shmtrace__aggop *o = &a->op[i];
			char *p = e + o->off;
			const int64_t v = (int64_t)av[o->field];
			int64_t x;

			if (__builtin_expect(o->what & (SHMTRACE__AGG_MIN | SHMTRACE__AGG_MAX), 0)) {
				__builtin_memcpy(&w, p + 8, 8);
				__builtin_memcpy(&x, p, 8);
				if (!w || ((o->what & SHMTRACE__AGG_MIN) ? v < x : v > x))
					__builtin_memcpy(p, &v, 8);
				w = 1;
				__builtin_memcpy(p + 8, &w, 8);
			} else {
				shmtrace__agg_add(p + ((o->what & SHMTRACE__AGG_Q) ?
						       8 * shmtrace__agg_qbucket(v) : 0),
						  (o->what & SHMTRACE__AGG_V) ? (uint64_t)v : 1);
				if (o->what & SHMTRACE__AGG_AVG)
					shmtrace__agg_add(p + 8, 1);
			}
		}
		shmtrace__agg_add(tab + 40, 1);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(seqp, seq + 2, __ATOMIC_RELAXED);
}
/* Tell the daemons of the trigger firings @ev made (its time @ts, 0: none read). */
SHMTRACE_API void shmtrace__fire(const struct shmtrace_event *ev, uint64_t ts);

/* Nonzero when events are stamped with the TSC (set once, at start-up). */
extern SHMTRACE_API int shmtrace__clock_tsc;

/*
 * The trace clock: the TSC when it is invariant and the kernel trusts it,
 * else CLOCK_MONOTONIC in nanoseconds (and always with SHMTRACE_CLOCK=
 * monotonic). The trace's metadata says which, with its frequency.
 */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE uint64_t shmtrace__clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(shmtrace__clock_tsc, 1))
		return __builtin_ia32_rdtsc();
#endif
#ifdef SHMTRACE__CLOCK_OUT_OF_LINE
	return shmtrace__clock_monotonic();
#else
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
#endif
}

/*
 * The fast path calls no function of the C library: a string's length and
 * the bytes of strings and sequences are found and copied inline, and
 * fixed-size fields are plain stores (__builtin_memcpy of a constant size,
 * even in a program built with -fno-builtin).
 *
 * shmtrace__strlen() reads the string 16 bytes at a time with SSE2 on
 * x86-64 (8 bytes at a time on other little-endian machines, a byte at a
 * time elsewhere), by aligned loads: an aligned load of 16 or 8 bytes never
 * crosses a page boundary, so it touches no page that the string itself
 * does not. The bytes of the first block before the string, and of the
 * last block after its terminator, are read and ignored: hence no address,
 * thread or memory sanitizing of this function (a sanitized program calls
 * it out of line). It stops at SHMTRACE_STRING_MAX bytes, however long the
 * string.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SHMTRACE__SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define SHMTRACE__SANITIZED 1
#endif
#endif
#if defined(__clang__) && defined(SHMTRACE__SANITIZED)
#define SHMTRACE__STRLEN_ATTR __attribute__((no_sanitize("address", "thread", "memory")))
#elif defined(__GNUC__) && defined(SHMTRACE__SANITIZED)
#define SHMTRACE__STRLEN_ATTR __attribute__((no_sanitize_address, no_sanitize_thread))
#else
#define SHMTRACE__STRLEN_ATTR SHMTRACE__INLINE
#endif

/* The length of @s, at most SHMTRACE_STRING_MAX. */
#if defined(__SSE2__) && defined(__x86_64__)
typedef char shmtrace__v16 __attribute__((vector_size(16)));
#endif

static inline SHMTRACE__NOINSTR SHMTRACE__STRLEN_ATTR uint64_t shmtrace__strlen(const char *s)
{
#if defined(__SSE2__) && defined(__x86_64__)
	/* 16 bytes at a time: pcmpeqb, pmovmskb */
	const uintptr_t a = (uintptr_t)s;
	uintptr_t w = a & ~(uintptr_t)15;
	shmtrace__v16 v, zero = { 0 };
	uint32_t m;
	uint64_t n;

	__builtin_memcpy(&v, (const void *)w, 16);
	m = (uint32_t)__builtin_ia32_pmovmskb128((shmtrace__v16)(v == zero));
	m >>= a & 15;				/* the bytes before s */
	if (m == 0) {
		for (;;) {
			w += 16;
			if (w - a >= SHMTRACE_STRING_MAX)	/* no zero in [a, w) */
				return SHMTRACE_STRING_MAX;
			__builtin_memcpy(&v, (const void *)w, 16);
			m = (uint32_t)__builtin_ia32_pmovmskb128((shmtrace__v16)(v == zero));
			if (m)
				break;
		}
		n = (uint64_t)(w - a) + (uint64_t)__builtin_ctz(m);
	} else {
		n = (uint64_t)__builtin_ctz(m);
	}
	return n < SHMTRACE_STRING_MAX ? n : SHMTRACE_STRING_MAX;
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull;
	const uintptr_t a = (uintptr_t)s;
	uintptr_t w = a & ~(uintptr_t)7;
	uint64_t v, z, n;

	__builtin_memcpy(&v, (const void *)w, 8);
	v |= ~(~(uint64_t)0 << ((a & 7) * 8));	/* the bytes before s: not zero */
	/* the lowest byte set in z is the first zero byte of v */
	while ((z = (v - ones) & ~v & (ones << 7)) == 0) {
		w += 8;
		if (w - a >= SHMTRACE_STRING_MAX)	/* no zero in [a, w) */
			return SHMTRACE_STRING_MAX;
		__builtin_memcpy(&v, (const void *)w, 8);
	}
	n = (uint64_t)(w - a) + ((uint64_t)__builtin_ctzll(z) >> 3);
	return n < SHMTRACE_STRING_MAX ? n : SHMTRACE_STRING_MAX;
#else
	uint64_t n = 0;

	while (n < SHMTRACE_STRING_MAX && s[n])
		n++;
	return n;
#endif
}

/* Bytes a string field takes: its length, at most SHMTRACE_STRING_MAX, + 1. */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE uint64_t shmtrace__strsize(const char *s)
{
	uint64_t n;

	if (__builtin_constant_p(__builtin_strlen(s)))	/* a literal: known now */
		n = __builtin_strlen(s);
	else
		n = shmtrace__strlen(s);
	return (n < SHMTRACE_STRING_MAX ? n : SHMTRACE_STRING_MAX) + 1;
}

/*
 * Copy @n bytes from @src to @dst (which do not overlap): 16-byte moves
 * (SSE2) or 8-byte ones and a last one that overlaps the one before, so
 * that no byte outside [@src, @src + @n) is read and none outside
 * [@dst, @dst + @n) is written.
 */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE void
shmtrace__copy(char *dst, const void *src, uint64_t n)
{
	const char *s = (const char *)src;
	uint64_t i, v, last;
	uint32_t a4, b4;
	uint16_t a2, b2;

	/* which object s points to is hidden: the branches for other lengths
	 * than its own would otherwise be warned of as reading past it */
	__asm__("" : "+r"(s));
#if defined(__SSE2__) && defined(__x86_64__)
	if (n >= 16) {
		shmtrace__v16 w16, l16;

		for (i = 0; i + 16 < n; i += 16) {
			__builtin_memcpy(&w16, s + i, 16);
			__builtin_memcpy(dst + i, &w16, 16);
			__asm__("" : "+r"(i));	/* a loop of moves, not a call of memcpy */
		}
		__builtin_memcpy(&l16, s + n - 16, 16);
		__builtin_memcpy(dst + n - 16, &l16, 16);
		return;
	}
#endif
	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			__builtin_memcpy(&v, s + i, 8);
			__builtin_memcpy(dst + i, &v, 8);
			__asm__("" : "+r"(i));	/* a loop of moves, not a call of memcpy */
		}
		__builtin_memcpy(&last, s + n - 8, 8);
		__builtin_memcpy(dst + n - 8, &last, 8);
	} else if (n >= 4) {
		__builtin_memcpy(&a4, s, 4);
		__builtin_memcpy(&b4, s + n - 4, 4);
		__builtin_memcpy(dst, &a4, 4);
		__builtin_memcpy(dst + n - 4, &b4, 4);
	} else if (n >= 2) {
		__builtin_memcpy(&a2, s, 2);
		__builtin_memcpy(&b2, s + n - 2, 2);
		__builtin_memcpy(dst, &a2, 2);
		__builtin_memcpy(dst + n - 2, &b2, 2);
	} else if (n) {
		dst[0] = s[0];
	}
}

/* Compact header: id < 255 and less than 2^24 ticks since the last event. */
#define SHMTRACE__TS_BITS 24
#define SHMTRACE__ID_EXTENDED 255u

static inline SHMTRACE__NOINSTR SHMTRACE__INLINE uint32_t shmtrace__hdr_size(uint32_t id, uint64_t ts,
							     uint64_t last)
{
	return (id < SHMTRACE__ID_EXTENDED &&
		((ts - last) >> SHMTRACE__TS_BITS) == 0) ? 4 : 13;
}

static inline SHMTRACE__NOINSTR SHMTRACE__INLINE char *shmtrace__put_hdr(char *p, uint32_t hsize, uint32_t id,
							 uint64_t ts)
{
	if (__builtin_expect(hsize == 4, 1)) {
		uint32_t word = id | (uint32_t)(ts << 8);

		__builtin_memcpy(p, &word, 4);
		return p + 4;
	}
	p[0] = (char)SHMTRACE__ID_EXTENDED;
	__builtin_memcpy(p + 1, &id, 4);
	__builtin_memcpy(p + 5, &ts, 8);
	return p + 13;
}

/* Bytes of the context fields @ctx (SHMTRACE__CTX_*). */
static inline SHMTRACE__NOINSTR uint32_t shmtrace__ctx_size(uint32_t ctx)
{
	return (ctx & SHMTRACE__CTX_IP) * 8 + (ctx & SHMTRACE__CTX_CPU) * 2;
}

/* The CPU the thread runs on: one load from its rseq area when it has one. */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE uint32_t shmtrace__cpu(const struct shmtrace__tls *t)
{
	const volatile int32_t *c = t->cpu_id;
	int32_t v = c ? *c : -1;

	return v >= 0 ? (uint32_t)v : shmtrace__cpu_slow();
}

/*
 * Write the context fields @ctx at @p; @ip is the address of the code that
 * emitted the event.
 */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE char *
shmtrace__put_ctx(char *p, uint32_t ctx, const struct shmtrace__tls *t, const void *ip)
{
	if (ctx & SHMTRACE__CTX_IP) {
		uint64_t v = (uint64_t)(uintptr_t)ip;

		__builtin_memcpy(p, &v, 8);
		p += 8;
	}
	if (ctx & SHMTRACE__CTX_CPU) {
		uint32_t cpu = shmtrace__cpu(t);

		__builtin_memcpy(p, &cpu, 4);
		p += 4;
	}
	return p;
}

/*
 * Publish the event just written, which ends at @pos, the @nev-th of its
 * sub-buffer: the last timestamp first, then the release store of the
 * commit word.
 */
static inline SHMTRACE__NOINSTR SHMTRACE__INLINE void shmtrace__commit(struct shmtrace__commit *c, uint32_t pos,
						       uint32_t nev, uint64_t ts)
{
	c->last_ts = ts;
	__atomic_store_n(&c->word, ((uint64_t)nev << 32) | pos, __ATOMIC_RELEASE);
}

/* ---- Event definition macros ------------------------------------------ */

/*
 * Module registration: each event adds a constructor and a destructor that
 * hand the module's whole shmtrace_events section to libshmtrace, which
 * ignores all but the first call of each module.
 */
extern struct shmtrace_event *const __start_shmtrace_events[]
	__attribute__((weak, visibility("hidden")));
extern struct shmtrace_event *const __stop_shmtrace_events[]
	__attribute__((weak, visibility("hidden")));

static inline SHMTRACE__NOINSTR void shmtrace__module_init(void)
{
	if ((const void *)__start_shmtrace_events != (const void *)__stop_shmtrace_events)
		shmtrace_register_events(__start_shmtrace_events, __stop_shmtrace_events);
}

static inline SHMTRACE__NOINSTR void shmtrace__module_fini(void)
{
#ifndef SHMTRACE_BUILDING_LIB	/* libshmtrace itself stays loaded to the end */
	if ((const void *)__start_shmtrace_events != (const void *)__stop_shmtrace_events)
		shmtrace_unregister_events(__start_shmtrace_events);
#endif
}

#define SHMTRACE_U8(n)		(FIX, n, uint8_t, SHMTRACE_TYPE_U8)
#define SHMTRACE_U16(n)		(FIX, n, uint16_t, SHMTRACE_TYPE_U16)
#define SHMTRACE_U32(n)		(FIX, n, uint32_t, SHMTRACE_TYPE_U32)
#define SHMTRACE_U64(n)		(FIX, n, uint64_t, SHMTRACE_TYPE_U64)
#define SHMTRACE_S8(n)		(FIX, n, int8_t, SHMTRACE_TYPE_S8)
#define SHMTRACE_S16(n)		(FIX, n, int16_t, SHMTRACE_TYPE_S16)
#define SHMTRACE_S32(n)		(FIX, n, int32_t, SHMTRACE_TYPE_S32)
#define SHMTRACE_S64(n)		(FIX, n, int64_t, SHMTRACE_TYPE_S64)
#define SHMTRACE_DOUBLE(n)	(FIX, n, double, SHMTRACE_TYPE_DOUBLE)
#define SHMTRACE_PTR(n)		(PTR, n, const void *, SHMTRACE_TYPE_HEX64)
#define SHMTRACE_STRING(n)	(STR, n, const char *, SHMTRACE_TYPE_STRING)
/* T is one of u8 u16 u32 u64 s8 s16 s32 s64 */
#define SHMTRACE_SEQ(T, n)	(SEQ, n, SHMTRACE__CT_##T, (SHMTRACE_TYPE_SEQ | SHMTRACE__TY_##T))

#define SHMTRACE__CT_u8 uint8_t
#define SHMTRACE__CT_u16 uint16_t
#define SHMTRACE__CT_u32 uint32_t
#define SHMTRACE__CT_u64 uint64_t
#define SHMTRACE__CT_s8 int8_t
#define SHMTRACE__CT_s16 int16_t
#define SHMTRACE__CT_s32 int32_t
#define SHMTRACE__CT_s64 int64_t
#define SHMTRACE__TY_u8 SHMTRACE_TYPE_U8
#define SHMTRACE__TY_u16 SHMTRACE_TYPE_U16
#define SHMTRACE__TY_u32 SHMTRACE_TYPE_U32
#define SHMTRACE__TY_u64 SHMTRACE_TYPE_U64
#define SHMTRACE__TY_s8 SHMTRACE_TYPE_S8
#define SHMTRACE__TY_s16 SHMTRACE_TYPE_S16
#define SHMTRACE__TY_s32 SHMTRACE_TYPE_S32
#define SHMTRACE__TY_s64 SHMTRACE_TYPE_S64

/*
 * Preprocessor iteration over up to 16 fields. The list handed to these
 * macros always starts with the event's log level, so it is never empty and
 * no compiler extension is needed; the maps skip that first element.
 */
#define SHMTRACE__CAT_(a, b) a##b
#define SHMTRACE__CAT(a, b) SHMTRACE__CAT_(a, b)
#define SHMTRACE__NARG(...) SHMTRACE__NARG_(__VA_ARGS__, 17, 16, 15, 14, 13, 12, 11, \
	10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMTRACE__NARG_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, \
	a15, a16, a17, N, ...) N
#define SHMTRACE__FIRST(...) SHMTRACE__FIRST_(__VA_ARGS__, ~)
#define SHMTRACE__FIRST_(a, ...) a

/* op applied to each field */
#define SHMTRACE__MAP(op, ...) \
	SHMTRACE__CAT(SHMTRACE__MAP_, SHMTRACE__NARG(__VA_ARGS__))(op, __VA_ARGS__)
#define SHMTRACE__MAP_1(op, l)
#define SHMTRACE__MAP_2(op, l, a) op a
#define SHMTRACE__MAP_3(op, l, a, ...) op a SHMTRACE__MAP_2(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_4(op, l, a, ...) op a SHMTRACE__MAP_3(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_5(op, l, a, ...) op a SHMTRACE__MAP_4(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_6(op, l, a, ...) op a SHMTRACE__MAP_5(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_7(op, l, a, ...) op a SHMTRACE__MAP_6(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_8(op, l, a, ...) op a SHMTRACE__MAP_7(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_9(op, l, a, ...) op a SHMTRACE__MAP_8(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_10(op, l, a, ...) op a SHMTRACE__MAP_9(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_11(op, l, a, ...) op a SHMTRACE__MAP_10(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_12(op, l, a, ...) op a SHMTRACE__MAP_11(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_13(op, l, a, ...) op a SHMTRACE__MAP_12(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_14(op, l, a, ...) op a SHMTRACE__MAP_13(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_15(op, l, a, ...) op a SHMTRACE__MAP_14(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_16(op, l, a, ...) op a SHMTRACE__MAP_15(op, l, __VA_ARGS__)
#define SHMTRACE__MAP_17(op, l, a, ...) op a SHMTRACE__MAP_16(op, l, __VA_ARGS__)

/* the emit function's parameters: comma-separated, or void */
#define SHMTRACE__PARAMS(...) \
	SHMTRACE__CAT(SHMTRACE__PL_, SHMTRACE__NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMTRACE__PL_1(l) void
#define SHMTRACE__PL_2(l, a) SHMTRACE__PARAM a
#define SHMTRACE__PL_3(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_2(l, __VA_ARGS__)
#define SHMTRACE__PL_4(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_3(l, __VA_ARGS__)
#define SHMTRACE__PL_5(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_4(l, __VA_ARGS__)
#define SHMTRACE__PL_6(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_5(l, __VA_ARGS__)
#define SHMTRACE__PL_7(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_6(l, __VA_ARGS__)
#define SHMTRACE__PL_8(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_7(l, __VA_ARGS__)
#define SHMTRACE__PL_9(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_8(l, __VA_ARGS__)
#define SHMTRACE__PL_10(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_9(l, __VA_ARGS__)
#define SHMTRACE__PL_11(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_10(l, __VA_ARGS__)
#define SHMTRACE__PL_12(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_11(l, __VA_ARGS__)
#define SHMTRACE__PL_13(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_12(l, __VA_ARGS__)
#define SHMTRACE__PL_14(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_13(l, __VA_ARGS__)
#define SHMTRACE__PL_15(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_14(l, __VA_ARGS__)
#define SHMTRACE__PL_16(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_15(l, __VA_ARGS__)
#define SHMTRACE__PL_17(l, a, ...) SHMTRACE__PARAM a, SHMTRACE__PL_16(l, __VA_ARGS__)

#define SHMTRACE__PARAM(k, n, T, ty) SHMTRACE__PARAM_##k(n, T)
#define SHMTRACE__PARAM_FIX(n, T) T n
#define SHMTRACE__PARAM_PTR(n, T) T n
#define SHMTRACE__PARAM_STR(n, T) T n
#define SHMTRACE__PARAM_SEQ(n, T) const T *n, uint32_t n##_len

/* Field descriptors. */
#define SHMTRACE__DESC(k, n, T, ty) { #n, (uint32_t)(ty), 0 },

/* Payload size: declares the locals the writer uses. */
#define SHMTRACE__LEN(k, n, T, ty) SHMTRACE__LEN_##k(n, T)
#define SHMTRACE__LEN_FIX(n, T) const uint64_t shmtrace__l_##n = sizeof(T);
#define SHMTRACE__LEN_PTR(n, T) const uint64_t shmtrace__l_##n = 8;
#define SHMTRACE__LEN_STR(n, T) \
	const char *const shmtrace__s_##n = (n) ? (n) : "(null)"; \
	const uint64_t shmtrace__l_##n = shmtrace__strsize(shmtrace__s_##n);
#define SHMTRACE__LEN_SEQ(n, T) \
	const uint64_t shmtrace__l_##n = 4 + (uint64_t)n##_len * sizeof(T);
#define SHMTRACE__SUM(k, n, T, ty) + shmtrace__l_##n

/* Field writers. */
#define SHMTRACE__PUT(k, n, T, ty) SHMTRACE__PUT_##k(n, T)
#define SHMTRACE__PUT_FIX(n, T) { T shmtrace__v = (n); \
	__builtin_memcpy(shmtrace__p, &shmtrace__v, sizeof(T)); shmtrace__p += sizeof(T); }
#define SHMTRACE__PUT_PTR(n, T) { uint64_t shmtrace__v = (uint64_t)(uintptr_t)(n); \
	__builtin_memcpy(shmtrace__p, &shmtrace__v, 8); shmtrace__p += 8; }
#define SHMTRACE__PUT_STR(n, T) { shmtrace__copy(shmtrace__p, shmtrace__s_##n, \
	shmtrace__l_##n - 1); shmtrace__p[shmtrace__l_##n - 1] = 0; shmtrace__p += shmtrace__l_##n; }
#define SHMTRACE__PUT_SEQ(n, T) { __builtin_memcpy(shmtrace__p, &n##_len, 4); \
	shmtrace__copy(shmtrace__p + 4, n, shmtrace__l_##n - 4); shmtrace__p += shmtrace__l_##n; }

/* Filter values: one struct shmtrace__fval per field, in order. */
#define SHMTRACE__FVAL(k, n, T, ty) SHMTRACE__FVAL_##k(n, T) shmtrace__fp++;
#define SHMTRACE__FVAL_FIX(n, T) { T shmtrace__v = (n); shmtrace__fp->u = 0; \
	memcpy(&shmtrace__fp->u, &shmtrace__v, sizeof(T)); }
#define SHMTRACE__FVAL_PTR(n, T) shmtrace__fp->u = (uint64_t)(uintptr_t)(n);
#define SHMTRACE__FVAL_STR(n, T) shmtrace__fp->s = shmtrace__s_##n;
#define SHMTRACE__FVAL_SEQ(n, T) shmtrace__fp->u = n##_len;

/*
 * Aggregation values (ABI 5 plans): one u64 per field, in order, then a 0:
 * a field's bits, those of a signed integer narrower than 64 bits
 * sign-extended (as libshmtrace reads the field's type; at compile time).
 */
#define SHMTRACE__SEXT(ty) ((ty) == SHMTRACE_TYPE_S8 ? 56 : (ty) == SHMTRACE_TYPE_S16 ? 48 : \
			    (ty) == SHMTRACE_TYPE_S32 ? 32 : 0)
#define SHMTRACE__AVAL(k, n, T, ty) SHMTRACE__AVAL_##k(n, T, ty) shmtrace__ap++;
#define SHMTRACE__AVAL_FIX(n, T, ty) { T shmtrace__v = (n); uint64_t shmtrace__u = 0; \
	__builtin_memcpy(&shmtrace__u, &shmtrace__v, sizeof(T)); \
	*shmtrace__ap = SHMTRACE__SEXT(ty) ? (uint64_t)((int64_t)(shmtrace__u << \
		SHMTRACE__SEXT(ty)) >> SHMTRACE__SEXT(ty)) : shmtrace__u; }
#define SHMTRACE__AVAL_PTR(n, T, ty) *shmtrace__ap = (uint64_t)(uintptr_t)(n);
#define SHMTRACE__AVAL_STR(n, T, ty) *shmtrace__ap = 0;
#define SHMTRACE__AVAL_SEQ(n, T, ty) *shmtrace__ap = n##_len;

#define SHMTRACE__EV(p, n) shmtrace__ev_##p##__##n
#define SHMTRACE__EMIT(p, n) shmtrace__emit_##p##__##n

/*
 * SHMTRACE_EVENT(provider, name, loglevel, fields...) - define an event.
 * Put it in a header; it may be included by any number of files of any
 * number of modules. At most 16 fields; none is fine.
 */
#define SHMTRACE_EVENT(prov, ev, ...) \
static const struct shmtrace_field_desc shmtrace__fields_##prov##__##ev[] = { \
	SHMTRACE__MAP(SHMTRACE__DESC, __VA_ARGS__) { 0, 0, 0 } }; \
__attribute__((weak, visibility("hidden"))) struct shmtrace_event SHMTRACE__EV(prov, ev) = { \
	0, 0, 0, 0, SHMTRACE_ABI_VERSION, 0, #prov, #ev, (SHMTRACE__FIRST(__VA_ARGS__)), \
	(uint32_t)SHMTRACE__NARG(__VA_ARGS__) - 1, shmtrace__fields_##prov##__##ev }; \
static struct shmtrace_event *const shmtrace__evp_##prov##__##ev \
	__attribute__((used, section("shmtrace_events"), aligned(sizeof(void *)))) = \
	&SHMTRACE__EV(prov, ev); \
static void SHMTRACE__NOINSTR __attribute__((constructor)) shmtrace__init_##prov##__##ev(void) \
{ \
	shmtrace__module_init(); \
} \
static void SHMTRACE__NOINSTR __attribute__((destructor)) shmtrace__fini_##prov##__##ev(void) \
{ \
	shmtrace__module_fini(); \
} \
static __attribute__((noinline, unused)) SHMTRACE__NOINSTR void \
SHMTRACE__EMIT(prov, ev)(SHMTRACE__PARAMS(__VA_ARGS__)) \
{ \
	struct shmtrace__tls *shmtrace__t = &shmtrace__tls; \
	unsigned int shmtrace__mask = SHMTRACE__EV(prov, ev).enabled; \
	unsigned int shmtrace__fired = 0; \
	uint64_t shmtrace__ts = 0; \
	const struct shmtrace__aggp *shmtrace__a; \
	SHMTRACE__MAP(SHMTRACE__LEN, __VA_ARGS__) \
	const uint64_t shmtrace__size = 0 SHMTRACE__MAP(SHMTRACE__SUM, __VA_ARGS__); \
	/* nesting restored at the end to the value read here, not decremented: \
	 * a store that depends on no load, so that consecutive events do not \
	 * wait on each other's read-modify-writes (nested calls leave it as \
	 * they found it) */ \
	const uint32_t shmtrace__n = shmtrace__t->nesting; \
	shmtrace__t->nesting = shmtrace__n + 1; \
	if (__builtin_expect(shmtrace__n != 0, 0)) { \
		shmtrace__nested_drop_ev(&SHMTRACE__EV(prov, ev), shmtrace__mask); \
		goto out; \
	} \
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* nesting is set before any write */ \
	if (__builtin_expect(shmtrace__t->gen != *shmtrace__ctl_gen, 0)) { \
		shmtrace__resync(); /* may write events (a state dump) */ \
		shmtrace__mask = SHMTRACE__EV(prov, ev).enabled; \
	} \
	if (__builtin_expect(!(SHMTRACE__EV(prov, ev).filtered & shmtrace__mask), 1)) { \
		shmtrace__ts = shmtrace__clock(); \
	} else if ((shmtrace__a = shmtrace__agg_plan(shmtrace__t, SHMTRACE__EV(prov, ev).id))) { \
		/* the thread's plan: its aggregation updated here (ABI 5) */ \
		uint64_t shmtrace__av[SHMTRACE__NARG(__VA_ARGS__)] = { 0 }; \
		uint64_t *shmtrace__ap = shmtrace__av; \
		SHMTRACE__MAP(SHMTRACE__AVAL, __VA_ARGS__) \
		(void)shmtrace__ap; \
		if (!SHMTRACE__EV(prov, ev).polled) \
			/* recorded too: the clock first, read while the \
			 * table is updated */ \
			shmtrace__ts = shmtrace__clock(); \
		else \
			shmtrace__mask = 0;	/* aggregated, recorded nowhere */ \
		shmtrace__agg_update(shmtrace__a, shmtrace__av); \
	} else { \
		/* decided before the clock is read and any byte is copied */ \
		struct shmtrace__fval shmtrace__fv[SHMTRACE__NARG(__VA_ARGS__)]; \
		struct shmtrace__fval *shmtrace__fp = shmtrace__fv; \
		/* its own variable goes by address: the time stays in a register */ \
		uint64_t shmtrace__fts = 0; \
		SHMTRACE__MAP(SHMTRACE__FVAL, __VA_ARGS__) \
		(void)shmtrace__fp; \
		shmtrace__mask = shmtrace__filter_ts(&SHMTRACE__EV(prov, ev), shmtrace__mask, \
						     shmtrace__fv, &shmtrace__fts); \
		shmtrace__ts = shmtrace__fts; \
		if (__builtin_expect(shmtrace__mask >= SHMTRACE__FIRE, 0)) { \
			/* a trigger fired: told once the event is committed */ \
			shmtrace__fired = 1; \
			shmtrace__mask &= SHMTRACE__FIRE - 1; \
		} \
		if (!shmtrace__mask) \
			goto out; \
		if (!shmtrace__ts) /* else the aggregations' time: one read */ \
			shmtrace__ts = shmtrace__clock(); \
	} \
	while (shmtrace__mask) { \
		const unsigned int shmtrace__c = (unsigned int)__builtin_ctz(shmtrace__mask); \
		struct shmtrace__wbuf *const shmtrace__w = &shmtrace__t->w[shmtrace__c]; \
		const uint32_t shmtrace__id = SHMTRACE__EV(prov, ev).id; \
		struct shmtrace__commit *shmtrace__cm = shmtrace__w->commit; \
		uint64_t shmtrace__word = shmtrace__cm->word; \
		uint32_t shmtrace__h = shmtrace__hdr_size(shmtrace__id, shmtrace__ts, \
							  shmtrace__cm->last_ts); \
		uint32_t shmtrace__x = shmtrace__w->ctx; \
		/* where the event ends: the bounds check, then the commit */ \
		uint64_t shmtrace__e = (uint32_t)shmtrace__word + shmtrace__h + \
				       shmtrace__w->ctx_size + shmtrace__size; \
		char *shmtrace__p; \
		shmtrace__mask &= shmtrace__mask - 1; \
		if (__builtin_expect(shmtrace__e > shmtrace__w->end, 0)) { \
			/* a copy of the time is what goes by address, so that the \
			 * time itself stays in a register */ \
			uint64_t shmtrace__ts_slow = shmtrace__ts; \
			int shmtrace__ok = shmtrace__reserve_slow(shmtrace__c, \
				shmtrace__h + shmtrace__size, &shmtrace__ts_slow); \
			shmtrace__ts = shmtrace__ts_slow; \
			if (!shmtrace__ok) \
				continue; \
			/* maybe a new buffer: its context may differ */ \
			shmtrace__cm = shmtrace__w->commit; \
			shmtrace__word = __atomic_load_n(&shmtrace__cm->word, __ATOMIC_RELAXED); \
			shmtrace__h = shmtrace__hdr_size(shmtrace__id, shmtrace__ts, \
							 shmtrace__cm->last_ts); \
			shmtrace__x = shmtrace__w->ctx; \
			shmtrace__e = (uint32_t)shmtrace__word + shmtrace__h + \
				      shmtrace__w->ctx_size + shmtrace__size; \
			/* shared memory: never write where it does not fit */ \
			if (shmtrace__e > shmtrace__w->end) \
				continue; \
		} \
		shmtrace__p = shmtrace__put_hdr(shmtrace__w->data + (uint32_t)shmtrace__word, \
						shmtrace__h, shmtrace__id, shmtrace__ts); \
		if (__builtin_expect(shmtrace__x != 0, 0)) \
			shmtrace__p = shmtrace__put_ctx(shmtrace__p, shmtrace__x, shmtrace__t, \
							__builtin_return_address(0)); \
		SHMTRACE__MAP(SHMTRACE__PUT, __VA_ARGS__) \
		(void)shmtrace__p; \
		shmtrace__commit(shmtrace__cm, (uint32_t)shmtrace__e, \
				 (uint32_t)(shmtrace__word >> 32) + 1, shmtrace__ts); \
	} \
out: \
	if (__builtin_expect(shmtrace__fired, 0)) \
		shmtrace__fire(&SHMTRACE__EV(prov, ev), shmtrace__ts); \
	__atomic_signal_fence(__ATOMIC_SEQ_CST); \
	shmtrace__t->nesting = shmtrace__n; \
}

/*
 * shmtrace(provider, name, args...) - emit an event defined with
 * SHMTRACE_EVENT. Async-signal-safe, thread-safe, never blocks.
 *
 * The call site holds only the test of the enabled byte and a call of the
 * event's emit function, which is out of line: the disabled path is one
 * load and one branch whatever the compiler's register allocation, and an
 * instrumented function grows by a few bytes per event, not by a copy of
 * the writer. The empty asm after the call keeps it out of tail position,
 * so that the emit function's return address, recorded as the ip context,
 * lies in the function that called shmtrace().
 */
#define shmtrace(...) SHMTRACE__JOIN(SHMTRACE__DO, SHMTRACE__ARGS(__VA_ARGS__))(__VA_ARGS__)
/* (strict C before C23 wants an argument for a macro's "...": an event with
 * no field, shmtrace(prov, ev), is told apart by its count of arguments) */
#define SHMTRACE__ARGS(...) SHMTRACE__20TH(__VA_ARGS__, N, N, N, N, N, N, N, N, N, N, N, N, N, \
					   N, N, N, N, 0, _)
#define SHMTRACE__20TH(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, \
		       a16, a17, a18, a19, n, ...) n
#define SHMTRACE__JOIN(a, b) SHMTRACE__JOIN_(a, b)
#define SHMTRACE__JOIN_(a, b) a##b
#define SHMTRACE__DO0(prov, ev) SHMTRACE__CALL(prov, ev, ())
#define SHMTRACE__DON(prov, ev, ...) SHMTRACE__CALL(prov, ev, (__VA_ARGS__))
#define SHMTRACE__CALL(prov, ev, args) do { \
	if (__builtin_expect(SHMTRACE__EV(prov, ev).enabled != 0, 0)) { \
		SHMTRACE__EMIT(prov, ev) args; \
		__asm__ __volatile__(""); \
	} \
} while (0)

/*
 * shmtrace_enabled(provider, name) - nonzero when the event is recorded (in
 * a process without a doorbell signal, also when it is polled: shmtrace()
 * must then be called for control changes to be seen).
 */
#define shmtrace_enabled(prov, ev) (SHMTRACE__EV(prov, ev).enabled != 0)

#ifdef __cplusplus
}
#endif

#endif /* SHMTRACE_SHMTRACE_H */
