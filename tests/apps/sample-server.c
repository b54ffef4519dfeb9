/* SPDX-License-Identifier: MIT */
/*
 * sample-server - a small simulation of a multi-threaded request server,
 * instrumented with shmtrace, for the demo.
 *
 * Each worker thread serves requests: it records request_begin, does some
 * work (a few microseconds, a cache lookup that misses now and then, and
 * rarely a slow path of several milliseconds: the outliers a latency
 * analysis should find), then records request_end with the status and the
 * latency it measured itself.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(sample_server, request_begin, SHMTRACE_INFO,
	SHMTRACE_U64(id),
	SHMTRACE_STRING(path))

SHMTRACE_EVENT(sample_server, cache_miss, SHMTRACE_DEBUG,
	SHMTRACE_U64(id),
	SHMTRACE_U32(key))

SHMTRACE_EVENT(sample_server, request_end, SHMTRACE_INFO,
	SHMTRACE_U64(id),
	SHMTRACE_U32(status),
	SHMTRACE_U64(latency_ns))

static unsigned int requests = 2000;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t end = now() + ns;

	while (now() < end)
		;
}

static void *worker(void *arg)
{
	static const char *const paths[] = { "/index.html", "/api/users", "/api/orders",
					     "/static/app.js", "/health" };
	unsigned int seed = (unsigned int)(uintptr_t)arg * 2654435761u + 1;

	for (unsigned int i = 0; i < requests; i++) {
		uint64_t id = ((uint64_t)(uintptr_t)arg << 32) | i, t0 = now();
		unsigned int r = (unsigned int)rand_r(&seed);
		uint32_t status = 200;

		shmtrace(sample_server, request_begin, id, paths[r % 5]);
		spin(2000 + r % 8000);
		if (r % 10 == 0) {
			shmtrace(sample_server, cache_miss, id, r % 1024);
			spin(20000);
		}
		if (r % 500 == 7) {
			struct timespec ts = { 0, 5000000 };	/* the rare slow path */

			nanosleep(&ts, NULL);
			status = 503;
		}
		shmtrace(sample_server, request_end, id, status, now() - t0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int threads = 4;
	pthread_t tid[64];
	int c;

	while ((c = getopt(argc, argv, "t:r:")) != -1) {
		switch (c) {
		case 't': threads = (unsigned int)atoi(optarg); break;
		case 'r': requests = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: sample-server [-t THREADS] [-r REQUESTS]\n");
			return 1;
		}
	}
	if (threads < 1 || threads > 64)
		threads = 4;
	for (unsigned int i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("sample-server: %u threads served %u requests\n", threads, threads * requests);
	return 0;
}
