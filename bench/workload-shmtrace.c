/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE	/* sched_setaffinity, in harness.h */
/*
 * workload-shmtrace.c - the benchmark's workload instrumented with shmtrace
 * (see harness.h and compare-lttng.sh).
 */
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench, a, SHMTRACE_INFO, SHMTRACE_S64(v))
SHMTRACE_EVENT(bench, b, SHMTRACE_INFO, SHMTRACE_S64(v), SHMTRACE_STRING(s))

#define BENCH_TRACER "shmtrace"
#define BENCH_EMIT_A(v) shmtrace(bench, a, (v))
#define BENCH_EMIT_B(v, s) shmtrace(bench, b, (v), (s))
#define BENCH_ENABLED() (shmtrace_enabled(bench, a) && shmtrace_enabled(bench, b))

#include "harness.h"
