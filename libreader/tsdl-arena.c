/* SPDX-License-Identifier: MIT */
/*
 * tsdl-arena.c - the memory of one metadata parse (see tsdl-arena.h): an
 * arena of chunks, and the string maps that find names in constant time.
 *
 * Invariants:
 *  - every allocation of a parse (tokens' strings, types, maps, the
 *    result) comes from its arena; nothing is freed before the whole arena
 *    (tsdl_arena_free()), so pointers into it never dangle; a grown map
 *    leaves its old slots there (at most as much again);
 *  - a map's capacity is 0 or a power of two, at least twice its entries.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tsdl-arena.h"

struct tsdl_chunk {
	struct tsdl_chunk *next;
	size_t used;
	size_t cap;
	max_align_t data[];
};

void *tsdl_alloc(struct tsdl_chunk **arena, size_t size)
{
	struct tsdl_chunk *c = *arena;
	size_t a = sizeof(max_align_t);
	void *ret;

	size = (size + a - 1) / a * a;
	if (!size)
		size = a;
	if (!c || c->cap - c->used < size) {
		size_t cap = size > 32768 ? size : 32768;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *arena;
		c->used = 0;
		c->cap = cap;
		*arena = c;
	}
	ret = (unsigned char *)c->data + c->used;
	c->used += size;
	memset(ret, 0, size);
	return ret;
}

void tsdl_arena_free(struct tsdl_chunk *c)
{
	while (c) {
		struct tsdl_chunk *next = c->next;

		free(c);
		c = next;
	}
}

/* ---- string maps --------------------------------------------------------- */

static uint32_t tsdl_hash(const char *s)
{
	uint32_t h = 2166136261U;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619U;
	return h;
}

static struct tsdl_slot *tsdl_map_slot(const struct tsdl_map *m, const char *key)
{
	uint32_t i = tsdl_hash(key) & (m->cap - 1);

	while (m->slots[i].key && strcmp(m->slots[i].key, key))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

void *tsdl_map_get(const struct tsdl_map *m, const char *key)
{
	return m->cap ? tsdl_map_slot(m, key)->val : NULL;
}

int tsdl_map_put(struct tsdl_chunk **arena, struct tsdl_map *m,
		 const char *key, void *val, void **old)
{
	struct tsdl_slot *sl;

	if (m->n + 1 > m->cap / 2) {
		uint32_t cap = m->cap ? m->cap * 2 : 16, i;
		struct tsdl_map n = { NULL, cap, 0 };

		if (cap > (1U << 30))
			return -ENOMEM;
		n.slots = tsdl_alloc(arena, cap * sizeof(*n.slots));
		if (!n.slots)
			return -ENOMEM;
		for (i = 0; i < m->cap; i++) {
			if (m->slots[i].key)
				*tsdl_map_slot(&n, m->slots[i].key) = m->slots[i];
		}
		n.n = m->n;
		*m = n;
	}
	sl = tsdl_map_slot(m, key);
	if (old)
		*old = sl->val;
	if (!sl->key)
		m->n++;
	sl->key = key;
	sl->val = val;
	return 0;
}
