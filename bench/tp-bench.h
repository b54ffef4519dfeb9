/* SPDX-License-Identifier: MIT */
/*
 * tp-bench.h - LTTng-UST 2.13 tracepoint provider of the benchmark's
 * events: bench:a (one int64) and bench:b (an int64 and a string).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp-bench.h"

#if !defined(BENCH_TP_BENCH_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_BENCH_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(bench, a,
	LTTNG_UST_TP_ARGS(int64_t, v),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, v, v)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(bench, b,
	LTTNG_UST_TP_ARGS(int64_t, v, const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, v, v)
		lttng_ust_field_string(s, s)
	)
)

#endif /* BENCH_TP_BENCH_H */

#include <lttng/tracepoint-event.h>
