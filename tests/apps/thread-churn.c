/* SPDX-License-Identifier: MIT */
/*
 * thread-churn - TOTAL short-lived threads, at most ALIVE at once, each
 * emitting EVENTS shmtrace_test:event events (seq 0..EVENTS-1, thread =
 * its number) and exiting.
 * With a fourth argument "wait", it first emits one event from the main
 * thread, prints "ready" and waits for a line on standard input.
 * usage: thread-churn TOTAL ALIVE EVENTS [wait]
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include "test-events.h"

static sem_t slots;
static unsigned long events;

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;

	for (uint64_t i = 0; i < events; i++)
		shmtrace(shmtrace_test, event, i, t, "churn");
	sem_post(&slots);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long total, alive;
	pthread_attr_t attr;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: thread-churn TOTAL ALIVE EVENTS [wait]\n");
		return 1;
	}
	if (argc == 5) {
		char line[64];

		shmtrace(shmtrace_test, mark);
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	total = strtoul(argv[1], NULL, 0);
	alive = strtoul(argv[2], NULL, 0);
	events = strtoul(argv[3], NULL, 0);
	sem_init(&slots, 0, (unsigned int)alive);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (unsigned long i = 0; i < total; i++) {
		pthread_t tid;

		sem_wait(&slots);
		if (pthread_create(&tid, &attr, worker, (void *)(uintptr_t)i)) {
			perror("thread-churn");
			return 1;
		}
	}
	for (unsigned long i = 0; i < alive; i++)
		sem_wait(&slots);
	return 0;
}
