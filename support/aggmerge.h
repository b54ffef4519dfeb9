/* SPDX-License-Identifier: MIT */
/*
 * aggmerge.h - reading aggregation tables (aggmerge.c): the consumer
 * copies each process's table and merges the copies by key; the results
 * are what show-aggregations and aggregations.json print. The tables
 * themselves are common/agg.h's.
 */
#ifndef SHMTRACE_SUPPORT_AGGMERGE_H
#define SHMTRACE_SUPPORT_AGGMERGE_H

#include <stddef.h>
#include <stdint.h>
#include "common/agg.h"

/*
 * Readers. agg_snapshot() copies the table at @shm (@len bytes mapped,
 * written by another process) into @copy (as many bytes) and checks it
 * against the definition: 1 consistent, 0 torn (its writer is gone or kept
 * it odd), -EINVAL when the header does not match (not merged).
 */
int agg_snapshot(const void *shm, size_t len, const struct agg_def *d,
		 const struct agg_geom *g, void *copy);

/* Merged results: a growing set of entries of the same geometry. */
struct agg_merged {
	const struct agg_def *def;
	struct agg_geom geom;
	char *entries;			/* n entries, entry_size each */
	uint32_t n, cap;
	uint32_t *index;		/* open addressing by tag: entry + 1, 0 empty */
	uint32_t icap;			/* a power of two, >= 2 * cap */
	uint64_t dropped, updates, torn;
	uint64_t lost;			/* updates never made: nested in a signal
					 * handler, during fork, no table to be had */
};

int agg_merged_init(struct agg_merged *m, const struct agg_def *d);
/* Add a checked copy (agg_snapshot() >= 0). 0 or -ENOMEM. */
int agg_merge(struct agg_merged *m, const void *copy, int torn);
/* Add merged results @src (the same definition) to @m. 0 or -ENOMEM. */
int agg_merged_add(struct agg_merged *m, const struct agg_merged *src);
void agg_merged_free(struct agg_merged *m);

/* Accessors of an entry (of a table or of merged results). */
static inline const char *agg_entry(const struct agg_merged *m, uint32_t i)
{
	return m->entries + (size_t)i * m->geom.entry_size;
}

static inline uint64_t agg_u64(const char *entry, uint32_t off)
{
	uint64_t v;

	__builtin_memcpy(&v, entry + off, 8);
	return v;
}

#endif
