/* SPDX-License-Identifier: MIT */
/*
 * latency.c - trace-read --latency (see latency.h).
 *
 * Latency keeps, per pairing key, a small stack of open BEGIN times
 * (nesting), and one 64-bit duration per completed pair so that
 * percentiles are exact (the nearest-rank method: pN is the smallest
 * duration with at least N% of the pairs at or below it); the histogram
 * has one bucket per power of two.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/glob.h"
#include "latency.h"
#include "reader-select.h"
#include "common/util.h"

/* @ns as "N ns", "N.NNN us", "N.NNN ms" or "N.NNN s". */
static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
}

#define LAT_NEST 16			/* open BEGINs per key */

struct lat_open {
	uint64_t key;			/* 0 = empty */
	uint32_t depth;
	int64_t ts[LAT_NEST];
	int64_t pid;
	uint32_t tid;
};

struct lat_class {			/* per (trace, class) */
	int8_t role;			/* 0 unknown, 1 begin, 2 end, 3 neither */
	int16_t by_ref;			/* sel_field_ref() of @by, -1 none */
};

struct an_latency {
	char *begin, *end, *by;
	uint64_t slower_ns;
	struct lat_class **cls;		/* [trace] lazily, by class index */
	size_t *ncls, ntr;
	struct lat_open *open;
	size_t nopen, cap;
	uint64_t *dur;
	size_t ndur, dcap;
	uint64_t unmatched_end, nested_drop;
};

struct an_latency *an_latency_new(const char *begin, const char *end, const char *by,
				  uint64_t slower_ns)
{
	struct an_latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->begin = strdup(begin);
	l->end = strdup(end);
	l->by = by ? strdup(by) : NULL;
	l->slower_ns = slower_ns;
	l->cap = 64;
	l->open = calloc(l->cap, sizeof(*l->open));
	if (!l->begin || !l->end || (by && !l->by) || !l->open) {
		an_latency_free(l);
		return NULL;
	}
	return l;
}

static struct lat_class *lat_class(struct an_latency *l, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t), ci = shmtrace_rd_event_class_index(ev);
	struct lat_class *c;

	if (tr >= l->ntr) {
		size_t n = tr + 8;
		struct lat_class **nc = realloc(l->cls, n * sizeof(*nc));
		size_t *nn = realloc(l->ncls, n * sizeof(*nn));

		if (nc)
			l->cls = nc;
		if (nn)
			l->ncls = nn;
		if (!nc || !nn)
			return NULL;
		memset(l->cls + l->ntr, 0, (n - l->ntr) * sizeof(*nc));
		memset(l->ncls + l->ntr, 0, (n - l->ntr) * sizeof(*nn));
		l->ntr = n;
	}
	if (!l->cls[tr]) {
		l->ncls[tr] = shmtrace_rd_trace_event_class_count(t);
		l->cls[tr] = calloc(l->ncls[tr] + 1, sizeof(**l->cls));
		if (!l->cls[tr])
			return NULL;
	}
	c = &l->cls[tr][ci < l->ncls[tr] ? ci : l->ncls[tr]];
	if (!c->role) {
		const char *name = shmtrace_rd_event_name(ev);
		int ref = l->by ? sel_field_ref(ev, l->by) : -1;

		c->role = glob_match(l->begin, name) ? 1 : glob_match(l->end, name) ? 2 : 3;
		c->by_ref = ref >= 0 && ref <= INT16_MAX ? (int16_t)ref : -1;
		if (l->by && c->by_ref < 0 && c->role != 3)
			c->role = 3;	/* no key: cannot pair it */
	}
	return c;
}

static struct lat_open *lat_slot(struct lat_open *o, size_t cap, uint64_t key)
{
	size_t i = hash_id(key) & (cap - 1);

	while (o[i].key && o[i].key != key)
		i = (i + 1) & (cap - 1);
	return &o[i];
}

/* The pairing key: the process, and the thread or the @by field's value. */
static uint64_t lat_key(const struct shmtrace_rd_event *ev, int by_ref)
{
	uint64_t k = (uint64_t)shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)) * 0x9e3779b97f4a7c15ULL;
	struct shmtrace_rd_value v;

	if (by_ref < 0)
		return hash_id(k ^ shmtrace_rd_event_tid(ev)) | 1;
	if (sel_field_value(ev, by_ref, &v) < 0)
		return 1;
	if (v.kind == SHMTRACE_RD_STRING)
		return hash_id(k ^ hash_bytes(v.str, v.len)) | 1;
	return hash_id(k ^ hash_id(v.u)) | 1;
}

int an_latency_event(struct an_latency *l, const struct shmtrace_rd_event *ev)
{
	struct lat_class *c = lat_class(l, ev);
	struct lat_open *o;
	uint64_t key;
	int64_t ts = shmtrace_rd_event_time_ns(ev);

	if (!c)
		return -ENOMEM;
	if (c->role == 3)
		return 0;
	key = lat_key(ev, c->by_ref);
	if (c->role == 1 && 2 * (l->nopen + 1) > l->cap) {
		struct lat_open *n = calloc(2 * l->cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < l->cap; i++)
			if (l->open[i].key)
				*lat_slot(n, 2 * l->cap, l->open[i].key) = l->open[i];
		free(l->open);
		l->open = n;
		l->cap *= 2;
	}
	o = lat_slot(l->open, l->cap, key);
	if (c->role == 1) {
		if (!o->key) {
			o->key = key;
			l->nopen++;
		}
		if (o->depth == LAT_NEST) {
			l->nested_drop++;
			return 0;
		}
		o->ts[o->depth++] = ts;
		o->pid = shmtrace_rd_trace_vpid(shmtrace_rd_event_trace(ev));
		o->tid = shmtrace_rd_event_tid(ev);
		return 0;
	}
	if (!o->key || !o->depth) {
		l->unmatched_end++;
		return 0;
	}
	{
		int64_t b = o->ts[--o->depth];
		uint64_t d = ts > b ? (uint64_t)(ts - b) : 0;

		if (l->ndur == l->dcap) {
			size_t n = l->dcap ? 2 * l->dcap : 4096;
			uint64_t *nd = realloc(l->dur, n * sizeof(*nd));

			if (!nd)
				return -ENOMEM;
			l->dur = nd;
			l->dcap = n;
		}
		l->dur[l->ndur++] = d;
		if (l->slower_ns && d > l->slower_ns) {
			char when[32], len[32];
			time_t sec = (time_t)(b / 1000000000);
			struct tm tm;

			localtime_r(&sec, &tm);
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
			fmt_ns(len, sizeof(len), d);
			printf("slow: [%s.%09" PRId64 "] %s[%" PRId64 "] tid %" PRIu32 ": %s\n", when,
			       b % 1000000000, shmtrace_rd_trace_procname(shmtrace_rd_event_trace(ev)), o->pid, o->tid,
			       len);
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least @permille of them at or below */
static uint64_t percentile(const uint64_t *v, size_t n, unsigned int permille)
{
	size_t rank = ((size_t)permille * n + 999) / 1000;

	if (rank < 1)
		rank = 1;
	return v[(rank > n ? n : rank) - 1];
}

void an_latency_print(struct an_latency *l, FILE *out)
{
	static const struct { const char *name; unsigned int permille; } ps[] = {
		{ "p50", 500 }, { "p90", 900 }, { "p99", 990 }, { "p99.9", 999 },
	};
	uint64_t buckets[65] = { 0 }, maxb = 0;
	int lo = 64, hi = 0;

	fprintf(out, "Latency %s -> %s%s%s: %zu pairs", l->begin, l->end, l->by ? " by " : "",
		l->by ? l->by : "", l->ndur);
	if (l->unmatched_end || l->nested_drop)
		fprintf(out, " (%" PRIu64 " ends without a begin, %" PRIu64 " begins nested too deep)",
			l->unmatched_end, l->nested_drop);
	fprintf(out, "\n");
	if (!l->ndur)
		return;
	qsort(l->dur, l->ndur, sizeof(*l->dur), cmp_u64);
	/* one value a row, exact, under its heading (the histogram's unit) */
	fprintf(out, "  %-6s %14s\n", "", "ns");
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]) + 2; i++) {
		uint64_t v = i == 0 ? l->dur[0] : i <= sizeof(ps) / sizeof(ps[0]) ?
			     percentile(l->dur, l->ndur, ps[i - 1].permille) : l->dur[l->ndur - 1];

		fprintf(out, "  %-6s %14" PRIu64 "\n",
			i == 0 ? "min" : i <= sizeof(ps) / sizeof(ps[0]) ? ps[i - 1].name : "max", v);
	}
	fprintf(out, "\n");
	/* bucket b holds [2^(b-1), 2^b) ns; bucket 0 holds 0 */
	for (size_t i = 0; i < l->ndur; i++) {
		int b = l->dur[i] ? 64 - __builtin_clzll(l->dur[i]) : 0;

		buckets[b]++;
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	for (int b = lo; b <= hi; b++)
		maxb = buckets[b] > maxb ? buckets[b] : maxb;
	fprintf(out, "  %14s  %-40s %s\n", "ns", "------------- Distribution -------------",
		"count");
	for (int b = lo; b <= hi + 1 && b <= 64; b++) {
		uint64_t start = b ? 1ULL << (b - 1) : 0;
		int bar = maxb ? (int)((buckets[b] * 40 + maxb - 1) / maxb) : 0;
		char bars[41];

		memset(bars, '@', (size_t)bar);
		bars[bar] = 0;
		fprintf(out, "  %14" PRIu64 " |%-40s %" PRIu64 "\n", start, bars,
			b <= 64 ? buckets[b] : 0);
	}
}

void an_latency_free(struct an_latency *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->ntr; i++)
		free(l->cls[i]);
	free(l->cls);
	free(l->ncls);
	free(l->open);
	free(l->dur);
	free(l->begin);
	free(l->end);
	free(l->by);
	free(l);
}
