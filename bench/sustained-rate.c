/* SPDX-License-Identifier: MIT */
/*
 * sustained-rate - one thread emits an event at a steady RATE events per
 * second for SECONDS seconds, paced in batches of 100 against
 * CLOCK_MONOTONIC, then prints the rate achieved. RATE 0: as fast as it
 * can for SECONDS seconds (the clock read every 1024 events).
 *
 * usage: sustained-rate [RATE [SECONDS [EVENT]]]
 *   EVENT b   bench:b, an int64 and a 16-character string (the default)
 *   EVENT kv  bench_agg:kv of kv-event.h, a u64 key and a u64 value
 *             (BENCH_KEYS keys, default 16)
 * Output, one line:
 *   emitted N events in T s: R million events per second; events=N
 *   seconds=T per_sec=R
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <shmtrace/shmtrace.h>
#include "kv-event.h"

SHMTRACE_EVENT(bench, b, SHMTRACE_INFO, SHMTRACE_S64(v), SHMTRACE_STRING(s))

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double rate = argc > 1 ? atof(argv[1]) : 10e6;
	double secs = argc > 2 ? atof(argv[2]) : 10;
	int kv = argc > 3 && !strcmp(argv[3], "kv");
	uint64_t total = (uint64_t)(rate * secs), i = 0, t0, t;

	if (argc > 3 && !kv && strcmp(argv[3], "b")) {
		fprintf(stderr, "usage: sustained-rate [RATE [SECONDS [b|kv]]]\n");
		return 2;
	}
	if (kv ? !shmtrace_enabled(bench_agg, kv) : !shmtrace_enabled(bench, b))
		fprintf(stderr, "sustained-rate: warning: %s is not enabled\n",
			kv ? "bench_agg:kv" : "bench:b");
	t0 = now();
	if (rate <= 0) {
		const uint64_t end = t0 + (uint64_t)(secs * 1e9);

		do {
			if (kv)
				for (int k = 0; k < 1024; k++, i++)
					BENCH_KV(i);
			else
				for (int k = 0; k < 1024; k++, i++)
					shmtrace(bench, b, (int64_t)i, "0123456789abcdef");
			t = now();
		} while (t < end);
		total = i;
	}
	while (i < total) {
		if (kv)
			for (int k = 0; k < 100; k++, i++)
				BENCH_KV(i);
		else
			for (int k = 0; k < 100; k++, i++)
				shmtrace(bench, b, (int64_t)i, "0123456789abcdef");
		/* wait until the schedule says i events are due */
		do
			t = now();
		while ((double)(t - t0) < (double)i * 1e9 / rate);
	}
	t = now();
	printf("emitted %llu events in %.3f s: %.2f million events per second; "
	       "events=%llu seconds=%.6f per_sec=%.0f\n",
	       (unsigned long long)total, (double)(t - t0) / 1e9, (double)total * 1e3 / (double)(t - t0),
	       (unsigned long long)total, (double)(t - t0) / 1e9, (double)total * 1e9 / (double)(t - t0));
	return 0;
}
