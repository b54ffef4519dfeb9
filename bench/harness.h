/* SPDX-License-Identifier: MIT */
/*
 * harness.h - the measuring loops shared by every workload of the
 * comparison benchmark (compare-lttng.sh).
 *
 * A workload is one .c file that defines, then includes this file:
 *
 *   BENCH_TRACER          a name printed in the results ("shmtrace", ...)
 *   BENCH_EMIT_A(v)       emit event A: one int64_t field
 *   BENCH_EMIT_B(v, s)    emit event B: an int64_t and a string
 *   BENCH_ENABLED()       nonzero once both events are recorded
 *   BENCH_THREAD_INIT()   optional, run by each measuring thread first
 *   BENCH_NO_DISABLED     optional: there is no disabled state to measure
 *
 * so that the tracers and the floor run exactly the same loops.
 *
 * Usage (one measurement per run; the results go to standard output as
 * one "key=value ..." line):
 *
 *   workload disabled ITER ROUNDS    the events compiled in, not enabled,
 *                                    against an empty loop of the same shape
 *   workload enabled a|b N THREADS   N events in all, split over THREADS
 *                                    threads, each on its own CPU
 *   workload latency a|b BATCHES K   BATCHES timed batches of K events
 *
 * BENCH_CPUS="c0,c1,..." chooses the CPU of each measuring thread (default:
 * the allowed CPUs in order). The enabled modes first wait (at most
 * BENCH_WAIT seconds, default 10) for the events to be enabled.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_THREAD_INIT
#define BENCH_THREAD_INIT() do { } while (0)
#endif

#define BENCH_MAX_THREADS 64

/*
 * The string of event B. Read once per thread through a volatile pointer,
 * so that no compiler folds its length into a constant: each event measures
 * its string the way a real caller's would be.
 */
static const char *volatile bench_string = "0123456789abcdef";

/* Opaque to the compiler: keeps a value alive without any instruction. */
#define BENCH_KEEP(x) __asm__ __volatile__("" : : "r"(x))

static uint64_t bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bench_ncpus;
static int bench_cpus[CPU_SETSIZE];

static void bench_cpus_init(void)
{
	const char *env = getenv("BENCH_CPUS");
	cpu_set_t set;

	if (env && *env) {
		char *end;

		while (*env && bench_ncpus < CPU_SETSIZE) {
			long c = strtol(env, &end, 10);

			if (end == env || c < 0 || c >= CPU_SETSIZE) {
				fprintf(stderr, "bad BENCH_CPUS\n");
				exit(2);
			}
			bench_cpus[bench_ncpus++] = (int)c;
			env = *end == ',' ? end + 1 : end;
		}
		if (bench_ncpus)
			return;
	}
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				bench_cpus[bench_ncpus++] = c;
	if (!bench_ncpus)
		bench_cpus[bench_ncpus++] = 0;
}

/* Pin the calling thread to the CPU of measuring thread number `t`. */
static void bench_pin(int t)
{
	cpu_set_t set;
	int cpu = bench_cpus[t % bench_ncpus];

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		fprintf(stderr, "warning: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
}

static void bench_wait_enabled(void)
{
	const char *env = getenv("BENCH_WAIT");
	double limit = env ? atof(env) : 10.0;
	uint64_t start = bench_now();

	while (!(BENCH_ENABLED())) {
		if ((double)(bench_now() - start) > limit * 1e9) {
			fprintf(stderr, "%s workload: the events are not enabled after %.0f s\n",
				BENCH_TRACER, limit);
			exit(3);
		}
		usleep(1000);
	}
}

/* ---- disabled ------------------------------------------------------------ */

static __attribute__((noinline, unused)) uint64_t bench_loop_disabled(long n, const char *s)
{
	uint64_t t0 = bench_now();

	for (long i = 0; i < n; i++) {
		BENCH_KEEP(i);
		BENCH_EMIT_B(i, s);
	}
	return bench_now() - t0;
}

static __attribute__((noinline)) uint64_t bench_loop_empty(long n, const char *s)
{
	uint64_t t0 = bench_now();

	for (long i = 0; i < n; i++) {
		BENCH_KEEP(i);
		BENCH_KEEP(s);
	}
	return bench_now() - t0;
}

static int bench_disabled(long n, int rounds)
{
	const char *s = bench_string;
	uint64_t best_tp = UINT64_MAX, best_loop = UINT64_MAX;

	bench_pin(0);
	BENCH_THREAD_INIT();
#ifndef BENCH_NO_DISABLED
	if (BENCH_ENABLED())
		fprintf(stderr, "%s workload: warning: the events are enabled\n", BENCH_TRACER);
#endif
	/* alternate the two loops; keep the best round of each */
	for (int r = 0; r < rounds; r++) {
		uint64_t a = bench_loop_empty(n, s);
#ifdef BENCH_NO_DISABLED
		uint64_t b = UINT64_MAX;	/* nothing to disable */
#else
		uint64_t b = bench_loop_disabled(n, s);
#endif

		if (a < best_loop)
			best_loop = a;
		if (b < best_tp)
			best_tp = b;
	}
	if (best_tp == UINT64_MAX)
		printf("tracer=%s mode=disabled iterations=%ld disabled_ns=- loop_ns=%.4f\n",
		       BENCH_TRACER, n, (double)best_loop / n);
	else
		printf("tracer=%s mode=disabled iterations=%ld disabled_ns=%.4f loop_ns=%.4f\n",
		       BENCH_TRACER, n, (double)best_tp / n, (double)best_loop / n);
	return 0;
}

/* ---- enabled: throughput --------------------------------------------------- */

struct bench_thread {
	pthread_t th;
	int index;
	int event;		/* 'a' or 'b' */
	long n;
	uint64_t start, end;
};

static pthread_barrier_t bench_barrier;

static __attribute__((noinline)) void bench_run_a(long n)
{
	for (long i = 0; i < n; i++)
		BENCH_EMIT_A((int64_t)i);
}

static __attribute__((noinline)) void bench_run_b(long n, const char *s)
{
	for (long i = 0; i < n; i++)
		BENCH_EMIT_B((int64_t)i, s);
}

static void *bench_thread_main(void *arg)
{
	struct bench_thread *t = arg;
	const char *s = bench_string;

	bench_pin(t->index);
	BENCH_THREAD_INIT();
	pthread_barrier_wait(&bench_barrier);
	t->start = bench_now();
	if (t->event == 'a')
		bench_run_a(t->n);
	else
		bench_run_b(t->n, s);
	t->end = bench_now();
	return NULL;
}

static int bench_enabled(int event, long n, int nthreads)
{
	struct bench_thread th[BENCH_MAX_THREADS];
	uint64_t start = UINT64_MAX, end = 0;
	double wall;

	bench_wait_enabled();
	pthread_barrier_init(&bench_barrier, NULL, (unsigned int)nthreads);
	for (int i = 0; i < nthreads; i++) {
		th[i].index = i;
		th[i].event = event;
		th[i].n = n / nthreads + (i < n % nthreads);
		if (pthread_create(&th[i].th, NULL, bench_thread_main, &th[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i].th, NULL);
		if (th[i].start < start)
			start = th[i].start;
		if (th[i].end > end)
			end = th[i].end;
	}
	wall = (double)(end - start);
	printf("tracer=%s mode=enabled event=%c threads=%d events=%ld seconds=%.6f "
	       "ns_per_event=%.4f events_per_sec=%.0f\n", BENCH_TRACER, event, nthreads, n,
	       wall / 1e9, wall / (double)n, (double)n / (wall / 1e9));
	return 0;
}

/* ---- enabled: latency over small batches ---------------------------------------- */

static int bench_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static double bench_pct(const uint32_t *v, long n, double p, int k)
{
	long i = (long)(p * (double)n);

	if (i >= n)
		i = n - 1;
	return (double)v[i] / k;
}

static int bench_latency(int event, long batches, int k)
{
	uint32_t *v = malloc(sizeof(*v) * (size_t)batches);
	const char *s = bench_string;
	long ev = 0;

	if (!v || k <= 0) {
		fprintf(stderr, "cannot allocate\n");
		return 1;
	}
	bench_wait_enabled();
	bench_pin(0);
	BENCH_THREAD_INIT();
	for (long b = 0; b < batches; b++) {
		uint64_t t0 = bench_now(), t1;

		if (event == 'a')
			for (int i = 0; i < k; i++)
				BENCH_EMIT_A((int64_t)(ev + i));
		else
			for (int i = 0; i < k; i++)
				BENCH_EMIT_B((int64_t)(ev + i), s);
		t1 = bench_now();
		ev += k;
		v[b] = t1 - t0 > UINT32_MAX ? UINT32_MAX : (uint32_t)(t1 - t0);
	}
	qsort(v, (size_t)batches, sizeof(*v), bench_cmp_u32);
	printf("tracer=%s mode=latency event=%c batches=%ld batch=%d events=%ld "
	       "p50=%.3f p99=%.3f p999=%.3f max=%.3f\n", BENCH_TRACER, event, batches, k, ev,
	       bench_pct(v, batches, 0.50, k), bench_pct(v, batches, 0.99, k),
	       bench_pct(v, batches, 0.999, k), (double)v[batches - 1] / k);
	free(v);
	return 0;
}

static void bench_usage(void)
{
	fprintf(stderr, "usage: workload disabled ITER ROUNDS\n"
		"       workload enabled a|b N THREADS\n"
		"       workload latency a|b BATCHES K\n");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_cpus_init();
	if (argc == 4 && strcmp(argv[1], "disabled") == 0)
		return bench_disabled(atol(argv[2]), atoi(argv[3]));
	if (argc == 5 && (argv[2][0] == 'a' || argv[2][0] == 'b') && argv[2][1] == 0) {
		if (strcmp(argv[1], "enabled") == 0) {
			int t = atoi(argv[4]);

			if (t < 1 || t > BENCH_MAX_THREADS || atol(argv[3]) < 1)
				bench_usage();
			return bench_enabled(argv[2][0], atol(argv[3]), t);
		}
		if (strcmp(argv[1], "latency") == 0 && atol(argv[3]) > 0)
			return bench_latency(argv[2][0], atol(argv[3]), atoi(argv[4]));
	}
	bench_usage();
	return 2;
}

#endif /* BENCH_HARNESS_H */
