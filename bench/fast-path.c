/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE	/* sched_setaffinity */
/*
 * fast-path.c - events A and B of two builds of fast-path-ev.c ("this"
 * and "other") and the floor, in one process, one thread: rounds of N
 * events of each, in turn (the order reversed every other round), each
 * timed alone, so that all three see the same noise. The floor is
 * floor.c's: the trace clock, then a 4-byte header and the payload
 * stored into a thread-private 1 MiB ring.
 * usage: fast-path ROUNDS EVENTS; prints one line per round and kind:
 * "ROUND KIND this_ns other_ns floor_ns".
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>

int fp_this_enabled(void);
void fp_this_loop_a(long n);
void fp_this_loop_b(long n, const char *s);
int fp_other_enabled(void);
void fp_other_loop_a(long n);
void fp_other_loop_b(long n, const char *s);

#define FLOOR_RING (1u << 20)
static char *floor_buf;
static uint32_t floor_pos;

static __attribute__((noinline)) void floor_emit(uint32_t id, int64_t v, const char *s)
{
	uint64_t ts = shmtrace__clock();
	uint32_t slen = s ? (uint32_t)strlen(s) + 1 : 0;
	uint32_t size = 4 + 8 + slen;
	uint32_t hdr = id | (uint32_t)(ts << 8);
	char *p;

	if (__builtin_expect(floor_pos + size > FLOOR_RING, 0))
		floor_pos = 0;
	p = floor_buf + floor_pos;
	memcpy(p, &hdr, 4);
	memcpy(p + 4, &v, 8);
	if (s)
		memcpy(p + 12, s, slen);
	floor_pos += size;
}

static void floor_loop(long n, const char *s)
{
	for (long i = 0; i < n; i++)
		floor_emit(s ? 2 : 1, i, s);
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* time one loop: 0 this, 1 other, 2 floor; s NULL: event A */
static double timed(int who, long n, const char *s)
{
	double t = now_ns();

	if (who == 0)
		s ? fp_this_loop_b(n, s) : fp_this_loop_a(n);
	else if (who == 1)
		s ? fp_other_loop_b(n, s) : fp_other_loop_a(n);
	else
		floor_loop(n, s);
	return (now_ns() - t) / (double)n;
}

int main(int argc, char **argv)
{
	static const char str[] = "0123456789abcdef";	/* 16 characters */
	const char *volatile sp = str;	/* its length measured at each event */
	const char *s = sp;
	const char *cpus = getenv("BENCH_CPUS");
	long rounds, n;

	if (argc != 3 || (rounds = atol(argv[1])) < 1 || (n = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: fast-path ROUNDS EVENTS\n");
		return 2;
	}
	if (cpus && *cpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(cpus), &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			perror("sched_setaffinity");
	}
	floor_buf = aligned_alloc(4096, FLOOR_RING);
	if (!floor_buf)
		return 1;
	memset(floor_buf, 0, FLOOR_RING);
	for (int i = 0; i < 1000 && !(fp_this_enabled() && fp_other_enabled()); i++)
		usleep(10000);
	if (!(fp_this_enabled() && fp_other_enabled())) {
		fprintf(stderr, "fast-path: the events are not enabled\n");
		return 1;
	}
	/* a lap of the buffers and of the floor's ring first */
	for (int who = 0; who < 3; who++) {
		timed(who, 4 * n, NULL);
		timed(who, 4 * n, s);
	}
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			const char *arg = k ? s : NULL;
			double t[3];

			for (int i = 0; i < 3; i++) {
				int who = (r & 1) ? 2 - i : i;

				t[who] = timed(who, n, arg);
			}
			printf("%ld %c %.4f %.4f %.4f\n", r, k ? 'b' : 'a', t[0], t[1], t[2]);
		}
	}
	return 0;
}
