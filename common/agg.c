// SPDX-License-Identifier: MIT
/*
 * agg.c - aggregation tables (agg.h has the layout and the protocol).
 *
 * Invariants:
 * - A table has one writer, its owner thread, which updates it with plain
 *   stores inside an odd sequence number (release fences around the
 *   changes); nothing else writes it. A crash at any point leaves either a
 *   consistent table (even seq) or one with at most the update in progress
 *   half applied (odd seq): readers merge it and count it as torn.
 * - An entry's tag is written last when a key is inserted; the probe
 *   sequence is linear and never longer than the capacity; a key that
 *   finds every slot taken is dropped and counted, so that
 *   updates applied + dropped = updates asked.
 * - Readers trust nothing in the shared copy beyond what they check:
 *   magic, version, definition hash, capacity and entry size against their
 *   own geometry; used and tags are only hints (every slot is scanned).
 * - Merged results hold each printed key once: string keys are cut at their
 *   first NUL when merged, whatever bytes a damaged table has after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "agg.h"

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

#define ENTRY_KEY	8

static uint32_t fn_values(const struct agg_func *f, uint32_t *nbuckets)
{
	*nbuckets = 0;
	switch (f->fn) {
	case AGG_COUNT:
	case AGG_SUM:
		return 1;
	case AGG_MIN:
	case AGG_MAX:
	case AGG_AVG:
		return 2;
	case AGG_QUANTIZE:
		*nbuckets = AGG_QBUCKETS;
		return AGG_QBUCKETS;
	case AGG_LQUANTIZE: {
		int64_t span;

		if (f->step <= 0 || f->hi <= f->lo ||
		    __builtin_sub_overflow(f->hi, f->lo, &span) ||
		    (span + f->step - 1) / f->step > AGG_MAX_LBUCKETS)
			return 0;
		*nbuckets = (uint32_t)((span + f->step - 1) / f->step);
		return *nbuckets + 2;
	}
	default:
		return 0;
	}
}

int agg_geom(const struct agg_def *d, struct agg_geom *g)
{
	uint32_t off = ENTRY_KEY;

	memset(g, 0, sizeof(*g));
	if (d->nkeys > AGG_MAX_KEYS || d->nfuncs == 0 || d->nfuncs > AGG_MAX_FUNCS)
		return -EINVAL;
	for (unsigned int i = 0; i < d->nkeys; i++) {
		if (d->key_kind[i] != AGG_KEY_INT && d->key_kind[i] != AGG_KEY_STR)
			return -EINVAL;
		g->key_off[i] = off;
		off += d->key_kind[i] == AGG_KEY_STR ? AGG_STR_KEY : 8;
	}
	g->key_bytes = off - ENTRY_KEY;
	for (unsigned int i = 0; i < d->nfuncs; i++) {
		uint32_t n = fn_values(&d->f[i], &g->nbuckets[i]);

		if (!n)
			return -EINVAL;
		g->val_off[i] = off;
		off += 8 * n;
	}
	if (off > AGG_MAX_ENTRY)
		return -EINVAL;
	g->entry_size = off;
	return 0;
}

uint32_t agg_def_hash(const struct agg_def *d)
{
	const unsigned char *p = (const unsigned char *)d;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*d); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

size_t agg_table_size(const struct agg_geom *g, uint32_t capacity)
{
	return AGG_HDR + (size_t)capacity * g->entry_size;
}

void agg_table_init(void *mem, const struct agg_def *d, const struct agg_geom *g,
		    uint32_t capacity)
{
	struct agg_hdr *h = mem;

	h->magic = AGG_MAGIC;
	h->version = AGG_VERSION;
	h->capacity = capacity;
	h->entry_size = g->entry_size;
	h->def_hash = agg_def_hash(d);
}

const char *const agg_profile_sums[AGG_PROFILE_NSUMS] = {
	"$calls", "$total_ns", "$self_ns", "$bytes", "$allocs", "$bytes_total", "$allocs_total",
};

enum agg_role agg_profile_role(const char *provider, const char *name)
{
	static const char *const allocs[] = {
		"malloc", "calloc", "realloc", "memalign", "posix_memalign", "aligned_alloc",
		"valloc", "pvalloc",
	};

	if (!strcmp(provider, "shmtrace_func"))
		return !strcmp(name, "entry") ? AGG_ROLE_ENTRY :
		       !strcmp(name, "exit") ? AGG_ROLE_EXIT : AGG_ROLE_NONE;
	if (strcmp(provider, "shmtrace_libc"))
		return AGG_ROLE_NONE;
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (!strcmp(name, allocs[i]))
			return AGG_ROLE_ALLOC;
	return AGG_ROLE_NONE;
}

unsigned int agg_qbucket(int64_t v)
{
	unsigned int lg;

	if (v == 0)
		return AGG_QBUCKETS / 2;
	if (v > 0) {
		lg = 63 - (unsigned int)__builtin_clzll((uint64_t)v);
		return AGG_QBUCKETS / 2 + 1 + lg;
	}
	lg = 63 - (unsigned int)__builtin_clzll(-(uint64_t)v);	/* INT64_MIN: 63 */
	return AGG_QBUCKETS / 2 - 1 - lg;
}

void agg_qrange(unsigned int b, int64_t *lo, int64_t *hi)
{
	const unsigned int z = AGG_QBUCKETS / 2;

	if (b == z) {
		*lo = *hi = 0;
	} else if (b > z) {
		unsigned int lg = b - z - 1;

		*lo = (int64_t)(1ull << lg);
		*hi = lg == 63 ? INT64_MAX : (int64_t)((1ull << (lg + 1)) - 1);
	} else {
		unsigned int lg = z - 1 - b;

		*hi = lg == 63 ? INT64_MIN : -(int64_t)(1ull << lg);
		*lo = lg == 63 ? INT64_MIN : -(int64_t)((1ull << (lg + 1)) - 1);
	}
}

unsigned int agg_lbucket(const struct agg_func *f, int64_t v)
{
	uint32_t n;

	fn_values(f, &n);
	if (v < f->lo)
		return 0;
	if (v >= f->hi)
		return n + 1;
	return 1 + (unsigned int)(((uint64_t)v - (uint64_t)f->lo) / (uint64_t)f->step);
}

static inline int64_t arg_int(const struct flt_value *vals, unsigned int nvals, unsigned int i)
{
	if (i >= nvals)
		return 0;
	switch (vals[i].type) {
	case FLT_T_S64:
		return vals[i].s;
	case FLT_T_U64:
	case FLT_T_BOOL:
		return (int64_t)vals[i].u;
	case FLT_T_F64:
		return vals[i].d >= 9.2e18 ? INT64_MAX : vals[i].d <= -9.2e18 ? INT64_MIN :
		       (int64_t)vals[i].d;
	default:
		return 0;
	}
}

/* The key bytes of this event into @key (g->key_bytes). */
static void make_key(const struct agg_def *d, const struct agg_geom *g,
		     const struct flt_value *vals, unsigned int nvals, char *key)
{
	for (unsigned int i = 0; i < d->nkeys; i++) {
		char *k = key + g->key_off[i] - ENTRY_KEY;
		unsigned int f = d->key_field[i];

		if (d->key_kind[i] == AGG_KEY_STR) {
			const char *s = f < nvals && vals[f].type == FLT_T_STR && vals[f].str ?
					vals[f].str : "";

			memset(k, 0, AGG_STR_KEY);
			for (unsigned int j = 0; j < AGG_STR_KEY - 1 && s[j]; j++)
				k[j] = s[j];
		} else {
			uint64_t v = (uint64_t)arg_int(vals, nvals, f);

			memcpy(k, &v, 8);
		}
	}
}

_Static_assert(AGG_STR_KEY % 8 == 0, "keys are whole words");

/* A key's hash (never 0): keys are whole 8-byte words, hashed a word at a time. */
static inline uint32_t key_tag(const char *key, uint32_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < len; i += 8) {
		uint64_t w;

		memcpy(&w, key + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (uint32_t)h | 1;
}

static inline int key_eq(const char *a, const char *b, uint32_t len)
{
	for (uint32_t i = 0; i < len; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	return 1;
}

static inline int64_t ld(const char *p)
{
	int64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void st(char *p, int64_t v)
{
	memcpy(p, &v, 8);
}

static inline void add(char *p, int64_t v)
{
	st(p, (int64_t)((uint64_t)ld(p) + (uint64_t)v));
}

/* One function's values in entry @e for argument @v. */
static void apply(const struct agg_func *f, const struct agg_geom *g, unsigned int i, char *e,
		  int64_t v)
{
	char *p = e + g->val_off[i];

	switch (f->fn) {
	case AGG_COUNT:
		add(p, 1);
		break;
	case AGG_SUM:
		add(p, v);
		break;
	case AGG_MIN:
	case AGG_MAX:
		if (!ld(p + 8) || (f->fn == AGG_MIN ? v < ld(p) : v > ld(p)))
			st(p, v);
		st(p + 8, 1);
		break;
	case AGG_AVG:
		add(p, v);
		add(p + 8, 1);
		break;
	case AGG_QUANTIZE:
		add(p + 8 * agg_qbucket(v), 1);
		break;
	case AGG_LQUANTIZE:
		add(p + 8 * agg_lbucket(f, v), 1);
		break;
	}
}

int agg_update(void *table, const struct agg_def *d, const struct agg_geom *g,
	       const struct flt_value *vals, unsigned int nvals)
{
	struct agg_hdr *h = table;
	char *base = (char *)table + AGG_HDR, key[AGG_MAX_KEYS * AGG_STR_KEY], *e = NULL;
	uint32_t mask = h->capacity - 1, tag, i;
	uint32_t probes = mask < AGG_MAX_PROBE ? mask + 1 : AGG_MAX_PROBE;
	uint64_t seq = h->seq;

	make_key(d, g, vals, nvals, key);
	tag = key_tag(key, g->key_bytes);
	for (i = 0; i < probes; i++) {
		char *c = base + (size_t)((tag + i) & mask) * g->entry_size;
		uint32_t t;

		memcpy(&t, c, 4);
		if (t == 0 || (t == tag && key_eq(c + ENTRY_KEY, key, g->key_bytes))) {
			e = c;
			break;
		}
	}
	__atomic_store_n(&h->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (!e) {
		h->dropped++;
	} else {
		if (!*(uint32_t *)(void *)e) {
			memcpy(e + ENTRY_KEY, key, g->key_bytes);
			__atomic_store_n((uint32_t *)(void *)e, tag, __ATOMIC_RELAXED);
			h->used++;
		}
		for (unsigned int k = 0; k < d->nfuncs; k++)
			apply(&d->f[k], g, k, e, arg_int(vals, nvals, d->f[k].field));
		h->updates++;
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&h->seq, seq + 2, __ATOMIC_RELAXED);
	return e ? 0 : -ENOSPC;
}

#define SNAPSHOT_TRIES	64

int agg_snapshot(const void *shm, size_t len, const struct agg_def *d,
		 const struct agg_geom *g, void *copy)
{
	const struct agg_hdr *h = shm;
	struct agg_hdr *c = copy;
	uint64_t s1 = 0, s2 = 1;
	size_t size;

	if (len < AGG_HDR)
		return -EINVAL;
	for (int i = 0; i < SNAPSHOT_TRIES; i++) {
		s1 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
		memcpy(copy, shm, len);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&h->seq, __ATOMIC_RELAXED);
		if (s1 == s2 && !(s1 & 1))
			break;
	}
	/* from here on only the private copy is looked at */
	if (c->magic != AGG_MAGIC || c->version != AGG_VERSION || c->def_hash != agg_def_hash(d) ||
	    c->entry_size != g->entry_size || !c->capacity || (c->capacity & (c->capacity - 1)))
		return -EINVAL;
	size = agg_table_size(g, c->capacity);
	if (size > len || size < AGG_HDR)
		return -EINVAL;
	return s1 == s2 && !(s1 & 1);
}

int agg_merged_init(struct agg_merged *m, const struct agg_def *d)
{
	memset(m, 0, sizeof(*m));
	m->def = d;
	return agg_geom(d, &m->geom);
}

void agg_merged_free(struct agg_merged *m)
{
	free(m->entries);
	free(m->index);
	m->entries = NULL;
	m->index = NULL;
	m->n = m->cap = m->icap = 0;
}

/*
 * The key of table entry @e as merged: string keys cut at their first NUL
 * (a damaged table may hold other bytes after it, or none), so that keys
 * that print alike are one entry.
 */
static void merged_key(const struct agg_merged *m, const char *e, char *key)
{
	const struct agg_def *d = m->def;

	memcpy(key, e + ENTRY_KEY, m->geom.key_bytes);
	for (unsigned int k = 0; k < d->nkeys; k++) {
		char *s = key + m->geom.key_off[k] - ENTRY_KEY;
		size_t n;

		if (d->key_kind[k] != AGG_KEY_STR)
			continue;
		n = strnlen(s, AGG_STR_KEY - 1);
		memset(s + n, 0, AGG_STR_KEY - n);
	}
}

/* The slot of @key in the index: its entry, or the empty slot for it. */
static uint32_t *index_slot(const struct agg_merged *m, const char *key)
{
	uint32_t tag = key_tag(key, m->geom.key_bytes);	/* not the copy's: untrusted */

	for (uint32_t i = 0;; i++) {
		uint32_t *s = &m->index[(tag + i) & (m->icap - 1)];

		if (!*s || key_eq(agg_entry(m, *s - 1) + ENTRY_KEY, key, m->geom.key_bytes))
			return s;
	}
}

/* Room for one more entry, the index at most half full. */
static int merged_grow(struct agg_merged *m)
{
	uint32_t cap = m->cap ? 2 * m->cap : 64;
	char *ne;

	if (m->n < m->cap)
		return 0;
	ne = realloc(m->entries, (size_t)cap * m->geom.entry_size);
	if (!ne)
		return -ENOMEM;
	m->entries = ne;
	m->cap = cap;
	free(m->index);
	m->icap = 2 * cap;
	m->index = calloc(m->icap, sizeof(*m->index));
	if (!m->index)
		return -ENOMEM;
	for (uint32_t j = 0; j < m->n; j++)
		*index_slot(m, agg_entry(m, j) + ENTRY_KEY) = j + 1;
	return 0;
}

/* Combine the values of entry @src into @dst. */
static void combine(const struct agg_merged *m, char *dst, const char *src)
{
	const struct agg_def *d = m->def;
	const struct agg_geom *g = &m->geom;

	for (unsigned int i = 0; i < d->nfuncs; i++) {
		char *p = dst + g->val_off[i];
		const char *q = src + g->val_off[i];
		uint32_t n = 1;

		switch (d->f[i].fn) {
		case AGG_MIN:
		case AGG_MAX:
			if (ld(q + 8) && (!ld(p + 8) || (d->f[i].fn == AGG_MIN ? ld(q) < ld(p) :
								       ld(q) > ld(p)))) {
				st(p, ld(q));
				st(p + 8, 1);
			}
			continue;
		case AGG_AVG:
			n = 2;
			break;
		case AGG_QUANTIZE:
			n = AGG_QBUCKETS;
			break;
		case AGG_LQUANTIZE:
			n = g->nbuckets[i] + 2;
			break;
		}
		for (uint32_t k = 0; k < n; k++)
			add(p + 8 * k, ld(q + 8 * k));
	}
}

/* Add entry @e (same geometry) to @m. */
static int merge_entry(struct agg_merged *m, const char *e)
{
	const struct agg_geom *g = &m->geom;
	char key[AGG_MAX_KEYS * AGG_STR_KEY];
	uint32_t *slot;

	if (merged_grow(m) < 0)
		return -ENOMEM;
	merged_key(m, e, key);
	slot = index_slot(m, key);
	if (!*slot) {
		char *ne = m->entries + (size_t)m->n * g->entry_size;

		memset(ne, 0, g->entry_size);
		memcpy(ne, e, ENTRY_KEY);
		memcpy(ne + ENTRY_KEY, key, g->key_bytes);
		*slot = ++m->n;
	}
	combine(m, m->entries + (size_t)(*slot - 1) * g->entry_size, e);
	return 0;
}

int agg_merge(struct agg_merged *m, const void *copy, int torn)
{
	const struct agg_hdr *h = copy;
	const char *base = (const char *)copy + AGG_HDR;

	for (uint32_t i = 0; i < h->capacity; i++) {
		const char *e = base + (size_t)i * m->geom.entry_size;
		uint32_t t;

		memcpy(&t, e, 4);
		if (t && merge_entry(m, e) < 0)
			return -ENOMEM;
	}
	m->dropped += h->dropped;
	m->updates += h->updates;
	m->torn += !!torn;
	return 0;
}

int agg_merged_add(struct agg_merged *m, const struct agg_merged *src)
{
	for (uint32_t i = 0; i < src->n; i++)
		if (merge_entry(m, agg_entry(src, i)) < 0)
			return -ENOMEM;
	m->dropped += src->dropped;
	m->updates += src->updates;
	m->torn += src->torn;
	m->lost += src->lost;
	return 0;
}
