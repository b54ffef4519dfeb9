/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE	/* sched_setaffinity, in harness.h */
/*
 * workload-lttng.c - the benchmark's workload instrumented with LTTng-UST
 * 2.13 (see harness.h and compare-lttng.sh). The tracepoint provider
 * (tp-bench.h) is built into the program itself.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tp-bench.h"

#define BENCH_TRACER "lttng-ust"
#define BENCH_EMIT_A(v) lttng_ust_tracepoint(bench, a, (v))
#define BENCH_EMIT_B(v, s) lttng_ust_tracepoint(bench, b, (v), (s))
#define BENCH_ENABLED() \
	(lttng_ust_tracepoint_enabled(bench, a) && lttng_ust_tracepoint_enabled(bench, b))

#include "harness.h"
