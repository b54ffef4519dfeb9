/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE	/* sched_setaffinity, in harness.h */
/*
 * floor.c - the benchmark's floor: no tracer. Each "event" reads the clock
 * that shmtrace uses (shmtrace__clock(), from the public header, so that it
 * follows whatever clock shmtrace reads) and stores the bytes that shmtrace
 * would store - a 4-byte header, then the payload - into a thread-private
 * 1 MiB ring that stays in cache like a tracer's sub-buffer.
 * Only the header is used; the program does not link libshmtrace.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <shmtrace/shmtrace.h>

#define FLOOR_RING (1u << 20)

struct floor_ring {
	char *buf;
	uint32_t pos;
};

static __thread struct floor_ring floor_ring;

static void floor_thread_init(void)
{
	if (!floor_ring.buf) {
		floor_ring.buf = aligned_alloc(4096, FLOOR_RING);
		if (!floor_ring.buf)
			abort();
		memset(floor_ring.buf, 0, FLOOR_RING);	/* no page faults when timing */
	}
}

static inline void floor_emit(uint32_t id, int64_t v, const char *s)
{
	struct floor_ring *r = &floor_ring;
	uint64_t ts = shmtrace__clock();
	uint32_t slen = s ? (uint32_t)strlen(s) + 1 : 0;
	uint32_t size = 4 + 8 + slen;
	uint32_t hdr = id | (uint32_t)(ts << 8);
	char *p;

	if (__builtin_expect(r->pos + size > FLOOR_RING, 0))
		r->pos = 0;
	p = r->buf + r->pos;
	memcpy(p, &hdr, 4);
	memcpy(p + 4, &v, 8);
	if (s)
		memcpy(p + 12, s, slen);
	r->pos += size;
}

#define BENCH_TRACER "floor"
#define BENCH_EMIT_A(v) floor_emit(1, (v), NULL)
#define BENCH_EMIT_B(v, s) floor_emit(2, (v), (s))
#define BENCH_ENABLED() 1
#define BENCH_THREAD_INIT() floor_thread_init()
#define BENCH_NO_DISABLED 1

#include "harness.h"
