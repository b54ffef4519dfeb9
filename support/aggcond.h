/* SPDX-License-Identifier: MIT */
/*
 * aggcond.h - conditions on an aggregation's values per key (tracectl
 * add-trigger --on-aggregation AGG --when EXPR), aggcond.c: parsed by
 * tracectl and by the session daemon, bound to the aggregation's
 * definition by the session daemon; the consumer evaluates them over the
 * merged results, key by key (consumerd/aggr.c).
 *
 * EXPR is STAT OP VALUE: STAT count, sum, min, max, avg, or pNN / pNN.N
 * (a percentile of a quantize or lquantize), optionally with the field of
 * the function meant, sum(F); OP one of > >= < <= == != (a percentile:
 * > >= < <= only); VALUE an integer, or a duration with its unit (5ms,
 * 2s: compared as nanoseconds), e.g. 'p99 > 5ms', 'count > 1000'.
 *
 * A percentile is read from the histogram's buckets (nearest rank: the
 * bucket holding the NN-th percent of the key's values) and is true only
 * when every value of that bucket makes it true: 'p99 > 5ms' holds when
 * the bucket's lowest value is above 5 ms, 'p99 < 5ms' when its highest
 * is below, so that a condition never holds before the values prove it.
 */
#ifndef SHMTRACE_SUPPORT_AGGCOND_H
#define SHMTRACE_SUPPORT_AGGCOND_H

#include <stddef.h>
#include "common/proto.h"
#include "common/agg.h"

/* Parse @text into @c (func left 0): 0, or -EINVAL with @why said. */
int aggcond_parse(const char *text, struct proto_agg_cond *c, char *why, size_t len);

/*
 * Bind @c to the function of definition @d it reads (@names: the
 * definition's field names, @nnames of them): c->func set; 0, or -ENOENT
 * when @d has no such function (@why says).
 */
int aggcond_bind(struct proto_agg_cond *c, const struct agg_def *d,
		 const char (*names)[32], unsigned int nnames, char *why, size_t len);

#endif
