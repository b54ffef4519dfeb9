/* SPDX-License-Identifier: MIT */
/*
 * lfht.h - the daemons' tables of objects by key: liburcu's lock-free
 * hash tables (cds_lfht, memb flavour), made, searched and destroyed one
 * way. Header only, and for the daemons only: the traced process does not
 * link liburcu (doc/architecture.md says why).
 *
 * A reader holds urcu_memb_read_lock() across lfht_find() and its use of
 * the object found; an object leaves its table with cds_lfht_del() and is
 * freed with call_rcu(), so that a reader never sees freed memory;
 * lfht_destroy() waits for those frees first.
 */
#ifndef SHMTRACE_COMMON_LFHT_H
#define SHMTRACE_COMMON_LFHT_H

#include <errno.h>
#include <urcu/urcu-memb.h>
#include <urcu/rculfhash.h>

/* A table of @size buckets to begin with, growing and shrinking with its
 * number of nodes; NULL when out of memory. */
static inline struct cds_lfht *lfht_new(unsigned long size)
{
	return cds_lfht_new_flavor(size, size, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				   &urcu_memb_flavor, NULL);
}

/* After the deferred frees: @ht (may be NULL) destroyed; 0, or -EBUSY
 * when nodes are left in it. */
static inline int lfht_destroy(struct cds_lfht *ht)
{
	urcu_memb_barrier();
	return ht && cds_lfht_destroy(ht, NULL) < 0 ? -EBUSY : 0;
}

/* The first node of @ht of hash @hash that @match finds equal to @key, or
 * NULL. Under the read lock. */
static inline struct cds_lfht_node *lfht_find(struct cds_lfht *ht, unsigned long hash,
					      cds_lfht_match_fct match, const void *key)
{
	struct cds_lfht_iter it;

	cds_lfht_lookup(ht, hash, match, key, &it);
	return cds_lfht_iter_get_node(&it);
}

#endif
