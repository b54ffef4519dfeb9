/* SPDX-License-Identifier: MIT */
/*
 * test-columns.c - unit tests of the reader library's columns
 * (shmtrace_rd_cols_*(), libreader/reader-columns.c).
 *
 * The traces are the samples of the reader's own unit test, written by
 * "test-reader --write-samples DIR" (the program next to this one): the
 * basic trace (every integer size, a string, a double, an int16 sequence,
 * an event without fields, extended headers) and a session of two
 * processes. The tests check the values and type codes of each row, the
 * string table, the rows of events without a field, every field found as
 * reading goes (-EAGAIN, the class layouts), the selection (the same
 * functions as trace-read's), and the errors of the calls.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* asprintf */
#endif

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmtrace/reader.h>

#define ROWS 64

static char *samples;	/* DIR of the samples, written once */
static const char *self_dir;	/* the directory of this program */

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Outside the tests (no ck_assert here): 0, or -1 with a message. */
static int write_samples(void)
{
	const char *tmp = getenv("TMPDIR");
	char *cmd;
	int ret;

	if (asprintf(&samples, "%s/test-columns.XXXXXX", tmp ? tmp : "/tmp") < 0 ||
	    !mkdtemp(samples)) {
		perror("test-columns: a temporary directory");
		return -1;
	}
	if (asprintf(&cmd, "'%s/test-reader' --write-samples '%s' 10", self_dir, samples) < 0)
		return -1;
	ret = system(cmd);
	free(cmd);
	if (ret) {
		fprintf(stderr, "test-columns: %s/test-reader --write-samples failed\n", self_dir);
		return -1;
	}
	return 0;
}

static struct shmtrace_rd_reader *open_sample(const char *name)
{
	struct shmtrace_rd_reader *r;
	char err[SHMTRACE_RD_ERRLEN], *path;
	const char *paths[1];

	ck_assert(asprintf(&path, "%s/%s", samples, name) > 0);
	paths[0] = path;
	ck_assert_msg(shmtrace_rd_open(&r, paths, 1, err, sizeof(err)) == 0, "%s", err);
	free(path);
	return r;
}

/* Entry @code of the string table, as a NUL-terminated copy in @buf. */
static const char *entry(const struct shmtrace_rd_columns *c, uint64_t code, char *buf,
			 size_t len)
{
	const uint64_t *o = shmtrace_rd_cols_string_offsets(c);
	size_t n;

	ck_assert_uint_lt(code, shmtrace_rd_cols_string_count(c));
	n = o[code + 1] - o[code];
	ck_assert_uint_lt(n, len);
	memcpy(buf, shmtrace_rd_cols_string_data(c) + o[code], n);
	buf[n] = 0;
	return buf;
}

START_TEST(test_values)
{
	struct shmtrace_rd_reader *r = open_sample("basic");
	struct shmtrace_rd_columns *c;
	int64_t t[ROWS], pid[ROWS];
	uint32_t tid[ROWS], name[ROWS], proc[ROWS], cls[ROWS];
	uint64_t v[5][ROWS];
	uint8_t ty[5][ROWS];
	uint64_t *vals[5] = { v[0], v[1], v[2], v[3], v[4] };
	uint8_t *types[5] = { ty[0], ty[1], ty[2], ty[3], ty[4] };
	struct shmtrace_rd_col_out out = { t, pid, tid, name, proc, cls };
	const char *names[5] = { "num", "d", "e", "arr", "nosuch" };
	char buf[256];
	int16_t seq[5];
	long n, got = 0;

	ck_assert_int_eq(shmtrace_rd_cols_open(&c, r, NULL), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(shmtrace_rd_cols_add(c, names[i]), i);
	ck_assert_int_eq(shmtrace_rd_cols_add(c, "e"), 2);	/* the same column */
	ck_assert_int_eq(shmtrace_rd_cols_add(c, ""), -EINVAL);
	ck_assert_uint_eq(shmtrace_rd_cols_count(c), 5);
	ck_assert_str_eq(shmtrace_rd_cols_name(c, 3), "arr");
	ck_assert_ptr_null(shmtrace_rd_cols_name(c, 5));
	ck_assert_int_eq(shmtrace_rd_cols_read(c, ROWS, &out, 6, vals, types), -EINVAL);

	/* two rows per call, each call given the arrays from its first row */
	for (;;) {
		struct shmtrace_rd_col_out at = { t + got, pid + got, tid + got, name + got,
						  proc + got, cls + got };

		for (int k = 0; k < 5; k++) {
			vals[k] = v[k] + got;
			types[k] = ty[k] + got;
		}
		n = shmtrace_rd_cols_read(c, 2, &at, 5, vals, types);
		if (n <= 0)
			break;
		ck_assert_int_le(n, 2);
		got += n;
		ck_assert_int_le(got, ROWS - 2);
	}
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(got, 9);
	ck_assert_int_eq(shmtrace_rd_cols_read(c, 2, &out, 5, vals, types), 0);

	/* common columns */
	ck_assert_int_eq(t[0], 1700000000LL * 1000000000 + 123456789 + 1000);
	ck_assert_int_eq(pid[0], 1234);
	ck_assert_uint_eq(tid[0], 42);
	ck_assert_uint_eq(tid[7], 43);
	ck_assert_str_eq(entry(c, name[0], buf, sizeof(buf)), "prov:ev_a");
	ck_assert_str_eq(entry(c, name[6], buf, sizeof(buf)), "other:big_id");
	ck_assert_str_eq(entry(c, proc[5], buf, sizeof(buf)), "myproc");
	ck_assert_uint_eq(name[0], name[7]);
	ck_assert_uint_eq(cls[0], cls[7]);
	ck_assert_uint_ne(cls[0], cls[1]);
	ck_assert_uint_eq(cls[1], cls[2]);

	/* num: int32 of ev_a (rows 0 and 7), none elsewhere */
	ck_assert_uint_eq(ty[0][0], SHMTRACE_RD_COL_S32);
	ck_assert_int_eq((int64_t)v[0][0], -5);
	ck_assert_int_eq((int64_t)v[0][7], 7);
	ck_assert_uint_eq(ty[0][1], SHMTRACE_RD_COL_NONE);
	ck_assert_uint_eq(v[0][1], 0);
	ck_assert_uint_eq(shmtrace_rd_cols_seen(c, 0),
			  1u << SHMTRACE_RD_COL_NONE | 1u << SHMTRACE_RD_COL_S32);
	/* d: uint64 at its limit; e: int8, sign-extended */
	ck_assert_uint_eq(ty[1][4], SHMTRACE_RD_COL_U64);
	ck_assert_uint_eq(v[1][4], UINT64_MAX);
	ck_assert_uint_eq(ty[2][4], SHMTRACE_RD_COL_S8);
	ck_assert_int_eq((int64_t)v[2][4], -1);
	ck_assert_int_eq((int64_t)v[2][5], -128);
	/* arr: int16 elements in the string table; the empty one too */
	ck_assert_uint_eq(ty[3][1], SHMTRACE_RD_COL_SEQ_S16);
	ck_assert_uint_eq(ty[3][2], SHMTRACE_RD_COL_SEQ_S16);
	{
		const uint64_t *o = shmtrace_rd_cols_string_offsets(c);

		ck_assert_uint_eq(o[v[3][1] + 1] - o[v[3][1]], sizeof(seq));
		memcpy(seq, shmtrace_rd_cols_string_data(c) + o[v[3][1]], sizeof(seq));
		ck_assert_int_eq(seq[1], -2);
		ck_assert_int_eq(seq[3], -32768);
		ck_assert_uint_eq(o[v[3][2] + 1] - o[v[3][2]], 0);
	}
	/* a field no event has */
	ck_assert_uint_eq(shmtrace_rd_cols_seen(c, 4), 1u << SHMTRACE_RD_COL_NONE);
	/* after reading: no more columns nor selection */
	ck_assert_int_eq(shmtrace_rd_cols_add(c, "x"), -EINVAL);
	ck_assert_int_eq(shmtrace_rd_cols_select_event(c, "*"), -EINVAL);
	ck_assert_int_eq(shmtrace_rd_cols_add_all(c), -EINVAL);
	shmtrace_rd_cols_close(c);
	shmtrace_rd_close(r);
}
END_TEST

/* Read every field of "basic", growing the buffers when asked. */
START_TEST(test_all)
{
	struct shmtrace_rd_reader *r = open_sample("basic");
	struct shmtrace_rd_columns *c;
	uint32_t cls[ROWS];
	struct shmtrace_rd_col_out out = { .cls = cls };
	uint64_t *vals[32];
	uint8_t *types[32];
	size_t have = 0;
	long n, rows = 0, again = 0;
	int32_t idx[8];
	int msg = -1, arr = -1;

	ck_assert_int_eq(shmtrace_rd_cols_open(&c, r, NULL), 0);
	ck_assert_int_eq(shmtrace_rd_cols_add_all(c), 0);
	for (;;) {
		n = shmtrace_rd_cols_read(c, ROWS, &out, have, vals, types);
		if (n == -EAGAIN) {
			again++;
			ck_assert_uint_gt(shmtrace_rd_cols_count(c), have);
		} else {
			ck_assert_int_ge(n, 0);
			rows += n;
			if (!n)
				break;
		}
		ck_assert_uint_le(shmtrace_rd_cols_count(c), 32);
		for (; have < shmtrace_rd_cols_count(c); have++) {
			vals[have] = calloc(ROWS, sizeof(uint64_t));
			types[have] = calloc(ROWS, 1);
		}
	}
	ck_assert_int_eq(rows, 9);
	ck_assert_int_ge(again, 1);
	/* num ptr msg val arr a b c d e f g x: no arr_length */
	ck_assert_uint_eq(shmtrace_rd_cols_count(c), 13);
	for (size_t i = 0; i < have; i++) {
		ck_assert_str_ne(shmtrace_rd_cols_name(c, i), "arr_length");
		if (!strcmp(shmtrace_rd_cols_name(c, i), "msg"))
			msg = (int)i;
		if (!strcmp(shmtrace_rd_cols_name(c, i), "arr"))
			arr = (int)i;
	}
	ck_assert_int_ge(msg, 0);
	ck_assert_int_ge(arr, 0);
	/* the layouts: ev_a (class 0) num, ptr, msg, val; ev_seq arr alone */
	ck_assert_int_eq(shmtrace_rd_cols_class_fields(c, 0, idx, 8), 4);
	ck_assert_int_eq(idx[2], 2 * msg);
	ck_assert_int_eq(shmtrace_rd_cols_class_fields(c, 1, idx, 8), 1);
	ck_assert_int_eq(idx[0], 2 * arr);
	ck_assert_int_eq(shmtrace_rd_cols_class_fields(c, 1, idx, 0), 1);
	ck_assert_int_eq(shmtrace_rd_cols_class_fields(c, 99, idx, 8), -EINVAL);
	for (size_t i = 0; i < have; i++) {
		free(vals[i]);
		free(types[i]);
	}
	shmtrace_rd_cols_close(c);
	shmtrace_rd_close(r);
}
END_TEST

/* the filter's field 1 that no event had after select_x(), and the closest */
static char unknown[32], closest[32];

/* The rows kept by a selection of the session sample: their x values. */
static long select_x(void (*sel)(struct shmtrace_rd_columns *), uint64_t *x)
{
	struct shmtrace_rd_reader *r = open_sample("session");
	struct shmtrace_rd_columns *c;
	uint8_t ty[ROWS];
	uint64_t *vals[1] = { x };
	uint8_t *types[1] = { ty };
	long n;

	ck_assert_int_eq(shmtrace_rd_cols_open(&c, r, NULL), 0);
	ck_assert_int_eq(shmtrace_rd_cols_add(c, "x"), 0);
	sel(c);
	n = shmtrace_rd_cols_read(c, ROWS, NULL, 1, vals, types);
	if (n > 0)
		ck_assert_int_eq(shmtrace_rd_cols_read(c, ROWS, NULL, 1, vals, types), 0);
	{
		const char *near = NULL, *name = shmtrace_rd_cols_filter_unknown(c, 1, &near);

		ck_assert_ptr_null(shmtrace_rd_cols_filter_unknown(c, 0, &near));
		snprintf(unknown, sizeof(unknown), "%s", name ? name : "");
		snprintf(closest, sizeof(closest), "%s", name && near ? near : "");
	}
	shmtrace_rd_cols_close(c);
	shmtrace_rd_close(r);
	return n;
}

static void sel_none(struct shmtrace_rd_columns *c)
{
	(void)c;
}

static void sel_filter(struct shmtrace_rd_columns *c)
{
	char err[128];

	ck_assert_int_eq(shmtrace_rd_cols_select_filter(c, "x >= 100 && x % 10 < 2 ||", err,
							 sizeof(err)), -EINVAL);
	ck_assert(err[0]);
	ck_assert_int_eq(shmtrace_rd_cols_select_filter(c,
							 "x >= 100 && $ctx.procname == \"proca-10\"",
							 err, sizeof(err)), 0);
}

static void sel_typo(struct shmtrace_rd_columns *c)
{
	ck_assert_int_eq(shmtrace_rd_cols_select_filter(c, "x > 0 || xx > 0", NULL, 0), 0);
}

static void sel_tid_event(struct shmtrace_rd_columns *c)
{
	ck_assert_int_eq(shmtrace_rd_cols_select_tid(c, 101), 0);
	ck_assert_int_eq(shmtrace_rd_cols_select_event(c, "other:*"), 0);
}

static void sel_no_event(struct shmtrace_rd_columns *c)
{
	ck_assert_int_eq(shmtrace_rd_cols_select_event(c, "prov:*"), 0);
}

static void sel_bad_window(struct shmtrace_rd_columns *c)
{
	ck_assert_int_eq(shmtrace_rd_cols_select_begin(c, "not a time"), -EINVAL);
	ck_assert_int_eq(shmtrace_rd_cols_select_begin(c, "200"), 0);
	ck_assert_int_eq(shmtrace_rd_cols_select_end(c, "100"), 0);
}

START_TEST(test_select)
{
	uint64_t x[ROWS];

	ck_assert_int_eq(select_x(sel_none, x), 16);
	/* proca-10 is the second trace: x = 100 + stream * 10 + i */
	ck_assert_int_eq(select_x(sel_filter, x), 8);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_ge(x[i], 100);
	ck_assert_int_eq(select_x(sel_tid_event, x), 8);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(x[i] / 10 % 10, 1);	/* stream 1: thread 101 */
	ck_assert_int_eq(select_x(sel_no_event, x), 0);
	ck_assert_str_eq(unknown, "");
	ck_assert_int_eq(select_x(sel_typo, x), 15);	/* x = 0 is the first */
	ck_assert_str_eq(unknown, "xx");
	ck_assert_str_eq(closest, "x");
	ck_assert_int_eq(select_x(sel_bad_window, x), -EINVAL);
}
END_TEST

START_TEST(test_errors)
{
	struct shmtrace_rd_columns *c = (void *)1;
	struct shmtrace_rd_reader *r = open_sample("basic");

	ck_assert_int_eq(shmtrace_rd_cols_open(NULL, r, NULL), -EINVAL);
	ck_assert_int_eq(shmtrace_rd_cols_open(&c, NULL, NULL), -EINVAL);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(shmtrace_rd_cols_read(NULL, 1, NULL, 0, NULL, NULL), -EINVAL);
	ck_assert_int_eq(shmtrace_rd_cols_open(&c, r, NULL), 0);
	ck_assert_int_eq(shmtrace_rd_cols_add(c, "num"), 0);
	/* values without types */
	{
		uint64_t v[1];
		uint64_t *vals[1] = { v };
		uint8_t *types[1] = { NULL };

		ck_assert_int_eq(shmtrace_rd_cols_read(c, 1, NULL, 1, vals, types), -EINVAL);
		ck_assert_int_eq(shmtrace_rd_cols_read(c, 1, NULL, 1, NULL, NULL), -EINVAL);
	}
	/* no column filled: the rows are counted all the same */
	ck_assert_int_eq(shmtrace_rd_cols_read(c, 100, NULL, 0, NULL, NULL), 9);
	shmtrace_rd_cols_close(c);
	shmtrace_rd_cols_close(NULL);
	shmtrace_rd_close(r);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("columns");
	TCase *tc = tcase_create("columns");
	char *me = strdup(argv[0]);
	SRunner *sr;
	int failed;

	(void)argc;
	self_dir = me ? dirname(me) : ".";
	if (write_samples() < 0)
		return EXIT_FAILURE;
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_all);
	tcase_add_test(tc, test_select);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	nftw(samples, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(samples);
	free(me);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
