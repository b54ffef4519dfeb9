/* SPDX-License-Identifier: MIT */
/*
 * fib-calls - many short function calls, for the function profilers of
 * aggregate.sh: built with -finstrument-functions (not linked with
 * libshmtrace: tracectl record preloads it), it computes fib(DEPTH)
 * recursively ROUNDS times, timed with CLOCK_MONOTONIC around the loop.
 *
 * usage: fib-calls [ROUNDS [DEPTH]]   (default 20 rounds of fib(25))
 *
 * Output, one line:
 *   calls=N fib_calls=F ns=T ns_per_call=X end_us=E
 * N: the instrumented calls made (fib's, main's and run's), F: fib's
 * alone; T: the loop's time; E: CLOCK_REALTIME in microseconds when main
 * returns (the program's exit, as bash's EPOCHREALTIME tells it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NO_INSTR __attribute__((no_instrument_function))

static __attribute__((noinline)) unsigned long fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) unsigned long run(unsigned int rounds, unsigned int depth)
{
	unsigned long sum = 0;

	for (unsigned int r = 0; r < rounds; r++)
		sum += fib(depth);
	return sum;
}

/* Calls of fib(n), counted without calling it. */
static NO_INSTR unsigned long fib_calls(unsigned int n)
{
	unsigned long a = 1, b = 1;	/* calls of fib(0), fib(1) */

	for (unsigned int i = 2; i <= n; i++) {
		unsigned long c = a + b + 1;

		a = b;
		b = c;
	}
	return n ? b : a;
}

static NO_INSTR uint64_t ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned int rounds = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 20;
	unsigned int depth = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 25;
	unsigned long fc = fib_calls(depth) * rounds, sum;
	uint64_t t0, t1;

	t0 = ns_of(CLOCK_MONOTONIC);
	sum = run(rounds, depth);
	t1 = ns_of(CLOCK_MONOTONIC);
	if (sum == 1)	/* keeps the result alive */
		fputs("", stderr);
	printf("calls=%lu fib_calls=%lu ns=%llu ns_per_call=%.3f", fc + 2, fc,
	       (unsigned long long)(t1 - t0), (double)(t1 - t0) / (double)fc);
	printf(" end_us=%llu\n", (unsigned long long)(ns_of(CLOCK_REALTIME) / 1000));
	return 0;
}
