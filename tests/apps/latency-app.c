/* SPDX-License-Identifier: MIT */
/*
 * latency-app - request-like begin/end pairs for the latency analysis.
 *
 * usage: latency-app THREADS PAIRS
 *
 * Each thread emits PAIRS shmtrace_lat:req_begin / req_end pairs (the same
 * id in both), spinning a varying time in between (0 to about 300 us, a
 * fixed sequence), and one more pair overlapping another: begin id A,
 * begin id B, end id A, end id B, so that pairing by id and pairing by
 * thread differ.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_lat, req_begin, SHMTRACE_INFO,
	SHMTRACE_U64(id))
SHMTRACE_EVENT(shmtrace_lat, req_end, SHMTRACE_INFO,
	SHMTRACE_U64(id))

static unsigned int pairs;

static void spin_ns(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec) < ns);
}

static void *worker(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * 1000000;

	for (unsigned int i = 0; i < pairs; i++) {
		shmtrace(shmtrace_lat, req_begin, base + i);
		spin_ns((i * 7919u) % 300000u);
		shmtrace(shmtrace_lat, req_end, base + i);
	}
	shmtrace(shmtrace_lat, req_begin, base + 900001);
	spin_ns(1000);
	shmtrace(shmtrace_lat, req_begin, base + 900002);
	spin_ns(1000);
	shmtrace(shmtrace_lat, req_end, base + 900001);
	spin_ns(1000);
	shmtrace(shmtrace_lat, req_end, base + 900002);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int threads = argc > 1 ? (unsigned int)atoi(argv[1]) : 2;
	pthread_t t[64];

	pairs = argc > 2 ? (unsigned int)atoi(argv[2]) : 100;
	if (threads < 1 || threads > 64)
		return 2;
	for (unsigned int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)))
			return 1;
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
