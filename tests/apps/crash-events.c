/* SPDX-License-Identifier: MIT */
/*
 * crash-events - a traced program that dies.
 *
 * usage: crash-events THREADS HOW
 *        crash-events THREADS HOW COUNTFILE MS
 *
 * THREADS threads emit shmtrace_test:event (seq 0, 1, ..., thread = its
 * number). HOW is how the program dies: "kill" (SIGKILL), "segv" (a null
 * pointer write) or "abort".
 *
 * Quiet death: each thread emits a different number of events, then
 * writes "THREAD LASTSEQ" on standard output (its last committed event)
 * and waits. Once all have reported, the program dies.
 *
 * Death in full flight (COUNTFILE given): the threads never stop. After
 * each event returns, a thread stores how many of its events have
 * returned into its 64-bit slot of COUNTFILE, a shared file mapping that
 * outlives the process. The main thread dies MS milliseconds after the
 * threads started, wherever they are: between two events, or in the
 * middle of one. A thread spins until a microsecond has passed since its
 * last event, without a system call, so that it is always running but
 * the consumer keeps up: nothing is discarded on an idle machine.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "test-events.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned int reported;
static int *volatile nowhere;	/* NULL, unknown to the compiler */
static uint64_t *counts;	/* shared file mapping, one slot per thread */

static void *quiet_worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	uint64_t n = 20000 + 7919 * (uint64_t)t, i;

	for (i = 0; i < n; i++)
		shmtrace(shmtrace_test, event, i, t, "before the crash");
	pthread_mutex_lock(&lock);
	printf("%u %llu\n", t, (unsigned long long)(i - 1));
	fflush(stdout);
	reported++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (;;)
		pause();
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void *running_worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;

	for (uint64_t i = 0;; i++) {
		uint64_t start = now_ns();

		shmtrace(shmtrace_test, event, i, t, "in full flight");
		__atomic_store_n(&counts[t], i + 1, __ATOMIC_RELEASE);
		while (now_ns() - start < 1000)
			;
	}
	return NULL;
}

static int map_counts(const char *path, unsigned int threads)
{
	size_t size = threads * sizeof(*counts);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)size))
		return -1;
	counts = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return counts == MAP_FAILED ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int threads;
	pthread_t tid;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: crash-events THREADS kill|segv|abort [COUNTFILE MS]\n");
		return 1;
	}
	threads = (unsigned int)atoi(argv[1]);
	if (threads == 0 || (argc == 5 && map_counts(argv[3], threads)))
		return 1;
	for (unsigned int t = 0; t < threads; t++)
		if (pthread_create(&tid, NULL, argc == 5 ? running_worker : quiet_worker,
				   (void *)(uintptr_t)t))
			return 1;
	if (argc == 5) {
		usleep((useconds_t)atoi(argv[4]) * 1000);
	} else {
		pthread_mutex_lock(&lock);
		while (reported < threads)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
	}
	if (!strcmp(argv[2], "kill"))
		kill(getpid(), SIGKILL);
	if (!strcmp(argv[2], "segv"))
		*nowhere = 1;
	abort();
}
