/* SPDX-License-Identifier: MIT */
/*
 * alloc-heavy.c - an allocation-heavy program for bench/preload-libc.sh:
 * each of T threads makes N calls of the malloc family on a working set of
 * live blocks, timed with CLOCK_MONOTONIC around the loop.
 *
 * usage: alloc-heavy [-n N] [-t T]
 *   -n N  calls per thread (default 2000000)
 *   -t T  threads (default 1)
 *
 * Each thread owns WSET slots. At each step a fixed-seed generator (one
 * seed per thread: every run makes the same calls) picks a slot:
 *  - empty: a block is allocated, malloc (85%) or calloc (15%), and its
 *    first and last bytes written;
 *  - live: it is freed (75%, after reading its first byte) or realloc'ed
 *    to a new size (25%).
 * About 57% of the slots are live at any time (a few thousand blocks, a
 * couple of MiB), so the allocator reuses and splits blocks as in a real
 * program instead of serving malloc/free pairs from one cache slot. The
 * calls are roughly 36% malloc, 6% calloc, 43% free, 14% realloc.
 * Sizes: 70% small (8-128 bytes), 25% medium (129-2048), 5% larger
 * (2049-16384); all stay under glibc's mmap threshold.
 *
 * Every call counts as one operation, free included; there is never a
 * free(NULL), a realloc(NULL, n) or a realloc(p, 0), so each operation is
 * exactly one event for a tracer of the malloc family. The blocks still
 * live at the end are not freed (the process exits): a trace of the run
 * holds the N * T calls of the loops plus the few allocations of the
 * process's own start-up, thread creation and output.
 *
 * Output, one line:
 *   ops=N*T threads=T ns_per_op=X wall_ns_per_op=W
 * ns_per_op: each thread's loop time / its N calls, averaged over the
 * threads (with -t 1: the loop's time per call); wall_ns_per_op: from the
 * start of the first loop to the end of the last one, / all the calls.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WSET	4096u		/* slots per thread (a power of two) */

struct worker {
	pthread_t thread;
	unsigned int index;
	uint64_t ops;		/* calls to make */
	uint64_t start, end;	/* the loop's CLOCK_MONOTONIC times */
	uint64_t sink;		/* bytes read back, so that nothing is elided */
};

static pthread_barrier_t start_line;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: small, fast, and the same sequence for the same seed. */
static inline uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* A block size from the mix above, drawn from r's bits 0-39. */
static inline size_t pick_size(uint64_t r)
{
	unsigned int k = (unsigned int)(r & 0xffff) % 100u;
	unsigned int v = (unsigned int)(r >> 16) & 0xffffffu;

	if (k < 70)
		return 8 + v % 121u;		/* 8..128 */
	if (k < 95)
		return 129 + v % 1920u;		/* 129..2048 */
	return 2049 + v % 14336u;		/* 2049..16384 */
}

static void fail_alloc(const char *what, size_t size)
{
	fprintf(stderr, "alloc-heavy: %s(%zu) failed: %s\n", what, size, strerror(errno));
	exit(1);
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	char **slot = calloc(WSET, sizeof(*slot));
	size_t *len = calloc(WSET, sizeof(*len));
	uint64_t rng = 0x5eedf00d5eedf00du + w->index * 0x2545f4914f6cdd1du;
	uint64_t i, t0, sink = 0;

	if (!slot || !len)
		fail_alloc("calloc", WSET * sizeof(*slot));
	pthread_barrier_wait(&start_line);
	t0 = now_ns();
	for (i = 0; i < w->ops; i++) {
		uint64_t r = next_rand(&rng);
		unsigned int s = (unsigned int)(r >> 52) & (WSET - 1);
		unsigned int op = (unsigned int)((r >> 40) & 0xfff) % 100u;
		size_t n = pick_size(r);
		char *p = slot[s];

		if (!p) {
			if (op < 85) {
				p = malloc(n);
				if (!p)
					fail_alloc("malloc", n);
			} else {
				n = (n + 15) & ~(size_t)15;
				p = calloc(n / 16, 16);
				if (!p)
					fail_alloc("calloc", n);
			}
			p[0] = (char)i;
			p[n - 1] = (char)s;
			slot[s] = p;
			len[s] = n;
		} else if (op < 75) {
			sink += (unsigned char)p[0] + (unsigned char)p[len[s] - 1];
			free(p);
			slot[s] = NULL;
		} else {
			p = realloc(p, n);
			if (!p)
				fail_alloc("realloc", n);
			p[n - 1] = (char)i;
			slot[s] = p;
			len[s] = n;
		}
	}
	w->end = now_ns();
	w->start = t0;
	w->sink = sink;
	/* the live blocks and the slots are left to the exit (see the header) */
	return NULL;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *v == 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 2000000, t = 1, i, sum_ns = 0, sink = 0, first = UINT64_MAX, last = 0;
	struct worker *w;
	int c;

	while ((c = getopt(argc, argv, "n:t:")) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, &n) < 0)
				goto usage;
			break;
		case 't':
			if (parse_u64(optarg, &t) < 0 || t > 1024)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;

	w = calloc(t, sizeof(*w));
	if (!w)
		fail_alloc("calloc", t * sizeof(*w));
	pthread_barrier_init(&start_line, NULL, (unsigned int)t + 1);
	for (i = 0; i < t; i++) {
		w[i].index = (unsigned int)i;
		w[i].ops = n;
		errno = pthread_create(&w[i].thread, NULL, worker_run, &w[i]);
		if (errno) {
			perror("alloc-heavy: pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&start_line);
	for (i = 0; i < t; i++)
		pthread_join(w[i].thread, NULL);
	for (i = 0; i < t; i++) {
		sum_ns += w[i].end - w[i].start;
		sink += w[i].sink;
		if (w[i].start < first)
			first = w[i].start;
		if (w[i].end > last)
			last = w[i].end;
	}
	printf("ops=%" PRIu64 " threads=%" PRIu64 " ns_per_op=%.3f wall_ns_per_op=%.3f\n",
	       n * t, t, (double)sum_ns / (double)(n * t), (double)(last - first) / (double)(n * t));
	fflush(stdout);
	/* keeps the reads of the loop alive; never true in practice */
	if (sink == 1)
		fputs("\n", stderr);
	return 0;

usage:
	fprintf(stderr, "usage: %s [-n CALLS_PER_THREAD] [-t THREADS]\n", argv[0]);
	return 2;
}
