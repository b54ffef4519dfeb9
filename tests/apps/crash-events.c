/* SPDX-License-Identifier: MIT */
/*
 * crash-events - a traced program that dies.
 *
 * THREADS threads emit shmtrace_test:event (seq 0, 1, ..., thread = its
 * number) for a while, each a different number of events; each then
 * writes "THREAD LASTSEQ" on standard output (its last committed event)
 * and waits. Once all have reported, the program dies as HOW says: "kill"
 * (SIGKILL), "segv" (a null pointer write) or "abort".
 * usage: crash-events THREADS HOW
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test-events.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static unsigned int reported;
static int *volatile nowhere;	/* NULL, unknown to the compiler */

static void *worker(void *arg)
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

int main(int argc, char **argv)
{
	unsigned int threads;
	pthread_t tid;

	if (argc != 3) {
		fprintf(stderr, "usage: crash-events THREADS kill|segv|abort\n");
		return 1;
	}
	threads = (unsigned int)atoi(argv[1]);
	for (unsigned int t = 0; t < threads; t++)
		if (pthread_create(&tid, NULL, worker, (void *)(uintptr_t)t))
			return 1;
	pthread_mutex_lock(&lock);
	while (reported < threads)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (!strcmp(argv[2], "kill"))
		kill(getpid(), SIGKILL);
	if (!strcmp(argv[2], "segv"))
		*nowhere = 1;
	abort();
}
