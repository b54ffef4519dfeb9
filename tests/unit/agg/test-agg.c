/* SPDX-License-Identifier: MIT */
/*
 * test-agg.c - unit tests of common/agg.c and support/aggmerge.c: bucket
 * functions, every aggregation function exact on known values through
 * per-thread tables merged, sums and averages whose partial sums overflow
 * near the int64 limits, string keys, a full table dropping and counting, torn and
 * hostile tables; both printed forms, exactly; the emit function's update
 * from a plan byte for byte the library's.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "support/aggmerge.h"
#include "support/aggfmt.h"

START_TEST(test_qbucket)
{
	int64_t lo, hi;

	ck_assert_uint_eq(agg_qbucket(0), 64);
	ck_assert_uint_eq(agg_qbucket(1), 65);
	ck_assert_uint_eq(agg_qbucket(2), 66);
	ck_assert_uint_eq(agg_qbucket(3), 66);
	ck_assert_uint_eq(agg_qbucket(4), 67);
	ck_assert_uint_eq(agg_qbucket(INT64_MAX), 127);
	ck_assert_uint_eq(agg_qbucket(-1), 63);
	ck_assert_uint_eq(agg_qbucket(-3), 62);
	ck_assert_uint_eq(agg_qbucket(INT64_MIN), 0);
	for (unsigned int b = 0; b < AGG_QBUCKETS - 1; b++) {
		agg_qrange(b, &lo, &hi);
		ck_assert_int_le(lo, hi);
		ck_assert_uint_eq(agg_qbucket(lo), b);
		ck_assert_uint_eq(agg_qbucket(hi), b);
	}
	agg_qrange(66, &lo, &hi);
	ck_assert_int_eq(lo, 2);
	ck_assert_int_eq(hi, 3);
}
END_TEST

START_TEST(test_lbucket)
{
	struct agg_func f = { .fn = AGG_LQUANTIZE, .lo = 0, .hi = 100, .step = 10 };

	ck_assert_uint_eq(agg_lbucket(&f, -1), 0);
	ck_assert_uint_eq(agg_lbucket(&f, INT64_MIN), 0);
	ck_assert_uint_eq(agg_lbucket(&f, 0), 1);
	ck_assert_uint_eq(agg_lbucket(&f, 9), 1);
	ck_assert_uint_eq(agg_lbucket(&f, 10), 2);
	ck_assert_uint_eq(agg_lbucket(&f, 99), 10);
	ck_assert_uint_eq(agg_lbucket(&f, 100), 11);
	ck_assert_uint_eq(agg_lbucket(&f, INT64_MAX), 11);
	f.lo = -5;
	f.hi = 6;
	f.step = 4;	/* [-5,-2], [-1,2], [3,6) */
	ck_assert_uint_eq(agg_lbucket(&f, -5), 1);
	ck_assert_uint_eq(agg_lbucket(&f, -1), 2);
	ck_assert_uint_eq(agg_lbucket(&f, 5), 3);
	ck_assert_uint_eq(agg_lbucket(&f, 6), 4);
}
END_TEST

START_TEST(test_geom_refused)
{
	struct agg_def d;
	struct agg_geom g;

	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);		/* no function */
	d.nfuncs = 1;
	d.f[0].fn = AGG_NFN;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
	d.f[0].fn = AGG_LQUANTIZE;
	d.f[0].lo = 0;
	d.f[0].hi = 10;
	d.f[0].step = 0;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
	d.f[0].step = 1;
	d.f[0].hi = 0;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
	d.f[0].hi = AGG_MAX_LBUCKETS + 1;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
	d.f[0].lo = INT64_MIN;
	d.f[0].hi = INT64_MAX;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
	d.f[0].lo = 0;
	d.f[0].hi = AGG_MAX_LBUCKETS;
	ck_assert_int_eq(agg_geom(&d, &g), 0);
	d.nkeys = 1;
	d.key_kind[0] = 7;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
	d.nkeys = AGG_MAX_KEYS + 1;
	ck_assert_int_eq(agg_geom(&d, &g), -EINVAL);
}
END_TEST

/* A table of @cap entries for @d, allocated. */
static void *table_new(const struct agg_def *d, struct agg_geom *g, uint32_t cap, size_t *len)
{
	void *t;

	ck_assert_int_eq(agg_geom(d, g), 0);
	*len = agg_table_size(g, cap);
	t = calloc(1, *len);
	ck_assert_ptr_nonnull(t);
	agg_table_init(t, d, g, cap);
	return t;
}

static void merge_table(struct agg_merged *m, const void *t, size_t len, int want)
{
	void *copy = malloc(len);

	ck_assert_ptr_nonnull(copy);
	ck_assert_int_eq(agg_snapshot(t, len, m->def, &m->geom, copy), want);
	ck_assert_int_eq(agg_merge(m, copy, want == 0), 0);
	free(copy);
}

/* The merged entry whose integer key is @k. */
static const char *find_int(const struct agg_merged *m, int64_t k)
{
	for (uint32_t i = 0; i < m->n; i++) {
		int64_t v;

		memcpy(&v, agg_entry(m, i) + m->geom.key_off[0], 8);
		if (v == k)
			return agg_entry(m, i);
	}
	return NULL;
}

START_TEST(test_functions_per_thread)
{
	/* values: 0 = thread, 1 = seq */
	struct agg_def d = {
		.nkeys = 1, .nfuncs = 7, .key_kind = { AGG_KEY_INT }, .key_field = { 0 },
		.f = {
			{ .fn = AGG_COUNT },
			{ .fn = AGG_QUANTIZE, .field = 1 },
			{ .fn = AGG_SUM, .field = 1 },
			{ .fn = AGG_MIN, .field = 1 },
			{ .fn = AGG_MAX, .field = 1 },
			{ .fn = AGG_AVG, .field = 1 },
			{ .fn = AGG_LQUANTIZE, .field = 1, .lo = 0, .hi = 100000, .step = 25000 },
		},
	};
	struct agg_geom g;
	struct agg_merged m;
	void *t[4];
	size_t len;
	const uint64_t n = 100000;

	for (int th = 0; th < 4; th++) {
		t[th] = table_new(&d, &g, 16, &len);
		for (uint64_t s = 0; s < n; s++) {
			struct flt_value v[2] = {
				{ .type = FLT_T_U64, .u = (uint64_t)th },
				{ .type = FLT_T_U64, .u = s },
			};

			ck_assert_int_eq(agg_update(t[th], &d, &g, v, 2), 0);
		}
	}
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	for (int th = 0; th < 4; th++)
		merge_table(&m, t[th], len, 1);
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(m.updates, 4 * n);
	ck_assert_uint_eq(m.dropped, 0);
	for (int th = 0; th < 4; th++) {
		const char *e = find_int(&m, th);
		const struct agg_geom *mg = &m.geom;
		uint64_t total = 0;

		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(agg_u64(e, mg->val_off[0]), n);
		/* quantize: 1 in [0,0], 1 in [1,1], 2 in [2,3], 4 in [4,7], ... */
		ck_assert_uint_eq(agg_u64(e, mg->val_off[1] + 8 * 64), 1);
		for (unsigned int b = 65; b < 81; b++)
			ck_assert_uint_eq(agg_u64(e, mg->val_off[1] + 8 * b), 1ull << (b - 65));
		ck_assert_uint_eq(agg_u64(e, mg->val_off[1] + 8 * 81), n - 65536);
		for (unsigned int b = 0; b < AGG_QBUCKETS; b++)
			total += agg_u64(e, mg->val_off[1] + 8 * b);
		ck_assert_uint_eq(total, n);
		ck_assert_uint_eq(agg_u64(e, mg->val_off[2]), n * (n - 1) / 2);
		ck_assert_uint_eq(agg_u64(e, mg->val_off[3]), 0);		/* min */
		ck_assert_uint_eq(agg_u64(e, mg->val_off[3] + 8), 1);
		ck_assert_uint_eq(agg_u64(e, mg->val_off[4]), n - 1);		/* max */
		ck_assert_uint_eq(agg_u64(e, mg->val_off[5]), n * (n - 1) / 2);	/* avg */
		ck_assert_uint_eq(agg_u64(e, mg->val_off[5] + 8), n);
		ck_assert_uint_eq(agg_u64(e, mg->val_off[6]), 0);		/* under */
		for (unsigned int b = 1; b <= 4; b++)
			ck_assert_uint_eq(agg_u64(e, mg->val_off[6] + 8 * b), 25000);
		ck_assert_uint_eq(agg_u64(e, mg->val_off[6] + 8 * 5), 0);	/* over */
	}
	agg_merged_free(&m);
	for (int th = 0; th < 4; th++)
		free(t[th]);
}
END_TEST

START_TEST(test_same_key_many_tables)
{
	/* min/max/sum of negative values merged over tables */
	struct agg_def d = {
		.nkeys = 0, .nfuncs = 3,
		.f = { { .fn = AGG_MIN }, { .fn = AGG_MAX }, { .fn = AGG_SUM } },
	};
	struct agg_geom g;
	struct agg_merged m;
	void *t[3];
	size_t len;
	const int64_t vals[3][2] = { { -7, 3 }, { 12, 5 }, { -2, -9 } };

	for (int i = 0; i < 3; i++) {
		t[i] = table_new(&d, &g, 2, &len);
		for (int k = 0; k < 2; k++) {
			struct flt_value v = { .type = FLT_T_S64, .s = vals[i][k] };

			agg_update(t[i], &d, &g, &v, 1);
		}
	}
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	for (int i = 0; i < 3; i++)
		merge_table(&m, t[i], len, 1);
	ck_assert_uint_eq(m.n, 1);
	ck_assert_int_eq((int64_t)agg_u64(agg_entry(&m, 0), m.geom.val_off[0]), -9);
	ck_assert_int_eq((int64_t)agg_u64(agg_entry(&m, 0), m.geom.val_off[1]), 12);
	ck_assert_int_eq((int64_t)agg_u64(agg_entry(&m, 0), m.geom.val_off[2]), 2);
	agg_merged_free(&m);
	for (int i = 0; i < 3; i++)
		free(t[i]);
}
END_TEST

START_TEST(test_string_keys)
{
	struct agg_def d = {
		.nkeys = 2, .nfuncs = 1, .key_kind = { AGG_KEY_STR, AGG_KEY_INT },
		.key_field = { 0, 1 }, .f = { { .fn = AGG_COUNT } },
	};
	static const char *const names[] = {
		"alpha", "beta", "alpha",
		"a-very-long-endpoint-name-that-goes-on-and-on-1",
		"a-very-long-endpoint-name-that-goes-on-and-on-2",	/* same first 31 */
	};
	struct agg_geom g;
	struct agg_merged m;
	size_t len;
	void *t = table_new(&d, &g, 8, &len);

	for (unsigned int i = 0; i < 5; i++) {
		struct flt_value v[2] = {
			{ .type = FLT_T_STR, .str = names[i] },
			{ .type = FLT_T_U64, .u = 200 },
		};

		ck_assert_int_eq(agg_update(t, &d, &g, v, 2), 0);
	}
	{	/* a missing string key is "", a missing integer 0 */
		struct flt_value v = { .type = FLT_T_NONE };

		ck_assert_int_eq(agg_update(t, &d, &g, &v, 1), 0);
	}
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	merge_table(&m, t, len, 1);
	ck_assert_uint_eq(m.n, 4);
	for (uint32_t i = 0; i < m.n; i++) {
		const char *e = agg_entry(&m, i);
		const char *k = e + m.geom.key_off[0];
		uint64_t c = agg_u64(e, m.geom.val_off[0]);

		ck_assert_uint_lt(strnlen(k, AGG_STR_KEY), AGG_STR_KEY);
		if (!strcmp(k, "alpha") || !strncmp(k, "a-very", 6))
			ck_assert_uint_eq(c, 2);
		else
			ck_assert_uint_eq(c, 1);
		if (!k[0])
			ck_assert_uint_eq(agg_u64(e, m.geom.key_off[1]), 0);
		else
			ck_assert_uint_eq(agg_u64(e, m.geom.key_off[1]), 200);
	}
	agg_merged_free(&m);
	free(t);
}
END_TEST

START_TEST(test_full_table)
{
	struct agg_def d = {
		.nkeys = 1, .nfuncs = 1, .key_kind = { AGG_KEY_INT }, .f = { { .fn = AGG_COUNT } },
	};
	struct agg_geom g;
	struct agg_merged m;
	size_t len;
	void *t = table_new(&d, &g, 4, &len);
	uint64_t counted = 0;
	int dropped = 0;

	for (int i = 0; i < 100; i++) {
		struct flt_value v = { .type = FLT_T_S64, .s = i % 10 };

		dropped += agg_update(t, &d, &g, &v, 1) == -ENOSPC;
	}
	ck_assert_int_eq(dropped, 60);
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	merge_table(&m, t, len, 1);
	ck_assert_uint_eq(m.n, 4);
	for (uint32_t i = 0; i < m.n; i++)
		counted += agg_u64(agg_entry(&m, i), m.geom.val_off[0]);
	ck_assert_uint_eq(m.dropped, 60);
	ck_assert_uint_eq(counted + m.dropped, 100);
	ck_assert_uint_eq(m.updates, counted);
	agg_merged_free(&m);
	free(t);
}
END_TEST

START_TEST(test_torn_and_hostile)
{
	struct agg_def d = {
		.nkeys = 1, .nfuncs = 1, .key_kind = { AGG_KEY_INT }, .f = { { .fn = AGG_COUNT } },
	};
	struct agg_def other = d;
	struct agg_geom g;
	struct agg_merged m;
	size_t len;
	char *t = table_new(&d, &g, 8, &len), *copy = malloc(len);
	struct flt_value v = { .type = FLT_T_S64, .s = 5 };
	uint64_t seq;

	ck_assert_ptr_nonnull(copy);
	agg_update(t, &d, &g, &v, 1);
	/* a writer that died mid-update: merged, said torn */
	memcpy(&seq, t + 8, 8);
	seq |= 1;
	memcpy(t + 8, &seq, 8);
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	merge_table(&m, t, len, 0);
	ck_assert_uint_eq(m.torn, 1);
	ck_assert_uint_eq(m.n, 1);
	agg_merged_free(&m);
	/* made for another definition */
	other.f[0].fn = AGG_SUM;
	ck_assert_int_eq(agg_snapshot(t, len, &other, &g, copy), -EINVAL);
	/* damaged headers */
	t[0] ^= 1;
	ck_assert_int_eq(agg_snapshot(t, len, &d, &g, copy), -EINVAL);
	t[0] ^= 1;
	t[16] = 3;	/* capacity 3: not a power of two */
	ck_assert_int_eq(agg_snapshot(t, len, &d, &g, copy), -EINVAL);
	t[16] = 0;
	t[17] = 1;	/* capacity 256: beyond what is mapped */
	ck_assert_int_eq(agg_snapshot(t, len, &d, &g, copy), -EINVAL);
	t[17] = 0;
	t[16] = 8;
	t[20] ^= 8;	/* entry size */
	ck_assert_int_eq(agg_snapshot(t, len, &d, &g, copy), -EINVAL);
	t[20] ^= 8;
	ck_assert_int_eq(agg_snapshot(t, 10, &d, &g, copy), -EINVAL);
	ck_assert_int_eq(agg_snapshot(t, len, &d, &g, copy), 0);	/* still odd */
	free(copy);
	free(t);
}
END_TEST

/* The whole of @got, on a mismatch (too long for an assertion message). */
static void expect_str(const char *got, const char *want)
{
	if (strcmp(got, want))
		fprintf(stderr, "got:\n%s\nwanted:\n%s\n", got, want);
	ck_assert_msg(!strcmp(got, want), "printed text differs (see above)");
}

/* Print @m both ways into strings (freed by the caller). */
static void print_both(struct agg_merged *m, const struct agg_names *n, char **text, char **json)
{
	size_t len;
	FILE *f = open_memstream(text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(agg_print_text(f, m, n), 0);
	fclose(f);
	f = open_memstream(json, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(agg_print_json(f, m, n), 0);
	fclose(f);
}

START_TEST(test_merged_add)
{
	/* retired results of processes gone, then live tables: the same sums */
	struct agg_def d = {
		.nkeys = 1, .nfuncs = 3, .key_kind = { AGG_KEY_STR },
		.f = { { .fn = AGG_COUNT }, { .fn = AGG_MIN, .field = 1 }, { .fn = AGG_SUM, .field = 1 } },
	};
	struct agg_geom g;
	struct agg_merged retired, all;
	size_t len;
	void *t[2];
	static const char *const keys[] = { "get", "put", "get", "del" };

	for (int i = 0; i < 2; i++) {
		t[i] = table_new(&d, &g, 8, &len);
		for (int k = 0; k < 4; k++) {
			struct flt_value v[2] = { { .type = FLT_T_STR, .str = keys[k] },
						  { .type = FLT_T_S64, .s = 10 * i + k } };

			ck_assert_int_eq(agg_update(t[i], &d, &g, v, 2), 0);
		}
	}
	ck_assert_int_eq(agg_merged_init(&retired, &d), 0);
	merge_table(&retired, t[0], len, 1);
	retired.lost = 3;
	ck_assert_int_eq(agg_merged_init(&all, &d), 0);
	ck_assert_int_eq(agg_merged_add(&all, &retired), 0);
	merge_table(&all, t[1], len, 1);
	ck_assert_uint_eq(all.n, 3);
	ck_assert_uint_eq(all.updates, 8);
	ck_assert_uint_eq(all.lost, 3);
	for (uint32_t i = 0; i < all.n; i++) {
		const char *e = agg_entry(&all, i);

		if (!strcmp(e + all.geom.key_off[0], "get")) {
			ck_assert_uint_eq(agg_u64(e, all.geom.val_off[0]), 4);
			ck_assert_int_eq((int64_t)agg_u64(e, all.geom.val_off[1]), 0);
			ck_assert_int_eq((int64_t)agg_u64(e, all.geom.val_off[2]), 0 + 2 + 10 + 12);
		}
	}
	agg_merged_free(&retired);
	agg_merged_free(&all);
	free(t[0]);
	free(t[1]);
}
END_TEST

START_TEST(test_profile_roles)
{
	ck_assert_int_eq(agg_profile_role("shmtrace_func", "entry"), AGG_ROLE_ENTRY);
	ck_assert_int_eq(agg_profile_role("shmtrace_func", "exit"), AGG_ROLE_EXIT);
	ck_assert_int_eq(agg_profile_role("shmtrace_libc", "malloc"), AGG_ROLE_ALLOC);
	ck_assert_int_eq(agg_profile_role("shmtrace_libc", "calloc"), AGG_ROLE_ALLOC);
	ck_assert_int_eq(agg_profile_role("shmtrace_libc", "free"), AGG_ROLE_NONE);
	ck_assert_int_eq(agg_profile_role("app", "entry"), AGG_ROLE_NONE);
}
END_TEST

START_TEST(test_print)
{
	struct agg_def d = {
		.nkeys = 2, .nfuncs = 5, .key_kind = { AGG_KEY_STR, AGG_KEY_INT },
		.key_field = { 0, 1 },
		.f = {
			{ .fn = AGG_COUNT },
			{ .fn = AGG_SUM, .field = 2 },
			{ .fn = AGG_AVG, .field = 2 },
			{ .fn = AGG_QUANTIZE, .field = 2 },
			{ .fn = AGG_LQUANTIZE, .field = 2, .lo = 0, .hi = 10, .step = 5 },
		},
	};
	const struct agg_names n = {
		.name = "lat", .event = "app:req", .key = { "path", "code" },
		.arg = { NULL, "us", "us", "us", "us" },
	};
	static const struct { const char *path; int64_t code, us; } ev[] = {
		{ "/b", 200, 3 }, { "/a", 404, 0 }, { "/b", 200, 1 }, { "/b", 200, 12 },
		{ "/a\"x", 200, -2 },
	};
	struct agg_geom g;
	struct agg_merged m;
	size_t len;
	void *t = table_new(&d, &g, 8, &len);
	char *text, *json;

	for (unsigned int i = 0; i < 5; i++) {
		struct flt_value v[3] = {
			{ .type = FLT_T_STR, .str = ev[i].path },
			{ .type = FLT_T_S64, .s = ev[i].code },
			{ .type = FLT_T_S64, .s = ev[i].us },
		};

		agg_update(t, &d, &g, v, 3);
	}
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	merge_table(&m, t, len, 1);
	print_both(&m, &n, &text, &json);
	expect_str(text,
		"lat  app:req  (5 updates, 0 keys dropped, 0 lost, 0 tables torn)\n"
		"  path = /a, code = 404\n"
		"    count = 1, sum(us) = 0, avg(us) = 0\n"
		"    quantize(us)\n"
		"           value  ------------- Distribution ------------- count\n"
		"              -1 |                                         0\n"
		"               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1\n"
		"               1 |                                         0\n"
		"    lquantize(us)\n"
		"           value  ------------- Distribution ------------- count\n"
		"        <      0 |                                         0\n"
		"               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1\n"
		"               5 |                                         0\n"
		"  path = /a\"x, code = 200\n"
		"    count = 1, sum(us) = -2, avg(us) = -2\n"
		"    quantize(us)\n"
		"           value  ------------- Distribution ------------- count\n"
		"              -7 |                                         0\n"
		"              -3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1\n"
		"              -1 |                                         0\n"
		"    lquantize(us)\n"
		"           value  ------------- Distribution ------------- count\n"
		"        <      0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1\n"
		"               0 |                                         0\n"
		"  path = /b, code = 200\n"
		"    count = 3, sum(us) = 16, avg(us) = 5.33333\n"
		"    quantize(us)\n"
		"           value  ------------- Distribution ------------- count\n"
		"               0 |                                         0\n"
		"               1 |@@@@@@@@@@@@@                            1\n"
		"               2 |@@@@@@@@@@@@@                            1\n"
		"               4 |                                         0\n"
		"               8 |@@@@@@@@@@@@@                            1\n"
		"              16 |                                         0\n"
		"    lquantize(us)\n"
		"           value  ------------- Distribution ------------- count\n"
		"        <      0 |                                         0\n"
		"               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@               2\n"
		"               5 |                                         0\n"
		"       >=     10 |@@@@@@@@@@@@@                            1\n");
	expect_str(json,
		"{\"name\":\"lat\",\"event\":\"app:req\",\"keys\":[\"path\",\"code\"],"
		"\"key_types\":[\"str\",\"int\"],\"functions\":[{\"fn\":\"count\"},"
		"{\"fn\":\"sum\",\"field\":\"us\"},{\"fn\":\"avg\",\"field\":\"us\"},"
		"{\"fn\":\"quantize\",\"field\":\"us\"},"
		"{\"fn\":\"lquantize\",\"field\":\"us\",\"lo\":0,\"hi\":10,\"step\":5}],"
		"\"updates\":5,\"dropped\":0,\"lost\":0,\"torn\":0,\"entries\":["
		"{\"key\":[\"/a\",404],\"count\":1,\"sum(us)\":0,\"avg(us)\":0,"
		"\"quantize(us)\":[{\"lo\":0,\"hi\":0,\"count\":1}],"
		"\"lquantize(us)\":[{\"lo\":0,\"hi\":4,\"count\":1}]},"
		"{\"key\":[\"/a\\\"x\",200],\"count\":1,\"sum(us)\":-2,\"avg(us)\":-2,"
		"\"quantize(us)\":[{\"lo\":-3,\"hi\":-2,\"count\":1}],"
		"\"lquantize(us)\":[{\"lo\":null,\"hi\":-1,\"count\":1}]},"
		"{\"key\":[\"/b\",200],\"count\":3,\"sum(us)\":16,"
		"\"avg(us)\":5.333333333333333,"
		"\"quantize(us)\":[{\"lo\":1,\"hi\":1,\"count\":1},{\"lo\":2,\"hi\":3,\"count\":1},"
		"{\"lo\":8,\"hi\":15,\"count\":1}],"
		"\"lquantize(us)\":[{\"lo\":0,\"hi\":4,\"count\":2},{\"lo\":10,\"hi\":null,\"count\":1}]}"
		"]}\n");
	free(text);
	free(json);
	agg_merged_free(&m);
	free(t);
}
END_TEST

START_TEST(test_sum_avg_limits)
{
	/*
	 * Sums are kept modulo 2^64 (agg.h): a table's own sum may overflow
	 * and so may the merge, and the result is still exact whenever the
	 * true total fits in an int64, whatever the tables and their order.
	 */
	struct agg_def d = {
		.nkeys = 0, .nfuncs = 5,
		.f = { { .fn = AGG_COUNT }, { .fn = AGG_SUM }, { .fn = AGG_AVG },
		       { .fn = AGG_MIN }, { .fn = AGG_MAX } },
	};
	static const int64_t vals[3][3] = {
		{ INT64_MAX, INT64_MAX, 0 },	/* this table's sum wraps to -2 */
		{ INT64_MIN, INT64_MIN, 5 },	/* this one's to 5 (via 0) */
		{ INT64_MAX, -INT64_MAX, 0 },	/* 0, without overflow */
	};
	const struct agg_names n = { .name = "lim", .event = "a:b", .arg = { NULL, "x", "x", "x", "x" } };
	struct agg_geom g;
	struct agg_merged m, one;
	void *t[3], *all;
	size_t len;
	char *text, *json;
	const char *e;

	all = table_new(&d, &g, 2, &len);
	for (int i = 0; i < 3; i++) {
		t[i] = table_new(&d, &g, 2, &len);
		for (int k = 0; k < 3; k++) {
			struct flt_value v = { .type = FLT_T_S64, .s = vals[i][k] };

			ck_assert_int_eq(agg_update(t[i], &d, &g, &v, 1), 0);
		}
	}
	/* the same values in another order, in one table */
	for (int k = 2; k >= 0; k--)
		for (int i = 2; i >= 0; i--) {
			struct flt_value v = { .type = FLT_T_S64, .s = vals[i][k] };

			ck_assert_int_eq(agg_update(all, &d, &g, &v, 1), 0);
		}
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	for (int i = 2; i >= 0; i--)
		merge_table(&m, t[i], len, 1);
	ck_assert_int_eq(agg_merged_init(&one, &d), 0);
	merge_table(&one, all, len, 1);
	ck_assert_uint_eq(m.n, 1);
	e = agg_entry(&m, 0);
	ck_assert_uint_eq(agg_u64(e, m.geom.val_off[0]), 9);
	ck_assert_int_eq((int64_t)agg_u64(e, m.geom.val_off[1]), 3);	/* 2 MAX + 2 MIN + 5 */
	ck_assert_int_eq((int64_t)agg_u64(e, m.geom.val_off[2]), 3);	/* avg: sum and count */
	ck_assert_uint_eq(agg_u64(e, m.geom.val_off[2] + 8), 9);
	ck_assert_int_eq((int64_t)agg_u64(e, m.geom.val_off[3]), INT64_MIN);
	ck_assert_int_eq((int64_t)agg_u64(e, m.geom.val_off[4]), INT64_MAX);
	ck_assert_mem_eq(e, agg_entry(&one, 0), m.geom.entry_size);
	print_both(&m, &n, &text, &json);
	expect_str(text,
		"lim  a:b  (9 updates, 0 keys dropped, 0 lost, 0 tables torn)\n"
		"  (all)\n"
		"    count = 9, sum(x) = 3, avg(x) = 0.333333, min(x) = -9223372036854775808, "
		"max(x) = 9223372036854775807\n");
	expect_str(json,
		"{\"name\":\"lim\",\"event\":\"a:b\",\"keys\":[],\"key_types\":[],"
		"\"functions\":[{\"fn\":\"count\"},{\"fn\":\"sum\",\"field\":\"x\"},"
		"{\"fn\":\"avg\",\"field\":\"x\"},{\"fn\":\"min\",\"field\":\"x\"},"
		"{\"fn\":\"max\",\"field\":\"x\"}],"
		"\"updates\":9,\"dropped\":0,\"lost\":0,\"torn\":0,\"entries\":["
		"{\"key\":[],\"count\":9,\"sum(x)\":3,\"avg(x)\":0.3333333333333333,"
		"\"min(x)\":-9223372036854775808,\"max(x)\":9223372036854775807}]}\n");
	free(text);
	free(json);
	/* a true total beyond int64 wraps (documented): 2 MAX + 1 = -1 */
	{
		struct flt_value one_more = { .type = FLT_T_S64, .s = 1 };
		struct agg_merged w;
		void *tw = table_new(&d, &g, 2, &len);
		struct flt_value big = { .type = FLT_T_S64, .s = INT64_MAX };

		agg_update(tw, &d, &g, &big, 1);
		agg_update(tw, &d, &g, &big, 1);
		agg_update(tw, &d, &g, &one_more, 1);
		ck_assert_int_eq(agg_merged_init(&w, &d), 0);
		merge_table(&w, tw, len, 1);
		ck_assert_int_eq((int64_t)agg_u64(agg_entry(&w, 0), w.geom.val_off[1]), -1);
		agg_merged_free(&w);
		free(tw);
	}
	agg_merged_free(&m);
	agg_merged_free(&one);
	for (int i = 0; i < 3; i++)
		free(t[i]);
	free(all);
}
END_TEST

/*
 * The emit function's update from a plan (shmtrace.h, ABI 5) writes the
 * same bytes as the library's agg_update_key(), table for table: every
 * function a plan does, a second count and quantize (in op[]), an
 * argument of no field, keys past the capacity (dropped), values at the
 * int64 limits; and the plans agg_plan() refuses.
 */
START_TEST(test_plan_same_table)
{
	struct agg_def d = {
		.nkeys = 1, .nfuncs = 8, .key_kind = { AGG_KEY_INT },
		.f = { { .fn = AGG_COUNT }, { .fn = AGG_QUANTIZE, .field = 1 },
		       { .fn = AGG_SUM, .field = 1 }, { .fn = AGG_AVG, .field = 1 },
		       { .fn = AGG_MIN, .field = 2 }, { .fn = AGG_MAX, .field = 1 },
		       { .fn = AGG_COUNT }, { .fn = AGG_QUANTIZE, .field = 2 } },
	};
	const int8_t asrc[8] = { -1, 1, 1, 1, 2, 1, -1, 2 };
	static const int64_t limits[] = { 0, 1, -1, INT64_MAX, INT64_MIN, 1 << 20, -(1 << 20) };
	struct shmtrace__aggp p;
	struct agg_geom g;
	size_t len;
	void *lib = table_new(&d, &g, 8, &len);
	void *inl = table_new(&d, &g, 8, &len);
	uint64_t x = 88172645463325252ull;

	ck_assert_int_eq(agg_plan(&d, &g, inl, 8, 3, 0, asrc, &p), 0);
	ck_assert_uint_eq(p.nops, 6);		/* the first count and quantize apart */
	ck_assert_uint_eq(p.probes, 8);
	for (int i = 0; i < 5000; i++) {
		uint64_t av[4] = { 0 };
		int64_t args[8];

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		av[0] = (x >> 8) % 12;		/* 12 keys, 8 entries */
		av[1] = i % 5 ? (uint64_t)(int64_t)(int32_t)(x >> 16) :
			(uint64_t)limits[i / 5 % 7];
		av[2] = (uint64_t)(int64_t)(int16_t)x;
		for (int k = 0; k < 8; k++)
			args[k] = (int64_t)(asrc[k] < 0 ? 0 : av[asrc[k]]);
		agg_update_key(lib, &d, &g, (const char *)&av[0], args);
		shmtrace__agg_update(&p, av);
	}
	ck_assert_uint_gt(((struct agg_hdr *)lib)->dropped, 0);
	ck_assert_uint_gt(((struct agg_hdr *)lib)->updates, 0);
	ck_assert_int_eq(memcmp(lib, inl, len), 0);
	free(lib);
	free(inl);

	/* refused: lquantize, two keys, a string key, a key of no field */
	d.nfuncs = 1;
	d.f[0] = (struct agg_func){ .fn = AGG_LQUANTIZE, .field = 1, .step = 10, .lo = 0, .hi = 100 };
	ck_assert_int_eq(agg_geom(&d, &g), 0);
	ck_assert_int_eq(agg_plan(&d, &g, &p, 8, 3, 0, asrc, &p), -EINVAL);
	d.f[0] = (struct agg_func){ .fn = AGG_COUNT };
	d.nkeys = 2;
	ck_assert_int_eq(agg_geom(&d, &g), 0);
	ck_assert_int_eq(agg_plan(&d, &g, &p, 8, 3, 0, asrc, &p), -EINVAL);
	d.nkeys = 1;
	d.key_kind[0] = AGG_KEY_STR;
	ck_assert_int_eq(agg_geom(&d, &g), 0);
	ck_assert_int_eq(agg_plan(&d, &g, &p, 8, 3, 0, asrc, &p), -EINVAL);
	d.key_kind[0] = AGG_KEY_INT;
	ck_assert_int_eq(agg_geom(&d, &g), 0);
	ck_assert_int_eq(agg_plan(&d, &g, &p, 8, 3, 3, asrc, &p), -EINVAL);
	ck_assert_int_eq(agg_plan(&d, &g, &p, 6, 3, 0, asrc, &p), -EINVAL);
	ck_assert_int_eq(agg_plan(&d, &g, &p, 8, 3, 0, asrc, &p), 0);
}
END_TEST

static Suite *agg_suite(void)
{
	Suite *s = suite_create("agg");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_qbucket);
	tcase_add_test(tc, test_lbucket);
	tcase_add_test(tc, test_geom_refused);
	tcase_add_test(tc, test_functions_per_thread);
	tcase_add_test(tc, test_same_key_many_tables);
	tcase_add_test(tc, test_sum_avg_limits);
	tcase_add_test(tc, test_string_keys);
	tcase_add_test(tc, test_full_table);
	tcase_add_test(tc, test_torn_and_hostile);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_merged_add);
	tcase_add_test(tc, test_profile_roles);
	tcase_add_test(tc, test_plan_same_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(agg_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
