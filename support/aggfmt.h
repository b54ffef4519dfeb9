/* SPDX-License-Identifier: MIT */
/*
 * aggfmt.h - printing aggregations (agg.h): DTrace-style text, and JSON for
 * scripts. Both are printed from a view of one aggregation (struct
 * agg_view), which merged results give (agg_view_merged()) and so does an
 * aggregations.json document read back (aggjson.h): the same text comes
 * out of both.
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
 * Control characters of string keys print as '?'; an aggregation without
 * keys prints "  (all)" as its key line. Several aggregations print one
 * after the other, nothing in between.
 *
 * JSON: one object per aggregation, on one line:
 *	{"name":..,"event":..,"keys":[KEY,...],"key_types":["int"|"str",...],
 *	 "functions":[{"fn":"count"},{"fn":"sum","field":F},
 *	   {"fn":"lquantize","field":F,"lo":N,"hi":N,"step":N},...],
 *	 "updates":N,"dropped":N,"lost":N,"torn":N,
 *	 "entries":[{"key":[V,...],"count":N,"sum(F)":N,"min(F)":N,"max(F)":N,
 *	   "avg(F)":X,"quantize(F)":[{"lo":..,"hi":..,"count":..},...],
 *	   "lquantize(F)":[...]},...]}
 * "keys" are the key fields' names and "key_types" their kinds; "functions"
 * the aggregating functions in the order of definition ("field" left out
 * for count, or when the function has none); an entry has one member per
 * function, named by its label ("count", "sum(F)"). Integers are exact
 * (int64; updates, dropped, lost, torn and bucket counts uint64); avg is
 * the shortest decimal that reads back as the same double; min, max and
 * avg are null when no value was seen. Histograms list their non-empty
 * buckets, lquantize's outer ones with "lo" or "hi" null. Entries are
 * sorted by key (integers by value, strings by bytes). Strings are UTF-8:
 * a byte of a name or key that is not part of valid UTF-8 is written as
 * \udcXX (XX the byte, as Python's surrogateescape does), control
 * characters, '"' and '\' escaped.
 *
 * aggregations.json (agg_json_begin()): "[\n", the objects joined by ",\n",
 * "\n]\n"; "[\n]\n" when there are none.
 */
#ifndef SHMTRACE_COMMON_AGGFMT_H
#define SHMTRACE_COMMON_AGGFMT_H

#include <stdio.h>
#include "common/agg.h"
#include "support/aggmerge.h"

/* The names an aggregation was defined with. */
struct agg_names {
	const char *name;
	const char *event;			/* the event pattern */
	const char *key[AGG_MAX_KEYS];		/* field names of the keys */
	const char *arg[AGG_MAX_FUNCS];		/* field of each function (count: NULL) */
};

/* Print @m; 0, or -EIO when @out failed, -ENOMEM. */
int agg_print_text(FILE *out, struct agg_merged *m, const struct agg_names *n);
/* One line: the object and '\n'. */
int agg_print_json(FILE *out, struct agg_merged *m, const struct agg_names *n);

/* ---- views ---------------------------------------------------------------- */

/* A non-empty bucket of a histogram: its index (agg_qbucket(), agg_lbucket()). */
struct agg_vbucket {
	uint32_t b;
	uint64_t count;
};

/* The value of one function in one entry. */
struct agg_vval {
	int64_t v;				/* count, sum, min, max */
	double avg;				/* avg */
	int set;				/* min, max, avg: 0 when none was seen */
	uint32_t nb;				/* quantize, lquantize: non-empty buckets */
	const struct agg_vbucket *b;		/* ... in ascending order */
};

/* One entry: keys (integers, or NUL-terminated strings) and values. */
struct agg_ventry {
	union {
		int64_t i;
		const char *s;
	} key[AGG_MAX_KEYS];
	struct agg_vval val[AGG_MAX_FUNCS];
};

struct agg_view {
	struct agg_names names;
	struct agg_def def;			/* key kinds and functions (fields unused) */
	struct agg_geom geom;			/* of def: the histograms' sizes */
	uint64_t updates, dropped, lost, torn;
	uint32_t n;				/* entries, in key order */
	/* the source: fills @e with entry @i, valid until the next call */
	int (*entry)(struct agg_view *v, uint32_t i, struct agg_ventry *e);
	const void *src;
	uint32_t *ix;				/* merged: entries in key order */
	struct agg_vbucket *bk;			/* merged: room for one entry's buckets */
	char skey[AGG_MAX_KEYS][AGG_STR_KEY];	/* merged: string keys of one entry */
};

/* A view of @m named @n (both kept, unchanged, while it is used). 0 or -ENOMEM. */
int agg_view_merged(struct agg_view *v, struct agg_merged *m, const struct agg_names *n);
void agg_view_free(struct agg_view *v);
/* Entry @i of @v (< v->n) into @e. 0, or -EINVAL when the source is damaged. */
int agg_view_entry(struct agg_view *v, uint32_t i, struct agg_ventry *e);

/* Print @v: text; the JSON object without the line's end. 0, -EIO, -errno. */
int agg_view_text(FILE *out, struct agg_view *v);
int agg_view_json(FILE *out, struct agg_view *v);

/* Label of function @i into *@label (malloc'd): "count", "sum(seq)". 0 or -ENOMEM. */
int agg_fn_label(const struct agg_def *d, const struct agg_names *n, unsigned int i,
		 char **label);
/* Name of function @fn ("count", ...), NULL if none. */
const char *agg_fn_name(unsigned int fn);
/* Bucket @b of histogram @i of @d (geometry @g): its range, open ends said. */
void agg_bucket_range(const struct agg_def *d, const struct agg_geom *g, unsigned int i,
		      uint32_t b, int64_t *lo, int64_t *hi, int *open_lo, int *open_hi);
/* Buckets of histogram @i, outer ones included (0 if not a histogram). */
uint32_t agg_hist_buckets(const struct agg_def *d, const struct agg_geom *g, unsigned int i);
/* Order of two entries' keys under @d: <0, 0, >0. */
int agg_vkey_cmp(const struct agg_def *d, const struct agg_ventry *a,
		 const struct agg_ventry *b);

/* ---- aggregations.json ------------------------------------------------------ */

struct agg_json_writer {
	FILE *out;
	uint32_t n;				/* objects written */
};

/*
 * Write an aggregations.json document: agg_json_begin(), then
 * agg_json_add() (or agg_json_add_view()) per aggregation, then
 * agg_json_end(), which says whether everything was written: 0, or -EIO
 * (and the first error of an add, if any, is returned by that add).
 */
void agg_json_begin(struct agg_json_writer *w, FILE *out);
int agg_json_add(struct agg_json_writer *w, struct agg_merged *m, const struct agg_names *n);
int agg_json_add_view(struct agg_json_writer *w, struct agg_view *v);
int agg_json_end(struct agg_json_writer *w);

#endif
