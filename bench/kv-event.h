/* SPDX-License-Identifier: MIT */
/*
 * kv-event.h - the event of the aggregation benchmark (aggregate.sh),
 * shared by its programs: a u64 key and a u64 value.
 *
 * bench_agg:kv { key, value } for a running count i: key = i & kmask (a
 * small set of keys, kmask + 1 a power of two, so that the tables stay in
 * cache), value = i & 0xfffff (the 21 power-of-two buckets of 0..2^20).
 */
#ifndef BENCH_KV_EVENT_H
#define BENCH_KV_EVENT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench_agg, kv, SHMTRACE_INFO,
	SHMTRACE_U64(key),
	SHMTRACE_U64(value))

/* keys - 1, from the environment: BENCH_KEYS (a power of two, default 16) */
static uint64_t bench_kmask = 15;

static __attribute__((constructor)) void bench_kv_init(void)
{
	const char *e = getenv("BENCH_KEYS");
	unsigned long k = e ? strtoul(e, NULL, 0) : 16;

	if (!k || (k & (k - 1))) {
		fprintf(stderr, "BENCH_KEYS: a power of two\n");
		exit(2);
	}
	bench_kmask = k - 1;
}

#define BENCH_KV(i) shmtrace(bench_agg, kv, (uint64_t)(i) & bench_kmask, \
			     (uint64_t)(i) & 0xfffffu)

#endif
