// SPDX-License-Identifier: MIT
/*
 * htab.c - the session daemon's hash tables (htab.h): traced processes by
 * pid. Owns only its bucket array; the nodes are in the objects, which
 * their owner frees after htab_del(). Nothing of it outlives the daemon.
 */
#include <errno.h>
#include <stdlib.h>
#include "htab.h"

int htab_init(struct htab *t, size_t nb)
{
	size_t n = 1;

	while (n < nb)
		n <<= 1;
	t->b = calloc(n, sizeof(*t->b));
	t->nb = t->b ? n : 0;
	t->n = 0;
	return t->b ? 0 : -ENOMEM;
}

int htab_fini(struct htab *t)
{
	int ret = t->n ? -EBUSY : 0;

	free(t->b);
	t->b = NULL;
	t->nb = 0;
	t->n = 0;
	return ret;
}

static void bucket_push(struct hnode **head, struct hnode *n)
{
	n->next = *head;
	if (n->next)
		n->next->pprev = &n->next;
	n->pprev = head;
	*head = n;
}

/* Twice the buckets; on no memory, the chains just grow. */
static void htab_grow(struct htab *t)
{
	size_t nb = t->nb * 2;
	struct hnode **b = calloc(nb, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < t->nb; i++) {
		struct hnode *n = t->b[i], *next;

		for (; n; n = next) {
			next = n->next;
			bucket_push(&b[n->hash & (nb - 1)], n);
		}
	}
	free(t->b);
	t->b = b;
	t->nb = nb;
}

void htab_add(struct htab *t, struct hnode *n, uint64_t hash)
{
	if (t->n >= 2 * t->nb)
		htab_grow(t);
	n->hash = hash;
	bucket_push(&t->b[hash & (t->nb - 1)], n);
	t->n++;
}

void htab_del(struct htab *t, struct hnode *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
	t->n--;
}

static struct hnode *from(struct hnode *n, uint64_t hash)
{
	while (n && n->hash != hash)
		n = n->next;
	return n;
}

struct hnode *htab_first(const struct htab *t, uint64_t hash)
{
	return t->nb ? from(t->b[hash & (t->nb - 1)], hash) : NULL;
}

struct hnode *htab_next(const struct hnode *n)
{
	return from(n->next, n->hash);
}
