/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE	/* sched_setaffinity, in harness.h */
/*
 * workload-agg.c - harness.h's loops around the event of kv-event.h, for
 * aggregate.sh: the same event disabled, recorded, aggregated or both,
 * which the session decides. Events A and B are both bench_agg:kv, with
 * the loop's count as i (the string of B is not used).
 */
#include "kv-event.h"

#define BENCH_TRACER "shmtrace"
#define BENCH_EMIT_A(v) BENCH_KV(v)
#define BENCH_EMIT_B(v, s) do { (void)(s); BENCH_KV(v); } while (0)
#define BENCH_ENABLED() shmtrace_enabled(bench_agg, kv)

#include "harness.h"
