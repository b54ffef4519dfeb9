/* SPDX-License-Identifier: MIT */
/*
 * fuzz-agg.c - fuzz target for the readers of aggregation tables, which
 * another process writes (common/agg.c).
 *
 * An input is a definition (struct agg_def, the first bytes; a known good
 * one when they do not make a valid definition) followed by a table as a
 * traced process would have left it in shared memory. agg_snapshot() must
 * refuse or copy it without reading past the input; agg_merge() of an
 * accepted copy must give at most as many entries as the table has slots,
 * and merging it twice must double every count. The rest of the input
 * then drives agg_update() on a fresh small table: every update is applied
 * or dropped, never lost.
 *
 * Any broken invariant aborts, which both libFuzzer and driver.c report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "support/aggmerge.h"
#include "fuzz.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "fuzz-agg: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		abort();							\
	}									\
} while (0)

static const struct agg_def good = {
	.nkeys = 1, .nfuncs = 2, .key_kind = { AGG_KEY_INT }, .key_field = { 0 },
	.f = { { .fn = AGG_COUNT }, { .fn = AGG_QUANTIZE, .field = 1 } },
};

static void merge_twice(const struct agg_def *d, const struct agg_geom *g, const uint8_t *t,
			size_t len)
{
	struct agg_merged m1, m2;
	void *copy = malloc(len ? len : 1);
	uint32_t cap;
	int ok;

	if (!copy)
		return;
	ok = agg_snapshot(t, len, d, g, copy);
	if (ok < 0) {
		free(copy);
		return;
	}
	memcpy(&cap, (char *)copy + 16, 4);
	CHECK(agg_table_size(g, cap) <= len);
	CHECK(agg_merged_init(&m1, d) == 0 && agg_merged_init(&m2, d) == 0);
	CHECK(agg_merge(&m1, copy, !ok) == 0);
	CHECK(m1.n <= cap);
	CHECK(agg_merge(&m2, copy, !ok) == 0 && agg_merge(&m2, copy, !ok) == 0);
	CHECK(m2.n == m1.n);
	for (uint32_t i = 0; i < m1.n && d->f[0].fn == AGG_COUNT; i++)
		CHECK(agg_u64(agg_entry(&m2, i), m2.geom.val_off[0]) ==
		      2 * agg_u64(agg_entry(&m1, i), m1.geom.val_off[0]));
	agg_merged_free(&m1);
	agg_merged_free(&m2);
	free(copy);
}

static void updates(const struct agg_def *d, const struct agg_geom *g, const uint8_t *p,
		    size_t n)
{
	uint32_t cap = 8;
	size_t len = agg_table_size(g, cap);
	void *t = calloc(1, len);
	uint64_t asked = 0, dropped = 0, applied;
	struct agg_merged m;

	if (!t)
		return;
	agg_table_init(t, d, g, cap);
	for (size_t i = 0; i + 9 <= n && asked < 4096; i += 9, asked++) {
		struct flt_value v[4];
		int64_t x;

		memcpy(&x, p + i + 1, 8);
		v[0].type = (enum flt_type)(p[i] % 6);
		v[0].s = x;
		if (v[0].type == FLT_T_STR)
			v[0].str = "k";
		v[1].type = FLT_T_S64;
		v[1].s = x >> (p[i] & 63);
		v[2].type = FLT_T_F64;
		v[2].d = (double)x * 1e10;
		v[3].type = FLT_T_NONE;
		dropped += agg_update(t, d, g, v, 1 + p[i] % 4) == -ENOSPC;
	}
	CHECK(agg_merged_init(&m, d) == 0);
	{
		void *copy = malloc(len);

		CHECK(copy && agg_snapshot(t, len, d, g, copy) == 1);
		CHECK(agg_merge(&m, copy, 0) == 0);
		free(copy);
	}
	applied = m.updates;
	CHECK(applied + m.dropped == asked && m.dropped == dropped);
	agg_merged_free(&m);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agg_def d;
	struct agg_geom g;
	const uint8_t *t = data;
	size_t len = size;

	if (size >= sizeof(d)) {
		memcpy(&d, data, sizeof(d));
		t += sizeof(d);
		len -= sizeof(d);
	}
	if (size < sizeof(d) || agg_geom(&d, &g) < 0) {
		d = good;
		CHECK(agg_geom(&d, &g) == 0);
	}
	merge_twice(&d, &g, t, len);
	updates(&d, &g, t, len);
	return 0;
}
