/* SPDX-License-Identifier: MIT */
/*
 * htab.h - a plain hash table of objects by a 64-bit key's hash (htab.c).
 *
 * Chained and intrusive: an object embeds a struct hnode per table it is
 * in, so adding and removing never allocate and take constant time; the
 * bucket array doubles when the table holds twice as many nodes as
 * buckets (the daemon keeps working with longer chains when that
 * allocation fails). No locking: the session daemon has one thread.
 */
#ifndef SHMTRACE_SESSIOND_HTAB_H
#define SHMTRACE_SESSIOND_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct hnode {
	struct hnode *next, **pprev;
	uint64_t hash;
};

struct htab {
	struct hnode **b;
	size_t nb;			/* a power of two */
	size_t n;
};

/* An empty table of @nb buckets (rounded up to a power of two); 0 or -ENOMEM. */
int htab_init(struct htab *t, size_t nb);
/* @t freed; its nodes are the caller's. 0, or -EBUSY when nodes were left in it. */
int htab_fini(struct htab *t);
void htab_add(struct htab *t, struct hnode *n, uint64_t hash);
void htab_del(struct htab *t, struct hnode *n);
/* The first node of hash @hash, then htab_next(); NULL at the end. Hashes
 * of integer keys: hash_id() (common/util.h). */
struct hnode *htab_first(const struct htab *t, uint64_t hash);
struct hnode *htab_next(const struct hnode *n);

#define htab_entry(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif
