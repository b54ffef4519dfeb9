/* SPDX-License-Identifier: MIT */
/*
 * agg.h - aggregation tables: counts, sums, extrema, averages and
 * histograms kept where events happen, one table per thread and
 * aggregation, merged only when read.
 *
 * A table lives in shared memory written by one thread only (its owner),
 * with plain stores: no lock, no atomic read-modify-write. Readers in
 * other processes (the consumer) copy it under a sequence counter and
 * merge the copies; a table whose writer died in the middle of an update
 * is merged all the same, said as torn (at most one update half done).
 *
 * Table layout (little-endian; offsets in bytes):
 *    0  u32 magic          AGG_MAGIC
 *    4  u32 version        AGG_VERSION
 *    8  u64 seq            odd while the owner updates (see agg_update())
 *   16  u32 capacity       entries, a power of two
 *   20  u32 entry_size     bytes, a multiple of 8
 *   24  u32 used           entries holding a key
 *   28  u32 def_hash       agg_def_hash() of the definition it was made for
 *   32  u64 dropped        updates whose key found no room
 *   40  u64 updates        updates applied
 *   48  16 bytes reserved
 *   64  capacity entries:
 *         0  u32 tag       0 = empty, else the key's hash | 1
 *         4  u32 reserved
 *         8  the key: per key field 8 bytes (integer, as u64) or
 *            AGG_STR_KEY bytes (string, NUL-padded, cut at AGG_STR_KEY - 1)
 *            then per function its values (struct agg_geom has the offsets):
 *            count: u64; sum: s64 (wrapping); min, max: s64 (+ a u64 "set");
 *            avg: s64 sum, u64 count; quantize: AGG_QBUCKETS u64;
 *            lquantize: nbuckets + 2 u64 (under, buckets, over)
 *
 * Writer protocol (agg_update(), owner thread only): seq := seq + 1 (odd),
 * release fence, the entry's changes, release fence, seq := seq + 1. Reader
 * (agg_snapshot()): seq (acquire), copy, acquire fence, seq again; retried
 * while odd or changed, a bounded number of times.
 */
#ifndef SHMTRACE_COMMON_AGG_H
#define SHMTRACE_COMMON_AGG_H

#include <stddef.h>
#include <stdint.h>
#include <shmtrace/shmtrace.h>
#include "common/filter.h"

#define AGG_MAGIC		0x47474153u	/* "SAGG" */
#define AGG_VERSION		1
#define AGG_HDR			64
#define AGG_MAX_KEYS		4
#define AGG_MAX_FUNCS		8
#define AGG_STR_KEY		32
#define AGG_QBUCKETS		129		/* ..., -2..-3, -1, 0, 1, 2..3, ... */
#define AGG_MAX_LBUCKETS	1000		/* lquantize buckets, under/over apart */
#define AGG_MAX_ENTRY		65536
#define AGG_MAX_PROBE		64		/* entries looked at for a key */

enum agg_fn {
	AGG_COUNT, AGG_SUM, AGG_MIN, AGG_MAX, AGG_AVG, AGG_QUANTIZE, AGG_LQUANTIZE,
	AGG_NFN
};

enum agg_key_kind { AGG_KEY_INT, AGG_KEY_STR };

/* An aggregation, as defined (fixed-width: it crosses processes). */
struct agg_func {
	uint8_t fn;			/* enum agg_fn */
	uint8_t field;			/* index of its field in the update's values */
	uint16_t reserved;
	int32_t step;			/* lquantize */
	int64_t lo, hi;			/* lquantize: [lo, hi) in steps */
};
_Static_assert(sizeof(struct agg_func) == 24, "agg func");

struct agg_def {
	uint8_t nkeys, nfuncs;
	uint8_t key_kind[AGG_MAX_KEYS];	/* enum agg_key_kind */
	uint8_t key_field[AGG_MAX_KEYS];	/* index in the update's values */
	uint8_t reserved[6];
	struct agg_func f[AGG_MAX_FUNCS];
};
_Static_assert(sizeof(struct agg_def) == 16 + 24 * AGG_MAX_FUNCS, "agg def");

/* Where things are in an entry, from a checked definition. */
struct agg_geom {
	uint32_t key_off[AGG_MAX_KEYS];
	uint32_t key_bytes;
	uint32_t val_off[AGG_MAX_FUNCS];
	uint32_t nbuckets[AGG_MAX_FUNCS];	/* quantize and lquantize */
	uint32_t entry_size;
};

/* Check @d and compute its geometry. 0 or -EINVAL. */
int agg_geom(const struct agg_def *d, struct agg_geom *g);
/* A hash of the definition (tables made for another are not merged). */
uint32_t agg_def_hash(const struct agg_def *d);
/* Bytes of a table of @capacity entries (a power of two). */
size_t agg_table_size(const struct agg_geom *g, uint32_t capacity);
/* Make an empty table in @mem (agg_table_size() bytes, zeroed). */
void agg_table_init(void *mem, const struct agg_def *d, const struct agg_geom *g,
		    uint32_t capacity);

/*
 * Apply one event: its keys and function arguments are taken from
 * @vals by index (a missing or non-integer argument counts as 0; a
 * missing key as 0 or ""). Owner thread only; async-signal-safe but not
 * reentrant (the caller keeps signal handlers out, as for events).
 * A key is looked for in at most AGG_MAX_PROBE entries from its hash, so
 * that an update costs the same in a full table: a table of up to that
 * many entries holds as many keys; a larger one may drop a new key when
 * it is past about three quarters full.
 * Returns 0, or -ENOSPC when the key found no room (counted as dropped).
 */
int agg_update(void *table, const struct agg_def *d, const struct agg_geom *g,
	       const struct flt_value *vals, unsigned int nvals);

/*
 * The plan of one thread's updates of @table (@capacity entries, a power
 * of two) for the emit function (struct shmtrace__aggp, ABI 5), which
 * then does what agg_update_key() does, inline, for an event of @nfields
 * fields: the key from field @key, each function's argument from field
 * @asrc[k] (-1: none, 0), as integers (signed ones narrower than 64 bits
 * sign-extended: the emit function does it, as the field's type says).
 * @d and @g checked by agg_geom(). 0, or -EINVAL for an update a plan
 * cannot make (not one integer key, lquantize). out->id is the caller's
 * to set (0 in a plan it makes).
 */
int agg_plan(const struct agg_def *d, const struct agg_geom *g, void *table, uint32_t capacity,
	     unsigned int nfields, int key, const int8_t *asrc, struct shmtrace__aggp *out);

/*
 * Function profiles (an aggregation with SHM_AGG_PROFILE): what an event
 * does to the shadow stack of function calls, by its provider and name.
 */
enum agg_role { AGG_ROLE_NONE, AGG_ROLE_ENTRY, AGG_ROLE_EXIT, AGG_ROLE_ALLOC };
enum agg_role agg_profile_role(const char *provider, const char *name);
/*
 * A profile's definition: keys "$ctx.vpid" and "addr" (the function), then
 * one sum per name of agg_profile_sums, in this order: calls, total and
 * self time (ns), bytes and allocations in the function itself, and with
 * its callees.
 */
#define AGG_PROFILE_NSUMS	7
extern const char *const agg_profile_sums[AGG_PROFILE_NSUMS];

/*
 * The table in shared memory, as its writer (agg_update()) and its
 * readers (support/aggmerge.c) see it: this header, then the entries,
 * each AGG_ENTRY_KEY bytes of tag and state, then its key, then its
 * functions' values (struct agg_geom). Values are 8-byte words, read and
 * written with memcpy (an entry's size is a multiple of 8, not its
 * alignment).
 */
struct agg_hdr {
	uint32_t magic, version;
	uint64_t seq;
	uint32_t capacity, entry_size, used, def_hash;
	uint64_t dropped, updates;
	uint8_t reserved[16];
};
_Static_assert(sizeof(struct agg_hdr) == AGG_HDR, "agg hdr");
_Static_assert(offsetof(struct agg_hdr, seq) == 8, "agg seq");
_Static_assert(offsetof(struct agg_hdr, capacity) == 16, "agg capacity");
_Static_assert(offsetof(struct agg_hdr, dropped) == 32, "agg dropped");
_Static_assert(offsetof(struct agg_hdr, updates) == 40, "agg updates");

#define AGG_ENTRY_KEY	8

/* A key's hash (never 0): keys are whole 8-byte words, hashed a word at a time. */
static inline uint32_t agg_key_tag(const char *key, uint32_t len)
{
	uint64_t h = SHMTRACE__AGG_H0;	/* the emit function's hash (shmtrace.h) */

	for (uint32_t i = 0; i < len; i += 8) {
		uint64_t w;

		__builtin_memcpy(&w, key + i, 8);
		h = shmtrace__agg_mix(h, w);
	}
	return (uint32_t)h | 1;
}

static inline int agg_key_eq(const char *a, const char *b, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 8) {
		uint64_t x, y;

		__builtin_memcpy(&x, a + i, 8);
		__builtin_memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	return 1;
}

static inline int64_t agg_ld(const char *p)
{
	int64_t v;

	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline void agg_st(char *p, int64_t v)
{
	__builtin_memcpy(p, &v, 8);
}

static inline void agg_add(char *p, int64_t v)
{
	agg_st(p, (int64_t)((uint64_t)agg_ld(p) + (uint64_t)v));
}

/* DTrace's quantize: the bucket of @v (0..AGG_QBUCKETS-1) and its range. */
static inline unsigned int agg_qbucket(int64_t v)
{
	return shmtrace__agg_qbucket(v);	/* the emit function's (shmtrace.h) */
}
void agg_qrange(unsigned int b, int64_t *lo, int64_t *hi);
/* lquantize: 0 below lo, 1 + (v - lo) / step, nbuckets + 1 from hi on. */
unsigned int agg_lbucket(const struct agg_func *f, int64_t v);

/* Function @i's values in entry @e for argument @v (@g from agg_geom()). */
static inline void agg_apply(const struct agg_func *f, const struct agg_geom *g, unsigned int i,
			     char *e, int64_t v)
{
	char *p = e + g->val_off[i];

	switch (f->fn) {
	case AGG_COUNT:
		agg_add(p, 1);
		break;
	case AGG_SUM:
		if (v)		/* a profile's sums are mostly 0 */
			agg_add(p, v);
		break;
	case AGG_MIN:
	case AGG_MAX:
		if (!agg_ld(p + 8) || (f->fn == AGG_MIN ? v < agg_ld(p) : v > agg_ld(p)))
			agg_st(p, v);
		agg_st(p + 8, 1);
		break;
	case AGG_AVG:
		agg_add(p, v);
		agg_add(p + 8, 1);
		break;
	case AGG_QUANTIZE:
		agg_add(p + 8 * agg_qbucket(v), 1);
		break;
	case AGG_LQUANTIZE:
		/* g->nbuckets[i]: agg_lbucket()'s, computed once by agg_geom() */
		agg_add(p + 8 * (v < f->lo ? 0 : v >= f->hi ? g->nbuckets[i] + 1 :
				 1 + (unsigned int)(((uint64_t)v - (uint64_t)f->lo) /
						    (uint64_t)f->step)), 1);
		break;
	}
}

/*
 * agg_update() with the key already made (g->key_bytes: per key 8 bytes,
 * an integer as u64, or AGG_STR_KEY bytes NUL-padded) and each function's
 * argument in @args (d->nfuncs of them): what a caller that has the
 * values as integers calls, inline, so that nothing is converted twice
 * and the key is hashed once. The writer protocol is agg_update()'s.
 * agg_update_kb(): the same with the key's length (g->key_bytes) as an
 * argument, for callers that know it at compile time (one integer key:
 * the hash and the compare are then a single round).
 */
static inline __attribute__((always_inline)) int
agg_update_kb(void *table, const struct agg_def *d, const struct agg_geom *g, const char *key,
	      uint32_t key_bytes, const int64_t *args)
{
	struct agg_hdr *h = (struct agg_hdr *)table;
	char *base = (char *)table + AGG_HDR, *e = NULL;
	uint32_t mask = h->capacity - 1, tag = agg_key_tag(key, key_bytes), i;
	uint32_t probes = mask < AGG_MAX_PROBE ? mask + 1 : AGG_MAX_PROBE;
	uint64_t seq = h->seq;

	for (i = 0; i < probes; i++) {
		char *c = base + (size_t)((tag + i) & mask) * g->entry_size;
		uint32_t t;

		__builtin_memcpy(&t, c, 4);
		if (t == 0 || (t == tag && agg_key_eq(c + AGG_ENTRY_KEY, key, key_bytes))) {
			e = c;
			break;
		}
	}
	__atomic_store_n(&h->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (__builtin_expect(!e, 0)) {
		h->dropped++;
	} else {
		if (__builtin_expect(!*(uint32_t *)(void *)e, 0)) {
			__builtin_memcpy(e + AGG_ENTRY_KEY, key, key_bytes);
			__atomic_store_n((uint32_t *)(void *)e, tag, __ATOMIC_RELAXED);
			h->used++;
		}
		for (unsigned int k = 0; k < d->nfuncs; k++)
			agg_apply(&d->f[k], g, k, e, args[k]);
		h->updates++;
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&h->seq, seq + 2, __ATOMIC_RELAXED);
	return e ? 0 : -1;
}

static inline int agg_update_key(void *table, const struct agg_def *d, const struct agg_geom *g,
				 const char *key, const int64_t *args)
{
	return agg_update_kb(table, d, g, key, g->key_bytes, args);
}

#endif
