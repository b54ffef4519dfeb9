// SPDX-License-Identifier: MIT
/*
 * count.h - counters that a traced process writes in its own memory,
 * bounded before the consumer believes them (count.c).
 */
#ifndef SHMTRACE_CONSUMERD_COUNT_H
#define SHMTRACE_CONSUMERD_COUNT_H

#include <stdint.h>

/* What we believe of one counter. */
struct cnt {
	uint64_t val;			/* believed: never decreases */
	uint64_t raw;			/* the value read last */
	uint64_t at;			/* when (CLOCK_BOOTTIME ns) */
};

/* A counter of a process that started at @born (CLOCK_BOOTTIME ns), seen first now. */
void cnt_init(struct cnt *c, uint64_t born);
/*
 * @raw, just read from the process's memory at @now, for a counter that
 * can grow by @per_ns per nanosecond at most (one thread dropping an event
 * takes longer than that). Returns 1 when believed (c->val grows by what
 * it grew), 0 when not: it moved backwards or faster than possible; the
 * believed value stays and later growth counts from @raw.
 */
int cnt_see(struct cnt *c, uint64_t raw, uint64_t now, uint64_t per_ns);
/* CLOCK_BOOTTIME of a process start time in clock ticks since boot (/proc). */
uint64_t cnt_born(uint64_t starttime);
/* Now, in the clock cnt_see() takes. */
uint64_t cnt_now(void);

#endif
