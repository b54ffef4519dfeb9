/* SPDX-License-Identifier: MIT */
/*
 * filter-cost - nanoseconds per event of one event (u64 seq, u32 thread),
 * emitted N times in a tight loop; the session decides whether it is
 * disabled, recorded, or refused by a filter (bench/filter-cost.sh).
 *
 * usage: filter-cost N
 * Prints: ns_per_event=X
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench_filter, ev, SHMTRACE_INFO,
	SHMTRACE_U64(seq),
	SHMTRACE_U32(thread))

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000, t0, t1;

	for (uint64_t i = 0; i < n / 10; i++)	/* warm-up: buffers, caches */
		shmtrace(bench_filter, ev, i, 1);
	t0 = now();
	for (uint64_t i = 0; i < n; i++)
		shmtrace(bench_filter, ev, i, 1);
	t1 = now();
	printf("ns_per_event=%.2f\n", (double)(t1 - t0) / (double)n);
	return 0;
}
