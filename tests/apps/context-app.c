/* SPDX-License-Identifier: MIT */
/*
 * context-app - emit events whose context fields a test can predict.
 *
 * One thread per CPU the process may run on (at most 4), each pinned to
 * its CPU, emits COUNT shmtrace_test:ctx events from each of two call
 * sites, site_a() and site_b(), with `cpu` = the CPU it is pinned to and
 * `site` = 0 or 1. The main thread, not pinned, emits COUNT more from
 * site_a() with cpu = -1. It first prints the run-time address of both
 * functions ("site_a 0x...", "site_b 0x..."), so that a test can place
 * the recorded call-site addresses in them.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_test, ctx, SHMTRACE_INFO,
	SHMTRACE_U8(site),
	SHMTRACE_S32(cpu),
	SHMTRACE_U64(seq))

static unsigned long count = 1000;

__attribute__((noinline)) void site_a(int32_t cpu, uint64_t seq);
__attribute__((noinline)) void site_b(int32_t cpu, uint64_t seq);

__attribute__((noinline)) void site_a(int32_t cpu, uint64_t seq)
{
	shmtrace(shmtrace_test, ctx, 0, cpu, seq);
}

__attribute__((noinline)) void site_b(int32_t cpu, uint64_t seq)
{
	shmtrace(shmtrace_test, ctx, 1, cpu, seq);
}

static void *worker(void *arg)
{
	int32_t cpu = (int32_t)(intptr_t)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0 ||
	    sched_getcpu() != cpu) {
		fprintf(stderr, "context-app: cannot run on CPU %d\n", cpu);
		exit(1);
	}
	for (uint64_t i = 0; i < count; i++) {
		site_a(cpu, i);
		site_b(cpu, i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	int nth = 0, c;
	cpu_set_t set;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			return 2;
		count = strtoul(optarg, NULL, 0);
	}
	printf("site_a %p\nsite_b %p\n", (void *)site_a, (void *)site_b);
	fflush(stdout);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	for (int cpu = 0; cpu < CPU_SETSIZE && nth < 4; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (pthread_create(&th[nth], NULL, worker, (void *)(intptr_t)cpu) != 0)
			return 1;
		nth++;
	}
	for (uint64_t i = 0; i < count; i++)
		site_a(-1, i);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	return 0;
}
