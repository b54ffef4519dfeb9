/* SPDX-License-Identifier: MIT */
/*
 * trigger-shift - a workload of request durations whose latency shifts at
 * a known time (bench/trigger-shift.sh).
 *
 * usage: trigger-shift WARMUP_MS AFTER_MS SLOW_PCT SLOW_NS
 *
 * Emits bench_shift:req { seq, dur, slow } once a millisecond: for
 * WARMUP_MS, durations of about 1 ms (0.9 to 1.1 ms, a fixed-seed
 * generator); then, for AFTER_MS, SLOW_PCT of them (chosen by the same
 * generator) last SLOW_NS and have slow = 1. The durations are values,
 * not waits: what is measured is the tracer's reaction. Prints the time
 * of the shift (CLOCK_REALTIME, ns, read just before the first request
 * after it), the time the slow requests first made more than 1 % of all
 * (from then on the p99 lies in their bucket: the earliest a 'p99 > X'
 * condition can hold), the mean period of the requests after the shift,
 * the seq of the first slow request, and the counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench_shift, req, SHMTRACE_INFO,
	SHMTRACE_U64(seq),
	SHMTRACE_U64(dur),
	SHMTRACE_U32(slow))

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long warmup, after, pct;
	uint64_t slow_ns, seq = 0, first_slow = UINT64_MAX, nslow = 0, shift = 0, cross = 0;

	if (argc != 5)
		return 2;
	warmup = atol(argv[1]);
	after = atol(argv[2]);
	pct = atol(argv[3]);
	slow_ns = strtoull(argv[4], NULL, 10);
	for (long i = 0; i < warmup + after; i++) {
		struct timespec ts = { 0, 1000000 };
		int slow = 0;
		uint64_t dur = 900000 + next() % 200001;

		if (i == warmup)
			shift = realtime_ns();
		if (i >= warmup && (long)(next() % 100) < pct) {
			slow = 1;
			dur = slow_ns;
			if (first_slow == UINT64_MAX)
				first_slow = seq;
			nslow++;
		}
		shmtrace(bench_shift, req, seq, dur, (uint32_t)slow);
		seq++;
		if (!cross && nslow * 100 > seq)	/* over 1 % slow: p99 in their bucket */
			cross = realtime_ns();
		nanosleep(&ts, NULL);
	}
	printf("shift_ns=%llu cross_ns=%llu period_ns=%llu first_slow=%llu requests=%llu slow=%llu\n",
	       (unsigned long long)shift, (unsigned long long)cross,
	       (unsigned long long)(after > 0 ? (realtime_ns() - shift) / (uint64_t)after : 0),
	       (unsigned long long)first_slow,
	       (unsigned long long)seq, (unsigned long long)nslow);
	return 0;
}
