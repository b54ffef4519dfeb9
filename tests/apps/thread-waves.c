/* SPDX-License-Identifier: MIT */
/*
 * thread-waves - WAVES waves of THREADS threads, one wave after the
 * other, each thread emitting EVENTS shmtrace_test:event events (seq
 * 0..EVENTS-1, thread = WAVE * THREADS + its index) and exiting. After
 * each wave but the last, it prints "wave N" and waits for a line on
 * standard input; after the last it prints "done" and exits.
 * usage: thread-waves THREADS EVENTS WAVES
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "test-events.h"

static unsigned long events;

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;

	for (uint64_t i = 0; i < events; i++)
		shmtrace(shmtrace_test, event, i, t, "a wave of threads");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long threads, waves;
	pthread_t *tids;
	char line[64];

	if (argc != 4) {
		fprintf(stderr, "usage: thread-waves THREADS EVENTS WAVES\n");
		return 1;
	}
	threads = strtoul(argv[1], NULL, 0);
	events = strtoul(argv[2], NULL, 0);
	waves = strtoul(argv[3], NULL, 0);
	tids = calloc(threads ? threads : 1, sizeof(*tids));
	if (!tids || !threads || !waves)
		return 1;
	for (unsigned long w = 0; w < waves; w++) {
		for (unsigned long i = 0; i < threads; i++)
			if (pthread_create(&tids[i], NULL, worker,
					   (void *)(uintptr_t)(w * threads + i)) != 0)
				return 1;
		for (unsigned long i = 0; i < threads; i++)
			pthread_join(tids[i], NULL);
		if (w + 1 == waves)
			break;
		printf("wave %lu\n", w + 1);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	printf("done\n");
	free(tids);
	return 0;
}
