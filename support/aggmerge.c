// SPDX-License-Identifier: MIT
/*
 * aggmerge.c - the readers of aggregation tables (aggmerge.h): a table
 * another process writes, copied and checked; copies merged into results
 * by key. The table's layout and its writer are common/agg.c's.
 *
 * Invariants:
 * - Nothing in the shared copy is trusted beyond what is checked: magic,
 *   version, definition hash, capacity and entry size against our own
 *   geometry; used and tags are only hints (every slot is scanned).
 * - A copy whose sequence number is odd, or changed while it was copied,
 *   SNAPSHOT_TRIES times in a row, is merged and counted as torn.
 * - Merged results hold each printed key once: string keys are cut at their
 *   first NUL when merged, whatever bytes a damaged table has after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/agg.h"
#include "support/aggmerge.h"

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

	memcpy(key, e + AGG_ENTRY_KEY, m->geom.key_bytes);
	for (unsigned int k = 0; k < d->nkeys; k++) {
		char *s = key + m->geom.key_off[k] - AGG_ENTRY_KEY;
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
	uint32_t tag = agg_key_tag(key, m->geom.key_bytes);	/* not the copy's: untrusted */

	for (uint32_t i = 0;; i++) {
		uint32_t *s = &m->index[(tag + i) & (m->icap - 1)];

		if (!*s || agg_key_eq(agg_entry(m, *s - 1) + AGG_ENTRY_KEY, key, m->geom.key_bytes))
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
		*index_slot(m, agg_entry(m, j) + AGG_ENTRY_KEY) = j + 1;
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
			if (agg_ld(q + 8) && (!agg_ld(p + 8) || (d->f[i].fn == AGG_MIN ? agg_ld(q) < agg_ld(p) :
								       agg_ld(q) > agg_ld(p)))) {
				agg_st(p, agg_ld(q));
				agg_st(p + 8, 1);
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
			agg_add(p + 8 * k, agg_ld(q + 8 * k));
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
		memcpy(ne, e, AGG_ENTRY_KEY);
		memcpy(ne + AGG_ENTRY_KEY, key, g->key_bytes);
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
