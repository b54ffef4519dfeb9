/* SPDX-License-Identifier: MIT */
/*
 * fork-events - a traced program that forks while it traces.
 *
 * The parent's main thread emits PARENT events (thread = 1000000) while it
 * forks CHILDREN children, every third one from a second thread that emits
 * too (thread = 1000001, PARENT events). Each child emits EACH events
 * (thread = its number, seq 0..EACH-1) and exits. The parent waits for all.
 * usage: fork-events CHILDREN EACH PARENT
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test-events.h"

static unsigned long children, each, parent;

static void child(uint32_t n)
{
	for (uint64_t i = 0; i < each; i++)
		shmtrace(shmtrace_test, event, i, n, "child");
	exit(0);
}

static pid_t spawn(uint32_t n)
{
	pid_t pid = fork();

	if (pid == 0)
		child(n);
	return pid;
}

static void *second(void *arg)
{
	pid_t *pids = arg;
	uint64_t seq = 0;

	for (unsigned long n = 0; n < children; n++) {
		if (n % 3 == 2)
			pids[n] = spawn((uint32_t)n);
		for (unsigned long k = 0; k < parent / children; k++)
			shmtrace(shmtrace_test, event, seq++, 1000001, "parent thread");
	}
	while (seq < parent)
		shmtrace(shmtrace_test, event, seq++, 1000001, "parent thread");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	pid_t *pids;
	uint64_t seq = 0;
	int bad = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: fork-events CHILDREN EACH PARENT\n");
		return 1;
	}
	children = strtoul(argv[1], NULL, 0);
	each = strtoul(argv[2], NULL, 0);
	parent = strtoul(argv[3], NULL, 0);
	pids = calloc(children, sizeof(*pids));
	if (!pids || pthread_create(&tid, NULL, second, pids))
		return 1;
	for (unsigned long n = 0; n < children; n++) {
		if (n % 3 != 2)
			pids[n] = spawn((uint32_t)n);
		for (unsigned long k = 0; k < parent / children; k++)
			shmtrace(shmtrace_test, event, seq++, 1000000, "parent");
	}
	while (seq < parent)
		shmtrace(shmtrace_test, event, seq++, 1000000, "parent");
	pthread_join(tid, NULL);
	for (unsigned long n = 0; n < children; n++) {
		int st;

		if (pids[n] <= 0 || waitpid(pids[n], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		else
			printf("%d %lu\n", (int)pids[n], n);
	}
	free(pids);
	return bad ? 1 : 0;
}
