/* SPDX-License-Identifier: MIT */
/*
 * sustained-rate - one thread emits event B (an int64 and a 16-character
 * string) at a steady RATE events per second for SECONDS seconds, paced in
 * batches of 100 against CLOCK_MONOTONIC, then prints the rate achieved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench, b, SHMTRACE_INFO, SHMTRACE_S64(v), SHMTRACE_STRING(s))

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double rate = argc > 1 ? atof(argv[1]) : 10e6;
	double secs = argc > 2 ? atof(argv[2]) : 10;
	uint64_t total = (uint64_t)(rate * secs), i = 0, t0, t;

	if (!shmtrace_enabled(bench, b))
		fprintf(stderr, "sustained-rate: warning: bench:b is not enabled\n");
	t0 = now();
	while (i < total) {
		for (int k = 0; k < 100; k++, i++)
			shmtrace(bench, b, (int64_t)i, "0123456789abcdef");
		/* wait until the schedule says i events are due */
		do
			t = now();
		while ((double)(t - t0) < (double)i * 1e9 / rate);
	}
	t = now();
	printf("emitted %llu events in %.3f s: %.2f million events per second\n",
	       (unsigned long long)total, (double)(t - t0) / 1e9, (double)total * 1e3 / (double)(t - t0));
	return 0;
}
