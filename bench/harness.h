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
 *   workload enabled a|b N THREADS [BURST PAUSE_US]
 *                                    N events in all, split over THREADS
 *                                    threads, each on its own CPU, in
 *                                    bursts of BURST events per thread
 *                                    separated by pauses of PAUSE_US
 *   workload latency a|b BATCHES K [BURST PAUSE_US]
 *                                    BATCHES timed batches of K events,
 *                                    paused every BURST events
 *
 * Each measuring thread first emits BENCH_WARMUP (default 786432) untimed
 * events, in bursts. BENCH_CPUS="c0,c1,..." chooses the CPU of each measuring thread (default:
 * the allowed CPUs in order). The enabled modes first wait (at most
 * BENCH_WAIT seconds, default 10) for the events to be enabled;
 * BENCH_WAIT=0 does not wait: the loops then measure the events as they
 * are, disabled ones included.
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

	if (env && !strcmp(env, "0"))
		return;
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

/*
 * The events are emitted in bursts of `burst` events per thread, with a
 * pause of `pause_us` between bursts: a burst fits in the default buffers of
 * either tracer, and the consumer daemon has the pause to write it out, so
 * that no event is discarded even when the measuring threads occupy every
 * CPU. Only the bursts are timed: a burst's time runs from the release of
 * the threads (a spinning barrier) to the end of the last one.
 * burst = 0: one burst of all the events.
 */
struct bench_thread {
	pthread_t th;
	int index;
	int event;		/* 'a' or 'b' */
	long n;			/* events of this thread */
	uint64_t *start, *end;	/* per burst */
};

static long bench_burst, bench_pause_us, bench_nbursts;
static int bench_nthreads;

#if defined(__x86_64__) || defined(__i386__)
#define BENCH_CPU_RELAX() __builtin_ia32_pause()
#else
#define BENCH_CPU_RELAX() __asm__ __volatile__("" : : : "memory")
#endif

/* A sense-reversing spinning barrier: the threads leave it together. */
static unsigned int bench_bar_count, bench_bar_sense;

static void bench_spin_barrier(unsigned int *local_sense)
{
	unsigned int sense = !*local_sense;

	*local_sense = sense;
	if (__atomic_add_fetch(&bench_bar_count, 1, __ATOMIC_ACQ_REL) ==
	    (unsigned int)bench_nthreads) {
		__atomic_store_n(&bench_bar_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&bench_bar_sense, sense, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&bench_bar_sense, __ATOMIC_ACQUIRE) != sense)
			BENCH_CPU_RELAX();
	}
}

static __attribute__((noinline)) void bench_run_a(long first, long n)
{
	for (long i = first; i < first + n; i++)
		BENCH_EMIT_A((int64_t)i);
}

static __attribute__((noinline)) void bench_run_b(long first, long n, const char *s)
{
	for (long i = first; i < first + n; i++)
		BENCH_EMIT_B((int64_t)i, s);
}

/*
 * Each measuring thread first emits bench_warmup untimed events, in bursts
 * like the timed ones, so that one-time costs stay out of the figures: its
 * buffers' set-up and first page faults (the default covers a whole lap of
 * the tracers' default buffers with either event). They are timed apart
 * (warmup_ns_per_event) and counted in events= (they are in the trace).
 */
static long bench_warmup = 786432;
static long bench_wbursts;

static void *bench_thread_main(void *arg)
{
	struct bench_thread *t = arg;
	const char *s = bench_string;
	unsigned int sense = 0;
	long done = 0, wdone = 0;

	bench_pin(t->index);
	BENCH_THREAD_INIT();
	for (long b = 0; b < bench_wbursts + bench_nbursts; b++) {
		long first, k;

		if (b < bench_wbursts) {
			k = bench_warmup - wdone < bench_burst ? bench_warmup - wdone : bench_burst;
			first = wdone - bench_warmup;	/* negative values */
			wdone += k;
		} else {
			k = t->n - done < bench_burst ? t->n - done : bench_burst;
			first = done;
			done += k;
		}
		if (b > 0 && bench_pause_us > 0)
			usleep((useconds_t)bench_pause_us);
		bench_spin_barrier(&sense);
		t->start[b] = bench_now();
		if (t->event == 'a')
			bench_run_a(first, k);
		else
			bench_run_b(first, k, s);
		t->end[b] = bench_now();
	}
	return NULL;
}

/* Wall time of bursts [from, to): first start to last end of each. */
static double bench_wall(struct bench_thread *th, int nthreads, long from, long to, double *busy)
{
	double wall = 0;

	*busy = 0;
	for (long b = from; b < to; b++) {
		uint64_t start = UINT64_MAX, end = 0;

		for (int i = 0; i < nthreads; i++) {
			if (th[i].start[b] < start)
				start = th[i].start[b];
			if (th[i].end[b] > end)
				end = th[i].end[b];
			*busy += (double)(th[i].end[b] - th[i].start[b]);
		}
		wall += (double)(end - start);
	}
	return wall;
}

static int bench_enabled(int event, long n, int nthreads)
{
	struct bench_thread th[BENCH_MAX_THREADS];
	long per = (n + nthreads - 1) / nthreads, total;
	double wall, busy, wwall, wbusy;

	bench_wait_enabled();
	bench_nthreads = nthreads;
	if (bench_burst <= 0 || bench_burst > per)
		bench_burst = per;
	bench_nbursts = (per + bench_burst - 1) / bench_burst;
	bench_wbursts = (bench_warmup + bench_burst - 1) / bench_burst;
	total = bench_wbursts + bench_nbursts;
	for (int i = 0; i < nthreads; i++) {
		th[i].index = i;
		th[i].event = event;
		th[i].n = n / nthreads + (i < n % nthreads);
		th[i].start = calloc((size_t)total, sizeof(uint64_t));
		th[i].end = calloc((size_t)total, sizeof(uint64_t));
		if (!th[i].start || !th[i].end ||
		    pthread_create(&th[i].th, NULL, bench_thread_main, &th[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i].th, NULL);
	wwall = bench_wall(th, nthreads, 0, bench_wbursts, &wbusy);
	wall = bench_wall(th, nthreads, bench_wbursts, total, &busy);
	/* ns_per_event: aggregate (wall time of the bursts / all events);
	 * thread_ns_per_event: the mean time of one event in one thread */
	printf("tracer=%s mode=enabled event=%c threads=%d timed=%ld events=%ld bursts=%ld "
	       "burst=%ld pause_us=%ld seconds=%.6f ns_per_event=%.4f events_per_sec=%.0f "
	       "thread_ns_per_event=%.4f warmup=%ld warmup_ns_per_event=%.4f\n",
	       BENCH_TRACER, event, nthreads, n, n + nthreads * bench_warmup, bench_nbursts,
	       bench_burst, bench_pause_us, wall / 1e9, wall / (double)n,
	       (double)n / (wall / 1e9), busy / (double)n, bench_warmup,
	       bench_warmup ? wwall / (double)(nthreads * bench_warmup) : 0.0);
	/* the sustained rate: the timed events over their whole span, pauses included */
	{
		uint64_t first = UINT64_MAX, last = 0;

		for (int i = 0; i < nthreads; i++) {
			if (th[i].start[bench_wbursts] < first)
				first = th[i].start[bench_wbursts];
			if (th[i].end[total - 1] > last)
				last = th[i].end[total - 1];
		}
		printf("span_seconds=%.6f sustained_per_sec=%.0f\n", (double)(last - first) / 1e9,
		       (double)n / ((double)(last - first) / 1e9));
	}
	(void)wbusy;
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

/*
 * Each batch of k events is timed as a whole (two clock reads for k
 * events); its time / k is one sample. The bursts and pauses are those of
 * the throughput runs (a burst is rounded to whole batches).
 */
static int bench_latency(int event, long batches, int k)
{
	uint32_t *v = malloc(sizeof(*v) * (size_t)batches);
	const char *s = bench_string;
	long per_burst = bench_burst > 0 ? (bench_burst + k - 1) / k : batches;
	long ev = 0;

	if (!v || k <= 0) {
		fprintf(stderr, "cannot allocate\n");
		return 1;
	}
	bench_wait_enabled();
	bench_pin(0);
	BENCH_THREAD_INIT();
	for (long done = 0, k; done < bench_warmup; done += k) {	/* untimed */
		k = bench_burst > 0 && bench_burst < bench_warmup - done ?
			bench_burst : bench_warmup - done;
		if (event == 'a')
			bench_run_a(done - bench_warmup, k);
		else
			bench_run_b(done - bench_warmup, k, s);
		if (bench_pause_us > 0)
			usleep((useconds_t)bench_pause_us);
	}
	for (long b = 0; b < batches; b++) {
		uint64_t t0, t1;

		if (b > 0 && b % per_burst == 0 && bench_pause_us > 0)
			usleep((useconds_t)bench_pause_us);
		t0 = bench_now();
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
	printf("tracer=%s mode=latency event=%c batches=%ld batch=%d timed=%ld events=%ld "
	       "p50=%.3f p99=%.3f p999=%.3f max=%.3f\n", BENCH_TRACER, event, batches, k, ev,
	       ev + bench_warmup,
	       bench_pct(v, batches, 0.50, k), bench_pct(v, batches, 0.99, k),
	       bench_pct(v, batches, 0.999, k), (double)v[batches - 1] / k);
	free(v);
	return 0;
}

static void bench_usage(void)
{
	fprintf(stderr, "usage: workload disabled ITER ROUNDS\n"
		"       workload enabled a|b N THREADS [BURST PAUSE_US]\n"
		"       workload latency a|b BATCHES K [BURST PAUSE_US]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_cpus_init();
	if (getenv("BENCH_WARMUP"))
		bench_warmup = atol(getenv("BENCH_WARMUP"));
	if (argc == 4 && strcmp(argv[1], "disabled") == 0)
		return bench_disabled(atol(argv[2]), atoi(argv[3]));
	if ((argc == 5 || argc == 7) && (argv[2][0] == 'a' || argv[2][0] == 'b') &&
	    argv[2][1] == 0) {
		if (argc == 7) {
			bench_burst = atol(argv[5]);
			bench_pause_us = atol(argv[6]);
		}
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
