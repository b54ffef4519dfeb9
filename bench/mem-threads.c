/* SPDX-License-Identifier: MIT */
/*
 * mem-threads.c - THREADS threads each emit EVENTS events of event B (an
 * s64 and a 16-character string: 29 bytes a record), at most RATE events
 * per second each (0: as fast as they can), then stay alive; for
 * bench/memory.sh.
 *
 * Built with -DBENCH_LTTNG (and -llttng-ust), the event is LTTng-UST's.
 *
 * usage: mem-threads THREADS EVENTS RATE
 * Prints "ready" once every thread emitted all of its events (they are
 * alive and idle), waits for a line on standard input, lets the threads
 * exit, prints "exited" and waits for another line before it exits.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef BENCH_LTTNG	/* the same program with LTTng-UST 2.13's bench:b (tp-bench.h) */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tp-bench.h"
#define EMIT_B(v, s) lttng_ust_tracepoint(bench, b, (v), (s))
#else
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench, b, SHMTRACE_INFO, SHMTRACE_S64(v), SHMTRACE_STRING(s))
#define EMIT_B(v, s) shmtrace(bench, b, (v), (s))
#endif

static unsigned long events, rate;
static pthread_barrier_t emitted, go;

static void *worker(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < events; i++) {
		EMIT_B((int64_t)i, "0123456789abcdef");
		if (rate && i % 1000 == 999) {
			struct timespec ts = { 0, (long)(1000000000ull * 1000 / rate) };

			nanosleep(&ts, NULL);
		}
	}
	pthread_barrier_wait(&emitted);
	pthread_barrier_wait(&go);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long threads;
	pthread_t *tids;
	char line[64];

	if (argc != 4) {
		fprintf(stderr, "usage: mem-threads THREADS EVENTS RATE\n");
		return 2;
	}
	threads = strtoul(argv[1], NULL, 0);
	events = strtoul(argv[2], NULL, 0);
	rate = strtoul(argv[3], NULL, 0);
	tids = calloc(threads ? threads : 1, sizeof(*tids));
	if (!tids || !threads)
		return 2;
	pthread_barrier_init(&emitted, NULL, (unsigned int)threads + 1);
	pthread_barrier_init(&go, NULL, (unsigned int)threads + 1);
	for (unsigned long i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL) != 0)
			return 1;
	pthread_barrier_wait(&emitted);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	pthread_barrier_wait(&go);
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	printf("exited\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	free(tids);
	return 0;
}
