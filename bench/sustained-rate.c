/* SPDX-License-Identifier: MIT */
/*
 * sustained-rate - one thread emits an event at a steady RATE events per
 * second for SECONDS seconds, paced in batches of 100 against
 * CLOCK_MONOTONIC, then prints the rate achieved. RATE 0: as fast as it
 * can for SECONDS seconds (the clock read every 1024 events).
 *
 * usage: sustained-rate [RATE [SECONDS [EVENT]]]
 * SUSTAINED_THREADS=T in the environment: T threads (default 1) share the
 * rate, each emitting RATE / T events per second (RATE 0: each as fast as
 * it can).
 *   EVENT b   bench:b, an int64 and a 16-character string (the default)
 *   EVENT kv  bench_agg:kv of kv-event.h, a u64 key and a u64 value
 *             (BENCH_KEYS keys, default 16)
 * Output, one line:
 *   emitted N events in T s: R million events per second; events=N
 *   seconds=T per_sec=R
 */
#include <pthread.h>
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

struct emitter {
	pthread_t th;
	double rate, secs;
	int kv;
	uint64_t total;		/* events emitted */
};

static void *emit(void *arg)
{
	struct emitter *e = arg;
	uint64_t total = (uint64_t)(e->rate * e->secs), i = 0, t0 = now(), t;

	if (e->rate <= 0) {
		const uint64_t end = t0 + (uint64_t)(e->secs * 1e9);

		do {
			if (e->kv)
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
		if (e->kv)
			for (int k = 0; k < 100; k++, i++)
				BENCH_KV(i);
		else
			for (int k = 0; k < 100; k++, i++)
				shmtrace(bench, b, (int64_t)i, "0123456789abcdef");
		/* wait until the schedule says i events are due */
		do
			t = now();
		while ((double)(t - t0) < (double)i * 1e9 / e->rate);
	}
	e->total = i;
	return NULL;
}

int main(int argc, char **argv)
{
	double rate = argc > 1 ? atof(argv[1]) : 10e6;
	double secs = argc > 2 ? atof(argv[2]) : 10;
	int kv = argc > 3 && !strcmp(argv[3], "kv");
	const char *env = getenv("SUSTAINED_THREADS");
	int nth = env ? atoi(env) : 1;
	struct emitter e[64];
	uint64_t total = 0, t0, t;

	if ((argc > 3 && !kv && strcmp(argv[3], "b")) || nth < 1 || nth > 64) {
		fprintf(stderr, "usage: [SUSTAINED_THREADS=1..64] sustained-rate [RATE [SECONDS [b|kv]]]\n");
		return 2;
	}
	if (kv ? !shmtrace_enabled(bench_agg, kv) : !shmtrace_enabled(bench, b))
		fprintf(stderr, "sustained-rate: warning: %s is not enabled\n",
			kv ? "bench_agg:kv" : "bench:b");
	t0 = now();
	for (int k = 0; k < nth; k++) {
		e[k].rate = rate / nth;
		e[k].secs = secs;
		e[k].kv = kv;
		if (pthread_create(&e[k].th, NULL, emit, &e[k])) {
			fprintf(stderr, "sustained-rate: cannot start a thread\n");
			return 1;
		}
	}
	for (int k = 0; k < nth; k++) {
		pthread_join(e[k].th, NULL);
		total += e[k].total;
	}
	t = now();
	printf("emitted %llu events in %.3f s: %.2f million events per second; "
	       "events=%llu seconds=%.6f per_sec=%.0f\n",
	       (unsigned long long)total, (double)(t - t0) / 1e9, (double)total * 1e3 / (double)(t - t0),
	       (unsigned long long)total, (double)(t - t0) / 1e9, (double)total * 1e9 / (double)(t - t0));
	return 0;
}
