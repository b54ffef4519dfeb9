/* SPDX-License-Identifier: MIT */
/*
 * preload-func - a program built with -finstrument-functions, for the
 * tests of the function preload helper (and of all helpers at once). Not
 * linked with libshmtrace.
 *
 * usage: preload-func DEPTH ROUNDS PAUSE_MS [MAPS_FILE]
 *
 * Two threads each run ROUNDS rounds of: fib(DEPTH) (recursion), walk()
 * (a chain of calls down to leaf()), a block allocated and freed, a shared
 * counter incremented under a mutex, and a pause of PAUSE_MS. The main
 * thread then writes a line to /dev/null and its result to standard output
 * with write(2). Every instrumented function returns normally, so each
 * thread's entries and exits balance. Output:
 *	fib ADDR | walk ADDR | leaf ADDR | thread_main ADDR
 *	fib_calls N      calls of fib per round and thread
 *	result N
 * With MAPS_FILE, the program's /proc/self/maps is copied there at the end
 * (which libraries are where).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NO_INSTR __attribute__((no_instrument_function))

static unsigned int depth, rounds, pause_ms;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long shared;

static NOINLINE unsigned long fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static NOINLINE unsigned long leaf(unsigned long x)
{
	return x * 2654435761u;
}

static NOINLINE unsigned long walk(unsigned int n, unsigned long x)
{
	return n ? walk(n - 1, x + n) : leaf(x);
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

static NOINLINE void *thread_main(void *arg)
{
	unsigned long sum = 0;

	for (unsigned int r = 0; r < rounds; r++) {
		char *block = malloc(64);
		struct timespec ts = { pause_ms / 1000, (long)(pause_ms % 1000) * 1000000 };

		sum += fib(depth) + walk(16, r);
		if (block) {
			memset(block, 0, 64);
			free(block);
		}
		pthread_mutex_lock(&lock);
		shared += sum & 1;
		pthread_mutex_unlock(&lock);
		if (pause_ms)
			nanosleep(&ts, NULL);
	}
	*(unsigned long *)arg = sum;
	return NULL;
}

static void copy_maps(const char *path)
{
	FILE *in = fopen("/proc/self/maps", "r"), *out = fopen(path, "w");
	char line[4096];

	while (in && out && fgets(line, sizeof(line), in))
		fputs(line, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

int main(int argc, char **argv)
{
	unsigned long sums[2] = { 0, 0 };
	pthread_t tids[2];
	char line[256];
	int n, fd;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: preload-func DEPTH ROUNDS PAUSE_MS [MAPS_FILE]\n");
		return 2;
	}
	depth = (unsigned int)strtoul(argv[1], NULL, 0);
	rounds = (unsigned int)strtoul(argv[2], NULL, 0);
	pause_ms = (unsigned int)strtoul(argv[3], NULL, 0);
	for (int t = 0; t < 2; t++)
		if (pthread_create(&tids[t], NULL, thread_main, &sums[t]))
			return 1;
	for (int t = 0; t < 2; t++)
		pthread_join(tids[t], NULL);

	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "x\n", 2) != 2)
			return 1;
		close(fd);
	}
	n = snprintf(line, sizeof(line),
		     "fib %p\nwalk %p\nleaf %p\nthread_main %p\nfib_calls %lu\nresult %lu\n",
		     (void *)(uintptr_t)fib, (void *)(uintptr_t)walk, (void *)(uintptr_t)leaf,
		     (void *)(uintptr_t)thread_main, fib_calls(depth), sums[0] + sums[1]);
	if (n <= 0 || write(1, line, (size_t)n) != n)
		return 1;
	if (argc == 5)
		copy_maps(argv[4]);
	return 0;
}
