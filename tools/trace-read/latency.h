/* SPDX-License-Identifier: MIT */
/*
 * latency.h - trace-read --latency: pairs BEGIN and END events per thread
 * (or by a key field) and reports count, min, p50, p90, p99, p99.9, max
 * and a power-of-two histogram (DTrace's quantize), and optionally the
 * pairs slower than a bound. Fed the events one by one as the reader
 * merges them, with memory bounded by the open pairs and one duration per
 * pair (kept for exact percentiles).
 *
 * an_latency_event() returns 0, or -ENOMEM when it runs out of memory;
 * printing goes to a FILE.
 */
#ifndef SHMTRACE_TOOLS_LATENCY_H
#define SHMTRACE_TOOLS_LATENCY_H

#include <stdint.h>
#include <stdio.h>
#include <shmtrace/reader.h>

struct an_latency;

/*
 * @begin and @end: event name globs; @by: a field of both events whose
 * value pairs them (payload or context, as sel_field_ref() finds it; NULL:
 * the thread); @slower_ns: list pairs longer than this (0: none).
 */
struct an_latency *an_latency_new(const char *begin, const char *end, const char *by,
				  uint64_t slower_ns);
int an_latency_event(struct an_latency *l, const struct shmtrace_rd_event *ev);
void an_latency_print(struct an_latency *l, FILE *out);
void an_latency_free(struct an_latency *l);

#endif
