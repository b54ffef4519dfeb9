/* SPDX-License-Identifier: MIT */
/*
 * aggfmt.h - printing merged aggregations (agg.h): DTrace-style text, and
 * JSON for scripts.
 *
 * Text, per aggregation:
 *
 *	NAME  EVENT  (N updates, D keys dropped, L lost, T tables torn)
 *	  KEY1 = V1, KEY2 = V2
 *	    count = 100000, sum(seq) = 4999950000, avg(seq) = 49999.5
 *	    quantize(seq)
 *	           value  ------------- Distribution ------------- count
 *	               0 |                                         1
 *	               1 |                                         1
 *	               ...
 *
 * quantize and lquantize print the rows from the bucket before the first
 * non-empty one to the bucket after the last, each with a bar of up to 40
 * '@' proportional to its share of the key's events, as DTrace does.
 *
 * JSON: one object per aggregation, on one line:
 *	{"name":..,"event":..,"keys":[KEY,...],"updates":N,"dropped":N,"lost":N,"torn":N,
 *	 "entries":[{"key":[V,...],"count":N,"sum(F)":N,"min(F)":N,"max(F)":N,
 *	   "avg(F)":X,"quantize(F)":[{"lo":..,"hi":..,"count":..},...],
 *	   "lquantize(F)":[...]},...]}
 * where histograms list their non-empty buckets, lquantize's outer ones
 * with "lo" or "hi" null. Entries are sorted by key (integers by value,
 * strings by bytes).
 */
#ifndef SHMTRACE_COMMON_AGGFMT_H
#define SHMTRACE_COMMON_AGGFMT_H

#include <stdio.h>
#include "agg.h"

/* The names an aggregation was defined with. */
struct agg_names {
	const char *name;
	const char *event;			/* the event pattern */
	const char *key[AGG_MAX_KEYS];		/* field names of the keys */
	const char *arg[AGG_MAX_FUNCS];		/* field of each function (count: NULL) */
};

/* Print @m; 0, or -EIO when @out failed, -ENOMEM. */
int agg_print_text(FILE *out, struct agg_merged *m, const struct agg_names *n);
int agg_print_json(FILE *out, struct agg_merged *m, const struct agg_names *n);

#endif
