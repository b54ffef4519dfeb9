/* SPDX-License-Identifier: MIT */
/*
 * tsdl-arena.h - the memory of one metadata parse: an arena that frees
 * everything at once, and string maps in it (open addressing, from
 * NUL-terminated strings to pointers), so that metadata with many type
 * aliases, env keys or fields parses in linear time. Internal to the TSDL
 * parser (tsdl.h).
 */
#ifndef SHMTRACE_READER_TSDL_ARENA_H
#define SHMTRACE_READER_TSDL_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct tsdl_chunk;

/* @size bytes, zeroed and aligned for any type, from *@arena; NULL without memory. */
void *tsdl_alloc(struct tsdl_chunk **arena, size_t size);
/* Free the arena whose newest chunk is @c, with everything allocated from it. */
void tsdl_arena_free(struct tsdl_chunk *c);

struct tsdl_slot {
	const char *key;
	void *val;
};

struct tsdl_map {
	struct tsdl_slot *slots;
	uint32_t cap;		/* 0 or a power of two */
	uint32_t n;
};

/* The value of @key, or NULL. */
void *tsdl_map_get(const struct tsdl_map *m, const char *key);
/*
 * Set @key to @val (non-NULL), the slots from *@arena; *@old (if given)
 * gets the value it had, or NULL. Returns 0, or -ENOMEM.
 */
int tsdl_map_put(struct tsdl_chunk **arena, struct tsdl_map *m,
		 const char *key, void *val, void **old);

#endif
