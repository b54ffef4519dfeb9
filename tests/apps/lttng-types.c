/* SPDX-License-Identifier: MIT */
/*
 * lttng-types.c - a program traced by LTTng-UST (not by shmtrace) for the
 * reader's tests on LTTng's traces: "types N" emits N shmtrace_lt:types
 * events (every field type of LTTng-UST; no empty string, which
 * babeltrace2 2.0.4 misprints at times), "threads T N" has T threads emit
 * N shmtrace_lt:event each (thread number and sequence number), then one
 * shmtrace_lt:empty. Prints "done" when finished.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "lttng-types-tp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long per_thread;

static void *worker(void *arg)
{
	int t = (int)(long)arg;

	for (unsigned long i = 0; i < per_thread; i++)
		lttng_ust_tracepoint(shmtrace_lt, event, t, i);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *texts[] = { "hello", "x", "quote\" back\\slash", "tab\there",
				       "a longer string with some words in it" };

	if (argc == 3 && !strcmp(argv[1], "types")) {
		long n = atol(argv[2]);

		for (long i = 0; i < n; i++) {
			double d[2] = { 3.25 * (double)i, 1e-300 * (double)(i + 1) };
			const char *s = texts[i % 5];
			unsigned len = (unsigned)strlen(s) < 5 ? (unsigned)strlen(s) : 5;

			lttng_ust_tracepoint(shmtrace_lt, types, (int)i, s, d, len);
		}
	} else if (argc == 4 && !strcmp(argv[1], "threads")) {
		int nt = atoi(argv[2]);
		pthread_t th[64];

		per_thread = strtoul(argv[3], NULL, 10);
		if (nt < 1 || nt > 64)
			return 2;
		for (int t = 0; t < nt; t++)
			if (pthread_create(&th[t], NULL, worker, (void *)(long)t))
				return 1;
		for (int t = 0; t < nt; t++)
			pthread_join(th[t], NULL);
	} else {
		fprintf(stderr, "usage: %s types N | threads T N\n", argv[0]);
		return 2;
	}
	lttng_ust_tracepoint(shmtrace_lt, empty);
	puts("done");
	return 0;
}
