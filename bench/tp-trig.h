/* SPDX-License-Identifier: MIT */
/*
 * tp-trig.h - LTTng-UST 2.13 tracepoint provider of bench/trigger-latency.c
 * built for LTTng: bench_trig:tick { seq, fire }, the fields of its
 * shmtrace event.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER bench_trig

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp-trig.h"

#if !defined(BENCH_TP_TRIG_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_TRIG_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(bench_trig, tick,
	LTTNG_UST_TP_ARGS(uint64_t, seq, uint32_t, fire),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, seq, seq)
		lttng_ust_field_integer(uint32_t, fire, fire)
	)
)

#endif /* BENCH_TP_TRIG_H */

#include <lttng/tracepoint-event.h>
